#!/usr/bin/env node
// baton-scripted-reviewer: a deterministic reviewer for teachers (tests, benchmark, demo).
import { reportFailure } from '../lib/cli/failure.js';
import { runScriptedReviewer } from '../lib/scripted/scriptedReviewer.js';

runScriptedReviewer(process.argv.slice(2), process.env, process.stdin, (text) =>
  process.stdout.write(text),
).catch((err: unknown) => reportFailure('baton-scripted-reviewer', err));
