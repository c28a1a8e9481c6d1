#!/usr/bin/env node
// A scripted stand-in for an interactive agent (claude, codex, or any name it is linked as),
// for the tmux tests of runtime.md §12. Like a real one it starts (slowly, if asked), draws
// an input line, takes its first prompt there (the last argument, as claude and codex get
// it, or the file in $SWARMFORGE_PROMPT_FILE), submits a line on Enter, takes `/clear` and
// `/new` as a fresh context, and runs the hooks it was given as Claude Code and Codex do:
// claude's `--settings <file>`, codex's `<cwd>/.codex/hooks.json` with
// `-c features.codex_hooks=true`; SessionStart once drawn (and after a clear),
// UserPromptSubmit on each submitted line, Stop after each answer. Each hook's command must
// be one word (a path, maybe single-quoted), as Baton writes them; it runs without a shell.
// Input that arrives while it starts is lost, as a starting program's terminal reset loses
// it. Everything is recorded, one JSON line per event, in
// $BATON_STANDIN_DIR/<name>.<role>.events: started, drawn, discarded, enter, submitted,
// cleared, hook. What each role does is set in $BATON_INTERACTIVE_PLAN, JSON
// `{"<role>": {...}}`:
//   startMs            milliseconds it shows a loading line before it draws (default 0)
//   swallowFirstEnter  the first prompt stays on the input line, its Enter eaten
//   neverReady         shows its loading line forever, runs no hook, takes no input
//   typing             keeps typing into its own input line once drawn (a busy agent)
// Plain JavaScript: it runs in panes without tsx.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';

const name = basename(process.argv[1] ?? 'agent');
const args = process.argv.slice(2);
const role = process.env.SWARMFORGE_ROLE ?? 'none';
const plan = JSON.parse(process.env.BATON_INTERACTIVE_PLAN || '{}')[role] ?? {};
const dir = process.env.BATON_STANDIN_DIR;
const sessionId = `standin-${process.pid}`;

function record(event, details = {}) {
  if (!dir) return;
  const line = JSON.stringify({ event, at: Date.now(), pid: process.pid, ...details });
  fs.appendFileSync(join(dir, `${name}.${role}.events`), `${line}\n`);
}

/** The hook commands for one event, from claude's --settings file or codex's hooks.json. */
function hookCommands(event) {
  const i = args.indexOf('--settings');
  const codex = args.includes('features.codex_hooks=true');
  const file =
    i >= 0 ? args[i + 1] : codex ? join(process.cwd(), '.codex', 'hooks.json') : undefined;
  if (!file || !fs.existsSync(file)) return [];
  const groups = JSON.parse(fs.readFileSync(file, 'utf8')).hooks?.[event] ?? [];
  return groups.flatMap((g) => (g.hooks ?? []).map((h) => h.command));
}

/** One shell word as Baton quotes it: bare, or in single quotes with '\'' for a quote. */
function unquote(word) {
  if (!word.startsWith("'")) return word;
  return word.slice(1, -1).replaceAll("'\\''", "'");
}

function runHooks(event, extra = {}) {
  for (const command of hookCommands(event)) {
    const input = JSON.stringify({
      session_id: sessionId,
      hook_event_name: event,
      cwd: process.cwd(),
      ...extra,
    });
    const r = spawnSync(unquote(command), [], { input, encoding: 'utf8', timeout: 30_000 });
    // What the hook told the agent (its context, for SessionStart), as the agent would read it.
    record('hook', { name: event, status: r.status, stdout: (r.stdout ?? '').slice(0, 4000) });
  }
}

/** The first prompt: the last argument of a known agent, else the prompt file's text. */
function firstPrompt() {
  if (process.env.SWARMFORGE_PROMPT_FILE)
    return fs.readFileSync(process.env.SWARMFORGE_PROMPT_FILE, 'utf8').trimEnd();
  const last = args.at(-1);
  return last && !last.startsWith('-') && args.length > 1 ? last : undefined;
}

record('started', { argv: args, cwd: process.cwd() });
let started = false;
let input = '';
let swallowNext = Boolean(plan.swallowFirstEnter);
const out = (text) => process.stdout.write(text);

function submit() {
  const text = input;
  input = '';
  record('submitted', { text });
  if (text === '/clear' || text === '/new') {
    record('cleared', { command: text });
    out('\r\n(context cleared)\r\n> ');
    runHooks('SessionStart', { source: 'clear' });
    return;
  }
  runHooks('UserPromptSubmit', { prompt: text });
  out(`\r\n● answered: ${text.split('\n')[0].slice(0, 40)}\r\n> `);
  runHooks('Stop', { stop_hook_active: false });
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.resume();
process.stdin.on('data', (chunk) => {
  const text = chunk.toString('utf8');
  if (!started || plan.neverReady) {
    record('discarded', { text });
    return;
  }
  for (const ch of text) {
    if (ch === '\u0003' || ch === '\u0004') process.exit(0);
    if (ch === '\r' || ch === '\n') {
      record('enter', { swallowed: swallowNext });
      if (swallowNext) swallowNext = false;
      else submit();
    } else {
      input += ch;
      out(ch);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
process.on('SIGHUP', () => process.exit(0));

function draw() {
  started = true;
  out('stand-in agent ready\r\n> ');
  record('drawn');
  runHooks('SessionStart', { source: 'startup' });
  const prompt = firstPrompt();
  if (prompt !== undefined) {
    input = prompt;
    out(prompt.split('\n').join('\r\n'));
    if (swallowNext) {
      record('enter', { swallowed: true, first: true });
      swallowNext = false;
    } else submit();
  }
  if (plan.typing) setInterval(() => ((input += '.'), out('.')), 300);
}

// While it starts it shows that it is loading, as slow programs do: a pane that changes is
// not taken for an agent waiting.
const frames = ['|', '/', '-', '\\'];
let frame = 0;
const loading = setInterval(() => out(`\rstarting ${frames[frame++ % 4]} ${frame}`), 200);
if (!plan.neverReady)
  setTimeout(() => {
    clearInterval(loading);
    out('\r\n');
    draw();
  }, plan.startMs ?? 0);
