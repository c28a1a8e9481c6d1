#!/usr/bin/env node
// ready_for_next: hand the acting role its current task again, or claim the next one.
import { runAgentCommand } from '../lib/cli/agentCommand.js';
import { readyForNext } from '../lib/handoff/receive.js';
import { READY_FOR_NEXT_USAGE } from '../lib/handoff/usage.js';

void runAgentCommand({
  program: 'ready_for_next',
  usage: READY_FOR_NEXT_USAGE,
  minArgs: 0,
  maxArgs: 0,
  run: (_args, onSkip) => readyForNext(process.cwd(), process.env, onSkip),
});
