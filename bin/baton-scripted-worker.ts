#!/usr/bin/env node
// baton-scripted-worker: a stand-in for a real worker in a leaf (the demo's and the tests' worker).
import { exitAsScripted, reportFailure } from '../lib/cli/failure.js';
import { runScriptedWorker } from '../lib/scripted/scriptedWorker.js';

try {
  exitAsScripted(await runScriptedWorker(process.argv.slice(2), process.env));
} catch (err) {
  reportFailure('baton-scripted-worker', err);
}
