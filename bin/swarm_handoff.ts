#!/usr/bin/env node
// swarm_handoff <draft>: validate a draft and queue it in the sender's outbox.
import { runAgentCommand } from '../lib/cli/agentCommand.js';
import { writeStderrLine } from '../lib/fsx/stdio.js';
import { sendHandoff } from '../lib/handoff/send.js';
import { SWARM_HANDOFF_USAGE } from '../lib/handoff/usage.js';

void runAgentCommand({
  program: 'swarm_handoff',
  usage: SWARM_HANDOFF_USAGE,
  minArgs: 1,
  maxArgs: 1,
  run: (args, onSkip) =>
    sendHandoff(args[0]!, process.cwd(), process.env, onSkip, undefined, writeStderrLine),
});
