#!/usr/bin/env node
// swarm_handoff <draft>: validate a draft and queue it in the sender's outbox.
// The command's code is the bundle baton-agent.js (lib/cli/agentCommands.ts), loaded with
// its code cache for this command.
import { loadBundle } from '../lib/cli/codeCache.js';

void loadBundle<typeof import('../lib/cli/agentCommands.js')>(
  `${__dirname}/baton-agent.js`,
  'swarm_handoff',
).runSwarmHandoff();
