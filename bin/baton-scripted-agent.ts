#!/usr/bin/env node
// baton-scripted-agent: a stand-in for a real agent in a pane (the demo's and the tests' agent).
import { runScriptedAgent } from '../lib/swarm/scriptedAgent.js';

await runScriptedAgent(process.argv.slice(2), process.env);
