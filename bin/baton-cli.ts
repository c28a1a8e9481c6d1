// `baton`'s yargs command line as a bundle of its own (not a command: bin/baton.ts loads it
// for every `baton` command but `baton run`).
export { runBaton } from '../lib/cli/baton.js';
