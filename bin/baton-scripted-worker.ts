#!/usr/bin/env node
// baton-scripted-worker: a stand-in for a real worker in a leaf (the demo's and the tests' worker).
import { exitAsScripted, reportFailure } from '../lib/cli/failure.js';
import { runScriptedWorker } from '../lib/scripted/scriptedWorker.js';

runScriptedWorker(process.argv.slice(2), process.env).then(exitAsScripted, (err: unknown) =>
  reportFailure('baton-scripted-worker', err),
);
