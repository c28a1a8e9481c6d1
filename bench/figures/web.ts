// Figure 14: the owner's page (docs/web.md). (a) The server-side render of a big run's page
// (1,000 artifacts, 200 findings over 3 cycles, a 5,000-line diff): the whole request
// handled by `baton web`'s server in process (its session, the run read, every digest
// recomputed, findings, diff, history), timed from the request to the last byte; baseline:
// `baton run status`'s work on the same run in process (the record read, every digest
// recomputed), which the page does too. Goal: p50 ≤ 150 ms. (b) How soon an open page's
// event stream says a file changed: from a write under .swarmforge/ to the `change` event
// on /events; baseline: a raw fs.watch of the same folder seeing the same kind of write.
// Goal: p50 ≤ 1 s. The agent commands' start-up is figure 1 (nothing of the page loads
// there: it is a bundle of its own).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { readWorkflow } from '../../lib/run/record/runStore.js';
import { statusOf } from '../../lib/run/record/runStatus.js';
import { startWeb } from '../../lib/web/webServer.js';
import { commitIn, git } from '../../test/support/project.js';
import { makeRunRepo, runAtApproval } from '../../test/support/runs.js';
import { budget, figureOf, printFigure, printHeading, type Figure } from '../support/report.js';
import { summarize } from '../support/stats.js';

const RENDERS = 20;
const EVENTS = 20;

/** A run at the approval gate, grown to the figure's size. */
async function bigRun(): Promise<{ root: string; runId: string }> {
  const root = makeRunRepo();
  const runId = await runAtApproval(root, 'a finding');
  const { paths } = readWorkflow(root, runId);
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} of the big change`).join('\n');
  fs.writeFileSync(join(root, 'big.txt'), `${lines}\n`);
  git(root, 'add', 'big.txt');
  const head = commitIn(root, 'the big change');
  const wf = JSON.parse(fs.readFileSync(paths.workflow, 'utf8'));
  for (let i = 0; i < 1000; i++) {
    const path = `artifacts/bench-c1-work-${i}.txt`;
    const text = `artifact ${i}\n`.repeat(20);
    fs.writeFileSync(join(paths.dir, path), text);
    wf.artifacts.push({
      path,
      sha256: createHash('sha256').update(text).digest('hex'),
      type: 'work',
      producer: 'worker',
    });
  }
  wf.findings = Array.from({ length: 200 }, (_, i) => ({
    id: `f-${i}`,
    lane: i % 2 ? 'structured' : 'independent',
    cycle: 1 + (i % 3),
    severity: 'Minor',
    title: `finding ${i} <with markup> & such`,
    blocking: false,
    validation: null,
    resolved: false,
  }));
  wf.current_commit = head;
  fs.writeFileSync(paths.workflow, JSON.stringify(wf, null, 2));
  readWorkflow(root, runId); // still a valid record
  return { root, runId };
}

/** GET `path` with `cookie`; resolves with the time to the last byte (ms) and the status. */
function timedGet(port: number, path: string, cookie: string): Promise<[number, number]> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, cookie } },
        (res) => {
          res.resume();
          res.on('end', () => resolve([performance.now() - started, res.statusCode!]));
        },
      )
      .on('error', reject);
  });
}

/** The session cookie of a started page. */
async function sessionOf(port: number, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(
        {
          host: '127.0.0.1',
          port,
          path: `/?token=${token}`,
          headers: { host: `127.0.0.1:${port}` },
        },
        (res) => {
          res.resume();
          resolve(String(res.headers['set-cookie']).split(';')[0]!);
        },
      )
      .on('error', reject);
  });
}

/** Milliseconds from a write under `dir` to `seen` being called, `n` times. */
async function changeLatencies(
  dir: string,
  n: number,
  listen: (seen: () => void) => Promise<() => void>,
): Promise<number[]> {
  const out: number[] = [];
  let resolveSeen: (() => void) | undefined;
  const stop = await listen(() => resolveSeen?.());
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const seen = new Promise<void>((r) => (resolveSeen = r));
    const started = performance.now();
    fs.writeFileSync(join(dir, `bench-touch-${i}`), 'x');
    await seen;
    out.push(performance.now() - started);
  }
  stop();
  return out;
}

/** Figure 14 (a) and (b). */
export async function benchWeb(): Promise<Figure[]> {
  printHeading('14. the owner page: a big run rendered, a change reaching an open page');
  const { root, runId } = await bigRun();
  const web = await startWeb({ root, host: '127.0.0.1', port: 0 });
  const figures: Figure[] = [];
  try {
    const cookie = await sessionOf(web.port, new URL(web.url).searchParams.get('token')!);
    const renders: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < RENDERS + 2; i++) {
      const [ms, code] = await timedGet(web.port, `/runs/${runId}`, cookie);
      if (code !== 200) throw new Error(`the run page answered ${code}`);
      const t = performance.now();
      const { workflow, paths } = readWorkflow(root, runId);
      statusOf(workflow, paths);
      if (i >= 2) (renders.push(ms), statuses.push(performance.now() - t));
    }
    const a = figureOf(
      '14a',
      'run page, 1,000 artifacts, 200 findings, 5,000-line diff',
      summarize(renders),
      'baton run status in process (digests recomputed)',
      summarize(statuses),
      budget('p50 ≤ 150 ms', (s) => s.median <= 150),
    );
    printFigure(a);
    figures.push(a);

    const dir = join(root, '.swarmforge');
    const sse = await changeLatencies(dir, EVENTS, async (seen) => {
      const req = http.get({
        host: '127.0.0.1',
        port: web.port,
        path: '/events',
        headers: { host: `127.0.0.1:${web.port}`, cookie },
      });
      await new Promise<void>((ready) =>
        req.on('response', (res) => {
          res.setEncoding('utf8');
          res.on('data', (d: string) => d.includes('event: change') && seen());
          ready();
        }),
      );
      return () => req.destroy();
    });
    const raw = await changeLatencies(dir, EVENTS, async (seen) => {
      const watcher = fs.watch(dir, { recursive: true }, seen);
      return () => watcher.close();
    });
    const b = figureOf(
      '14b',
      'a change on disk to the open page’s event',
      summarize(sse),
      'raw fs.watch of the same folder',
      summarize(raw),
      budget('p50 ≤ 1 s', (s) => s.median <= 1000),
    );
    printFigure(b);
    figures.push(b);
  } finally {
    await web.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return figures;
}
