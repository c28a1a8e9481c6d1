#!/usr/bin/env node
// done_with_current [ID]: complete the work in process, then claim the next.
// The command's code is the bundle baton-agent.js (lib/cli/agentCommands.ts), loaded with
// its code cache for this command.
import { loadBundle } from '../lib/cli/codeCache.js';

void loadBundle<typeof import('../lib/cli/agentCommands.js')>(
  `${__dirname}/baton-agent.js`,
  'done_with_current',
).runDoneWithCurrent();
