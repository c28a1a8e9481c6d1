// Chaos, end to end in tmux (docs/runtime.md §11): runs whose scripted agents are each given
// random misbehaviours (seeded: the seed is printed, and BATON_CHAOS_SEED=S replays it;
// BATON_CHAOS_RUNS=N sets how many runs: 6 in npm test, about 30 s in three rounds of two,
// and 40 in npm run soak). Each run is a real swarm (tmux on a private socket, handoffd, the
// controller, four scripted agents) with reply deadlines of 3 s. Every run must end, within
// the bound the deadlines give (deadline × attempts + backoff for each of the six requests a
// run makes in sequence at most, + 30 s), either COMPLETED through the owner's approve from
// outside the swarm (expected whenever the faults were recoverable within the attempts) or
// BLOCKED with a reason naming the role and the fault; while it runs it is never ACTIVE past
// an expired deadline, nor for long with nothing awaited; no rejected reply is ever among the
// run's evidence, and every piece of evidence comes from the role asked.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { git, makeRepo } from '../support/project.js';
import { batonRun, ok, runDirOf, startRun } from '../support/runs.js';
import { sizeFrom } from '../support/tier.js';
import { mulberry32 } from '../support/seededRandom.js';

const ROLES = ['worker', 'reviewer-a', 'reviewer-b', 'validator'] as const;
type Role = (typeof ROLES)[number];
/** What every agent may do wrong; the validator may also write while validating. */
const COMMON = ['malformed', 'wrong-role', 'stale', 'self-approve', 'silent', 'slow', 'crash'];
const DEADLINE_S = 3;
const ATTEMPTS = 3;
const BACKOFF_MS = 500;

/** One role's faults: `--misbehave` entries and the slow answer's delay. */
interface RoleFaults {
  misbehave: string[];
  slowMs: number;
}

/** The faults of one run, drawn from `seed`. */
function faultsOf(seed: number): Record<Role, RoleFaults> {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const out = {} as Record<Role, RoleFaults>;
  for (const role of ROLES) {
    const kinds = role === 'validator' ? [...COMMON, 'edit-while-validating'] : COMMON;
    const misbehave: string[] = [];
    // A crash takes the agent away for good: rarer than the faults an agent recovers from.
    const count = pick([0, 1, 1, 2]);
    for (let i = 0; i < count; i++) {
      const kind = pick(kinds);
      if (kind === 'crash' && random() < 0.6) continue;
      if (!misbehave.some((m) => m.startsWith(`${kind}`))) misbehave.push(`${kind}:1`);
    }
    out[role] = { misbehave, slowMs: pick([500, DEADLINE_S * 1000 + 1500]) };
  }
  return out;
}

/**
 * Whether the faults are recoverable within the attempts: no agent gone for good, no write
 * while validating, at most one counted fault per role (so the run's one provider counter,
 * shared by the two reviewers asked at once, stays under the attempts).
 */
function recoverable(faults: Record<Role, RoleFaults>): boolean {
  return ROLES.every((role) => {
    const m = faults[role].misbehave.map((e) => e.split(':')[0]);
    if (m.includes('crash') || m.includes('edit-while-validating')) return false;
    const late = m.includes('slow') && faults[role].slowMs > DEADLINE_S * 1000;
    return m.filter((k) => k === 'malformed' || k === 'silent').length + (late ? 1 : 0) <= 1;
  });
}

/** swarmforge.conf: each role's scripted agent with its faults; reviewer-a finds one issue. */
function confOf(faults: Record<Role, RoleFaults>): string {
  return ROLES.map((role) => {
    const f = faults[role];
    const args = [
      ...(role === 'reviewer-a' ? ['--findings "1=sec-1 Important the token is logged"'] : []),
      ...(f.misbehave.length > 0 ? [`--misbehave ${f.misbehave.join(',')}`] : []),
      `--slow-ms ${f.slowMs}`,
    ];
    return `window ${role} baton-scripted-agent master ${args.join(' ')}\n`;
  }).join('');
}

interface Phase {
  awaiting?: { key: string; deadline_at: string; resend_at?: string }[];
}

/** The controller's phase file, or nothing while it is being replaced. */
function phaseOf(root: string, runId: string): Phase {
  try {
    return JSON.parse(
      fs.readFileSync(join(runDirOf(root, runId), 'controller', 'phase.json'), 'utf8'),
    ) as Phase;
  } catch {
    return {};
  }
}

interface Record_ {
  status: string;
  block_reason: string | null;
  artifacts: { path: string; type: string; producer: string }[];
  history: { action: string; detail: string; from: string }[];
}
const recordOf = (root: string, runId: string) =>
  JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8')) as Record_;

/** The artifacts of every reply the controller rejected (the run_result it named). */
function rejectedArtifacts(root: string): string[] {
  const box = join(root, '.swarmforge', 'handoffs', 'controller');
  const read = (dir: string) =>
    fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => fs.readFileSync(join(dir, n), 'utf8')) : [];
  const rejected = new Set(
    read(join(box, 'sent')).flatMap((t) => /\nrejected: (\S+)\n/.exec(t)?.[1] ?? []),
  );
  return read(join(box, 'inbox', 'completed')).flatMap((t) => {
    const id = /\nid: (\S+)\n/.exec(t)?.[1];
    const artifact = /\nartifact: (\S+)\n/.exec(t)?.[1];
    return id !== undefined && rejected.has(id) && artifact ? [artifact] : [];
  });
}

/** The role whose reply each type of evidence must come from. */
const PRODUCER: Record<string, RegExp> = {
  work: /^worker$/,
  resolution: /^worker$/,
  review: /^reviewer-[ab]$/,
  validation: /^validator$/,
};

/** Runs one seeded run to its end and checks every promise; returns its final status. */
async function chaosRun(seed: number): Promise<string> {
  const faults = faultsOf(seed);
  const root = makeRepo(confOf(faults));
  const where = `seed ${seed}: ${JSON.stringify(faults)}`;
  try {
    fs.writeFileSync(join(root, 'spec.md'), 'spec\n');
    fs.writeFileSync(join(root, 'accept.mjs'), 'process.exit(0)\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'spec');
    const runId = await startRun(root, [
      '--retry-attempts',
      String(ATTEMPTS),
      '--retry-base-ms',
      String(BACKOFF_MS),
    ]);
    const timeouts = ['work', 'review', 'validation', 'resolution'].flatMap((k) => [
      '--reply-timeout',
      `${k}=${DEADLINE_S}s`,
    ]);
    ok(batonRun(root, ['up', runId, ...timeouts]));
    const started = Date.now();
    // Every request may use all its attempts: deadline × attempts + backoff, for the six
    // requests of a run in sequence at most (work, reviews, validation, resolution, work
    // again after the resolution's acceptance, cycle-2 reviews), + 30 s.
    const backoff = BACKOFF_MS * (2 ** (ATTEMPTS - 1) - 1);
    const bound = 6 * (DEADLINE_S * 1000 * ATTEMPTS + backoff) + 30_000;
    let status = '';
    // Since when the run has been ACTIVE with nothing awaited (the controller between steps).
    let unawaitedSince: number | undefined;
    await waitFor(
      `run ended (${where})`,
      () => {
        status = recordOf(root, runId).status;
        if (status !== 'ACTIVE') return status !== 'PAUSED';
        const now = Date.now();
        const awaiting = phaseOf(root, runId).awaiting ?? [];
        unawaitedSince = awaiting.length > 0 ? undefined : (unawaitedSince ?? now);
        const unawaited = now - (unawaitedSince ?? now);
        assert.ok(unawaited < 5000, `ACTIVE with nothing awaited for ${unawaited} ms (${where})`);
        for (const a of awaiting) {
          const late = a.resend_at === undefined ? now - Date.parse(a.deadline_at) : 0;
          assert.ok(late < 5000, `ACTIVE ${late} ms past the deadline of ${a.key} (${where})`);
        }
        return false;
      },
      bound,
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed <= bound, `ended after ${elapsed} ms, over ${bound} (${where})`);
    if (status === 'WAITING_FOR_HUMAN_APPROVAL') {
      ok(batonRun(root, ['approve', runId]));
      status = 'COMPLETED';
    }
    const record = recordOf(root, runId);
    assert.equal(record.status, status);
    if (status === 'BLOCKED')
      assert.match(
        record.block_reason ?? '',
        /(worker|reviewer-a|reviewer-b|validator)\b.*(did not answer|unusable|failed|changed the repository)|the validator changed the repository/,
        where,
      );
    else assert.equal(status, 'COMPLETED', where);
    if (recoverable(faults)) assert.equal(status, 'COMPLETED', `recoverable faults (${where})`);
    const approvals = record.history.filter((h) => h.action === 'approve');
    assert.deepEqual(
      approvals.map((h) => [h.from, h.detail]),
      status === 'COMPLETED'
        ? [['WAITING_FOR_HUMAN_APPROVAL/APPROVAL_PENDING', 'channel=cli']]
        : [],
      `only the owner's approve from outside the swarm (${where})`,
    );
    const rejected = new Set(rejectedArtifacts(root));
    for (const a of record.artifacts) {
      assert.ok(!rejected.has(a.path), `rejected reply ${a.path} among the evidence (${where})`);
      const producer = PRODUCER[a.type];
      if (producer) assert.match(a.producer, producer, `${a.path} from ${a.producer} (${where})`);
    }
    process.stdout.write(
      `      seed ${seed}: ${status}${record.block_reason ? ` (${record.block_reason})` : ''}\n`,
    );
    return status;
  } finally {
    tearDownSwarm(root);
  }
}

describe('chaos: runs with misbehaving scripted agents, end to end in tmux (built bins)', function () {
  const runs = sizeFrom('BATON_CHAOS_RUNS', { short: 6, full: 40 });
  const seed = Number(process.env.BATON_CHAOS_SEED || Math.floor(Math.random() * 1e9));
  // Two runs at a time: each is its own project, swarm and tmux server.
  const width = 2;
  this.timeout(400_000);
  const rounds = Math.ceil(runs / width);
  for (let r = 0; r < rounds; r++) {
    const seeds = Array.from({ length: Math.min(width, runs - r * width) }, (_, i) => {
      return seed + r * width + i;
    });
    it(`seeds ${seeds.join(', ')} (replay one: BATON_CHAOS_SEED=${seeds[0]} BATON_CHAOS_RUNS=1)`, async () => {
      process.stdout.write(`      chaos seeds ${seeds.join(', ')}\n`);
      const results = await Promise.allSettled(seeds.map((s) => chaosRun(s)));
      const failed = results.flatMap((x) => (x.status === 'rejected' ? [x.reason as Error] : []));
      if (failed.length > 0) throw failed[0];
    });
  }
});
