// `baton run`'s command line as a bundle of its own (not a command: bin/baton.ts loads it
// for `baton run …`). Built alone, like the hooks (scripts/build.mjs): sharing chunks with
// the other bins split it over about twenty-five files, each an ES module load, and
// `baton run status` must start within 1.5× of `node -e 0`.
export { runRunCommand } from '../lib/cli/run/runCommand.js';
