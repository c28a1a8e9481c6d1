#!/usr/bin/env node
// baton-scripted-agent: a stand-in for a real agent in a pane (the demo's and the tests' agent).
import { reportFailure } from '../lib/cli/failure.js';
import { runScriptedAgent } from '../lib/scripted/scriptedAgent.js';

try {
  await runScriptedAgent(process.argv.slice(2), process.env);
} catch (err) {
  reportFailure('baton-scripted-agent', err);
}
