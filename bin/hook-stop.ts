#!/usr/bin/env node
// hook-stop: the Stop hook of Claude Code and Codex (hooks/stop runs this bundle). Blocks
// the stop while handoffs wait and nothing is in process, else prints nothing; exit 0.
import { runHook } from '../lib/hooks/runHook.js';
import { stopAnswer } from '../lib/hooks/stop.js';

void runHook('Stop', stopAnswer);
