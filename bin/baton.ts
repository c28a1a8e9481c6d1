#!/usr/bin/env node
// baton: the umbrella command for people and scripts (init, status, doctor) and the
// synonyms handoff/ready/done of the three agent commands.
// `baton run` is dispatched before yargs loads, to its own bundle dist/bin/baton-run.js (its
// start-up budget; bin/baton-run.ts).
const argv = process.argv.slice(2);
if (argv[0] === 'run')
  await (
    (await import(
      new URL('./baton-run.js', import.meta.url).href
    )) as typeof import('./baton-run.js')
  ).runRunCommand(argv.slice(1));
else await (await import('../lib/cli/baton.js')).runBaton(argv);
