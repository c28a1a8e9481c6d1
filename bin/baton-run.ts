// `baton run`'s command line as a bundle of its own (not a command: bin/baton.ts loads it for
// `baton run …`), so that the controller's and the owner's repeated `baton run` calls
// compile neither yargs nor the review stage.
export { runRunCommand } from '../lib/cli/run/runCommand.js';
