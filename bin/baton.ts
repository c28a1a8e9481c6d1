#!/usr/bin/env node
// baton: the umbrella command for people and scripts (init, status, doctor) and the
// synonyms handoff/ready/done of the three agent commands.
// A dispatcher only: each command line below is a bundle of its own (OWN_BUNDLES in
// scripts/build.mjs), the run command line (dist/bin/baton-run.js), a reviewer's verdict
// (baton-review-verdict.js) or the yargs command line (baton-cli.js). A bundle costs its
// size in compile time at every start, and the controller and the owner call `baton run`
// repeatedly: it must not compile yargs and the review stage, and what it compiles is kept
// between calls: by Node's compile cache where Node has one (22.1 and later), else by
// V8's code cache (lib/cli/codeCache.ts).
import { loadBundle } from '../lib/cli/codeCache.js';

/** The exports of the bundle `name` beside this file (its code cache that of `command`). */
const bundle = <T>(name: string, command?: string): T =>
  loadBundle<T>(`${__dirname}/${name}.js`, command);

const argv = process.argv.slice(2);
const yargsCommandLine = () =>
  bundle<typeof import('../lib/cli/baton.js')>('baton-cli').runBaton(argv);
if (argv[0] === 'run')
  // Each action compiles functions of its own: it keeps a code cache of its own.
  void bundle<typeof import('../lib/cli/run/runCommand.js')>('baton-run', argv[1]).runRunCommand(
    argv.slice(1),
  );
else if (argv[0] === 'review' && argv[1] === 'verdict')
  // A reviewer's verdict, read without yargs when well-formed (verdictFastPath.ts).
  void bundle<typeof import('../lib/cli/review/verdictFastPath.js')>('baton-review-verdict')
    .runVerdictFast(argv.slice(2))
    .then((done) => (done ? undefined : yargsCommandLine()));
else void yargsCommandLine();
