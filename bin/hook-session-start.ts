#!/usr/bin/env node
// hook-session-start: the SessionStart hook of Claude Code and Codex (hooks/session-start
// runs this bundle). Prints the role's facts as additionalContext, or nothing; exit 0.
import { runHook } from '../lib/hooks/runHook.js';
import { sessionStartAnswer } from '../lib/hooks/sessionStart.js';

/** What this bundle compiles before its code cache is saved (lib/cli/codeCache.ts). */
export { warmRunValidators as warmCodeCache } from '../lib/run/record/validatorWarmup.js';

void runHook('SessionStart', sessionStartAnswer);
