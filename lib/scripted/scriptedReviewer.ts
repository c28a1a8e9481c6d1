// The scripted reviewer (`baton-scripted-reviewer`): a deterministic stand-in for a reviewer
// program (an agent CLI) under a teacher, for the tests, the benchmark and the demo. It reads
// the prompt on stdin and prints a findings document derived from it: each line of the bead
// (its task or output) of the form `FINDING: SEVERITY section: description` becomes that
// finding (`FINDING(cto): ...` only for the lens the prompt names); none means PASS. It can
// be told to misbehave the ways a real reviewer does: hang (with a helper process in its
// group, to prove the teacher ends the whole group), crash, print garbage for its first N
// runs (counted in a file), declare a verdict that contradicts its findings, or take its time.
// `--record FILE` appends one JSON line per run (pid, when the process started, lens, bead,
// attempt, helper pids) for the tests and the benchmark to read.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { fail } from '../fsx/commandFailure.js';
import { batonVersion } from '../proc/version.js';

/** The scripted reviewer's usage (`baton-scripted-reviewer --help`). */
export const SCRIPTED_REVIEWER_USAGE = `Usage: baton-scripted-reviewer [--format json|markdown]
       [--declare PASS|FAIL] [--delay-ms N] [--hang] [--crash]
       [--garbage N --counter FILE] [--record FILE]

A deterministic reviewer for a teacher (baton review teacher ... -- baton-scripted-reviewer):
reads the prompt on stdin and prints a findings document. Each line of the prompt of the form
  FINDING: SEVERITY section: description        (any lens)
  FINDING(cto): SEVERITY section: description   (only when the prompt's lens is cto)
becomes a finding; with none, the review passes.
  --format F        json (default) or markdown (front matter and '- [SEVERITY] section: ...' items)
  --declare V       add the verdict V (PASS or FAIL), even when the findings say otherwise
  --delay-ms N      wait N ms before answering
  --hang            never answer (a helper process in the same group hangs too)
  --crash           print half a document, then exit 1
  --garbage N       print garbage on the first N runs, counted in --counter FILE
  --record FILE     append one JSON line per run: pid, started_at (ms since the epoch),
                    cwd, lens, bead, attempt, strict, helpers, and the prompt read`;

/** What the argv asks for. */
export interface ScriptedReviewerSettings {
  format: 'json' | 'markdown';
  declare?: 'PASS' | 'FAIL';
  delayMs: number;
  hang: boolean;
  crash: boolean;
  garbage: number;
  counter?: string;
  record?: string;
}

const VALUE_FLAGS = new Set([
  '--format',
  '--declare',
  '--delay-ms',
  '--garbage',
  '--counter',
  '--record',
]);

function settingValue(flag: string, value: string | undefined): string {
  if (value === undefined)
    fail('usage', `baton-scripted-reviewer: ${flag} needs a value`, SCRIPTED_REVIEWER_USAGE);
  const ok =
    flag === '--format'
      ? value === 'json' || value === 'markdown'
      : flag === '--declare'
        ? value === 'PASS' || value === 'FAIL'
        : flag === '--delay-ms' || flag === '--garbage'
          ? /^\d+$/.test(value)
          : value !== '';
  if (!ok)
    fail(
      'usage',
      `baton-scripted-reviewer: bad value '${value}' for ${flag}`,
      SCRIPTED_REVIEWER_USAGE,
    );
  return value;
}

/** Parses the argv (a usage failure, exit 1, for anything unknown). */
export function scriptedReviewerSettings(argv: string[]): ScriptedReviewerSettings {
  const s: ScriptedReviewerSettings = {
    format: 'json',
    delayMs: 0,
    hang: false,
    crash: false,
    garbage: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--hang') s.hang = true;
    else if (flag === '--crash') s.crash = true;
    else if (!VALUE_FLAGS.has(flag))
      fail('usage', `baton-scripted-reviewer: unknown argument '${flag}'`, SCRIPTED_REVIEWER_USAGE);
    else {
      const value = settingValue(flag, argv[++i]);
      if (flag === '--format') s.format = value as ScriptedReviewerSettings['format'];
      else if (flag === '--declare') s.declare = value as ScriptedReviewerSettings['declare'];
      else if (flag === '--delay-ms') s.delayMs = Number(value);
      else if (flag === '--garbage') s.garbage = Number(value);
      else if (flag === '--counter') s.counter = value;
      else s.record = value;
    }
  }
  if (s.garbage > 0 && s.counter === undefined)
    fail(
      'usage',
      'baton-scripted-reviewer: --garbage N needs --counter FILE (where the runs are counted)',
      SCRIPTED_REVIEWER_USAGE,
    );
  return s;
}

/** A finding as the scripted reviewer reports it (the severity word as written). */
export interface ScriptedFinding {
  severity: string;
  section: string;
  description: string;
}

const FINDING_LINE = /^FINDING(?:\((\w+)\))?:\s*(\S+)\s+([^:]+):\s*(.+)$/;

/** The lens a prompt names (its `Lens:` line), or undefined. */
export function promptLens(prompt: string): string | undefined {
  return /^Lens: (\S+)$/m.exec(prompt)?.[1];
}

/** The findings a prompt's FINDING lines ask for (those for another lens left out). */
export function scriptedFindings(prompt: string): ScriptedFinding[] {
  const lens = promptLens(prompt);
  return prompt.split('\n').flatMap((line) => {
    const m = FINDING_LINE.exec(line.trim());
    if (!m || (m[1] !== undefined && m[1] !== lens)) return [];
    return [{ severity: m[2]!, section: m[3]!.trim(), description: m[4]!.trim() }];
  });
}

/** The findings document printed for `findings`. */
export function findingsDocumentText(
  findings: ScriptedFinding[],
  settings: Pick<ScriptedReviewerSettings, 'format' | 'declare'>,
  bead = 'the bead',
): string {
  const summary = `scripted review of ${bead}: ${findings.length} finding(s)`;
  const verdict = settings.declare ? { verdict: settings.declare } : {};
  if (settings.format === 'json') return `${JSON.stringify({ ...verdict, summary, findings })}\n`;
  const head = [
    ...(settings.declare ? [`verdict: ${settings.declare}`] : []),
    `summary: ${JSON.stringify(summary)}`,
  ];
  const items = findings.map((f) => `- [${f.severity}] ${f.section}: ${f.description}\n`);
  return `---\n${head.join('\n')}\n---\n${items.join('')}`;
}

/** The run number of this run (1 for the first), counted in `path`. */
function countRun(path: string): number {
  const previous = Number(fs.existsSync(path) ? fs.readFileSync(path, 'utf8').trim() : '0') || 0;
  fs.writeFileSync(path, `${previous + 1}\n`);
  return previous + 1;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A helper process in this process's group that never ends (what --hang leaves for the teacher to
 * kill).
 */
function startHelper(): number {
  const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    stdio: 'ignore',
  });
  return helper.pid!;
}

/**
 * Runs the scripted reviewer: `--help`/`--version` answer at once; otherwise one review of the
 * prompt on `input`.
 */
export async function runScriptedReviewer(
  argv: string[],
  env: NodeJS.ProcessEnv,
  input: NodeJS.ReadableStream,
  out: (text: string) => void,
): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return out(`${SCRIPTED_REVIEWER_USAGE}\n`);
  if (argv.includes('--version')) return out(`${batonVersion()}\n`);
  const settings = scriptedReviewerSettings(argv);
  const prompt = await readAll(input);
  const helpers = settings.hang ? [startHelper()] : [];
  const bead = /^Bead: (\S+)$/m.exec(prompt)?.[1];
  if (settings.record) {
    const line = {
      pid: process.pid,
      started_at: performance.timeOrigin,
      cwd: process.cwd(),
      lens: promptLens(prompt),
      bead,
      attempt: Number(env.BATON_REVIEW_ATTEMPT ?? 0),
      strict: /^Attempt \d+ of \d+\./m.test(prompt),
      helpers,
      prompt,
    };
    fs.appendFileSync(settings.record, `${JSON.stringify(line)}\n`);
  }
  if (settings.delayMs > 0) await new Promise((r) => setTimeout(r, settings.delayMs));
  if (settings.hang) return new Promise(() => setInterval(() => undefined, 1 << 30));
  if (settings.crash) {
    out('{"findings": [');
    fail('environment', 'baton-scripted-reviewer: crashing as asked (--crash)');
  }
  if (settings.garbage > 0 && countRun(settings.counter!) <= settings.garbage)
    return out('garbage: this is not a findings document\n');
  out(findingsDocumentText(scriptedFindings(prompt), settings, bead));
}
