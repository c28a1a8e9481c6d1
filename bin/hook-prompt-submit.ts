#!/usr/bin/env node
// hook-prompt-submit: the UserPromptSubmit hook of Claude Code and Codex (hooks/prompt-submit
// runs this bundle). Marks the role's agent `working`; prints nothing; exit 0.
import { runHook } from '../lib/hooks/runHook.js';
import { promptSubmitAnswer } from '../lib/hooks/promptSubmit.js';

void runHook('UserPromptSubmit', promptSubmitAnswer);
