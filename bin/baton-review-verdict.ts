// `baton review verdict` read without yargs, as a bundle of its own (not a command:
// bin/baton.ts loads it for `baton review verdict …`, lib/cli/review/verdictFastPath.ts).
export { runVerdictFast } from '../lib/cli/review/verdictFastPath.js';
