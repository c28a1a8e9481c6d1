#!/usr/bin/env node
// baton: the umbrella command for people and scripts (init, status, doctor) and the
// synonyms handoff/ready/done of the three agent commands.
// A dispatcher only: each import() below is a bundle of its own (OWN_BUNDLES in
// scripts/build.mjs), the run command line (dist/bin/baton-run.js), a reviewer's verdict
// (baton-review-verdict.js) or the yargs command line (baton-cli.js). A bundle costs its
// size in compile time at every start, and the controller and the owner call `baton run`
// repeatedly: it must not compile yargs and the review stage. Where Node has a compile
// cache (22.1 and later), it keeps those bundles compiled between calls.
import * as nodeModule from 'node:module';

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const argv = process.argv.slice(2);
const yargsCommandLine = () => import('../lib/cli/baton.js').then((cli) => cli.runBaton(argv));
if (argv[0] === 'run')
  void import('../lib/cli/run/runCommand.js').then((run) => run.runRunCommand(argv.slice(1)));
else if (argv[0] === 'review' && argv[1] === 'verdict')
  // A reviewer's verdict, read without yargs when well-formed (verdictFastPath.ts).
  void import('../lib/cli/review/verdictFastPath.js')
    .then((fast) => fast.runVerdictFast(argv.slice(2)))
    .then((done) => (done ? undefined : yargsCommandLine()));
else void yargsCommandLine();
