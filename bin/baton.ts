#!/usr/bin/env node
// baton: the umbrella command for people and scripts (init, status, doctor) and the
// synonyms handoff/ready/done of the three agent commands.
import { runBaton } from '../lib/cli/baton.js';

await runBaton(process.argv.slice(2));
