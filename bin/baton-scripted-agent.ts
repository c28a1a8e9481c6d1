#!/usr/bin/env node
// baton-scripted-agent: a stand-in for a real agent in a pane (the demo's and the tests' agent).
import { reportFailure } from '../lib/cli/failure.js';
import { runScriptedAgent } from '../lib/scripted/scriptedAgent.js';

runScriptedAgent(process.argv.slice(2), process.env).catch((err: unknown) =>
  reportFailure('baton-scripted-agent', err),
);
