#!/usr/bin/env node
// ready_for_next: hand the acting role its current task again, or claim the next one.
// The command's code is the bundle baton-agent.js (lib/cli/agentCommands.ts), loaded with
// its code cache for this command.
import { loadBundle } from '../lib/cli/codeCache.js';

void loadBundle<typeof import('../lib/cli/agentCommands.js')>(
  `${__dirname}/baton-agent.js`,
  'ready_for_next',
).runReadyForNext();
