// Two nodes of one swarm on this machine for the bridge's tests: two ROOTs made from the
// same swarmforge.conf and nodes.conf (coder on node a; reviewer and QA on node b), one
// real nats-server on 127.0.0.1, and a handoffd per node started as a child process
// (BATON_NODE names its node). Each test uses its own swarm name, so tests sharing a
// server never see each other's stream.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { startHandoffd, type DaemonChild } from './daemon.js';
import { type NatsServerHandle } from './nats.js';
import { itemsIn, makeProject, noteDraft, runBin, writeDraft, type Project } from './project.js';

let swarms = 0;

/** The roster text: swarm `swarm`, server `url`, coder on a, reviewer and QA on b (and `extra` lines). */
export function nodesConf(swarm: string, url: string, extra = ''): string {
  return `# two nodes on one machine\nswarm ${swarm}\nnats ${url}\n${extra}node a coder\nnode b reviewer,QA\n`;
}

/** Two nodes: their projects and their handoffds. */
export interface TwoNodes {
  swarm: string;
  a: Project;
  b: Project;
  /** The running handoffd of each node (set by start). */
  daemons: Partial<Record<'a' | 'b', DaemonChild>>;
  /** Starts `node`'s handoffd (BATON_NODE=node, a short poll interval, `env` added). */
  start: (node: 'a' | 'b', env?: Record<string, string>) => Promise<DaemonChild>;
  /** SIGKILLs `node`'s handoffd and waits for it. */
  kill: (node: 'a' | 'b') => Promise<void>;
  /** Queues a note from `from` on `node` to `to`; returns the outbox path. */
  send: (node: 'a' | 'b', from: string, to: string, message?: string) => string;
  /** SIGKILLs both handoffds and removes both ROOTs. */
  cleanup: () => Promise<void>;
}

/**
 * Makes two initialised ROOTs sharing one roster on `nats`; `urls` gives each node its own `nats`
 * line instead (a cluster's URLs in another order, so that each node connects to another server).
 */
export function makeTwoNodes(
  nats: Pick<NatsServerHandle, 'url'>,
  rosterExtra = '',
  urls?: Record<'a' | 'b', string>,
): TwoNodes {
  swarms += 1;
  const swarm = `t${process.pid}-${swarms}`;
  const a = makeProject();
  const b = makeProject();
  for (const [node, p] of [
    ['a', a],
    ['b', b],
  ] as const)
    fs.writeFileSync(
      join(p.root, 'swarmforge', 'nodes.conf'),
      nodesConf(swarm, urls?.[node] ?? nats.url, rosterExtra),
    );
  const nodes: TwoNodes = {
    swarm,
    a,
    b,
    daemons: {},
    start: async (node, env = {}) => {
      const daemon = await startHandoffd(nodes[node].root, ['--poll-interval', '200'], {
        BATON_NODE: node,
        ...env,
      });
      nodes.daemons[node] = daemon;
      return daemon;
    },
    kill: async (node) => {
      const daemon = nodes.daemons[node];
      delete nodes.daemons[node];
      if (!daemon) return;
      if (daemon.child.exitCode === null && daemon.child.signalCode === null)
        daemon.child.kill('SIGKILL');
      await daemon.exited;
    },
    send: (node, from, to, message = 'hello') => {
      const root = nodes[node].root;
      const r = runBin(
        'swarm_handoff',
        [writeDraft(root, noteDraft(to, message), `d-${Math.random()}.txt`)],
        { role: from, cwd: root },
      );
      if (r.code !== 0) throw new Error(`swarm_handoff failed: ${r.stderr}`);
      return r.stdout.replace('HANDOFF QUEUED: ', '').trim();
    },
    cleanup: async () => {
      await nodes.kill('a');
      await nodes.kill('b');
      a.cleanup();
      b.cleanup();
    },
  };
  return nodes;
}

/** Every (id, recipient) pair held in a role's inbox (new/, in_process/ and its batches, completed/ and its batches), with its count. */
export async function heldCopies(p: Project, role: string): Promise<Map<string, number>> {
  const box = p.box(role);
  const counts = new Map<string, number>();
  const dirs = [box.inboxNew, box.inProcess, box.completed];
  for (const dir of [box.inProcess, box.completed]) {
    if (!fs.existsSync(dir)) continue;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) dirs.push(join(dir, e.name));
  }
  for (const dir of dirs) {
    for (const name of itemsIn(dir)) {
      const { headers } = await parseEnvelope(fs.readFileSync(join(dir, name)));
      const key = `${headers.id}:${headers.recipient}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * True when `p`'s handoffd reports a live link and every role's pending and unacked counts at 0
 * (its bridge.json), in a report written after `since` (ms since the epoch).
 */
export function bridgeDrained(p: Project, since = 0): boolean {
  try {
    const r = JSON.parse(fs.readFileSync(join(p.root, '.swarmforge', 'bridge.json'), 'utf8')) as {
      connected: boolean;
      pending: Record<string, number>;
      unacked: Record<string, number>;
      updated_at: string;
    };
    return (
      Date.parse(r.updated_at) > since &&
      r.connected &&
      Object.keys(r.pending).length > 0 &&
      [...Object.values(r.pending), ...Object.values(r.unacked)].every((n) => n === 0)
    );
  } catch {
    return false;
  }
}

/** True when no handoff of `p` awaits a receipt (its ledger, lib/daemon/awaitingReceipts.ts). */
export function receiptsAllIn(p: Project): boolean {
  try {
    return fs.readdirSync(join(p.root, '.swarmforge', 'bridge', 'awaiting')).length === 0;
  } catch {
    return true;
  }
}

/**
 * A check for waitFor: `outboxes` empty, every node's bridge drained, by reports written
 * after the outboxes were seen empty, and no handoff awaiting a receipt. A report from before
 * may predate the last publish and say nothing is pending while messages are still to come
 * (seen under load in the soaks); a handoff without its receipt may have vanished from the
 * server and be published again.
 */
export function settledCheck(nodes: Project[], outboxes: string[]): () => boolean {
  let emptyAt: number | undefined;
  return () => {
    if (outboxes.some((dir) => itemsIn(dir).length > 0)) {
      emptyAt = undefined;
      return false;
    }
    emptyAt ??= Date.now();
    return nodes.every((p) => bridgeDrained(p, emptyAt) && receiptsAllIn(p));
  };
}

/**
 * Every copy in a role's inbox folders (batches included): id → the SHA-256 of each copy's body
 * (two entries: a duplicate; a body unlike the sender's: torn). Throws on a file that does not
 * parse or is addressed to another role.
 */
export async function bodiesHeld(p: Project, role: string): Promise<Map<string, string[]>> {
  const box = p.box(role);
  const dirs = [box.inboxNew, box.inProcess, box.completed];
  for (const dir of [box.inProcess, box.completed])
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) dirs.push(join(dir, e.name));
  const copies = new Map<string, string[]>();
  for (const dir of dirs)
    for (const name of itemsIn(dir)) {
      const { headers, body } = await parseEnvelope(fs.readFileSync(join(dir, name)));
      assert.equal(headers.recipient, role, `${dir}/${name} is addressed to ${role}`);
      const hash = createHash('sha256').update(body).digest('hex');
      copies.set(headers.id!, [...(copies.get(headers.id!) ?? []), hash]);
    }
  return copies;
}

/** The soaks' senders: a's coder and b's reviewer, each to three roles across both nodes. */
export const SOAK_ROUTES = {
  a: { from: 'coder', to: ['reviewer', 'QA', 'coder'] },
  b: { from: 'reviewer', to: ['coder', 'QA', 'reviewer'] },
} as const;

/**
 * Queues soak handoff `i` with `body` from `node`'s sender (SOAK_ROUTES) in `p`, and records the
 * body's SHA-256 in `bodies` under the handoff's id (taken from the file's name
 * `<priority>_<id>_to_<recipients>.handoff`: the file itself may be in sent/ already).
 */
export async function queueSoakHandoff(
  p: Project,
  node: 'a' | 'b',
  i: number,
  body: Buffer,
  bodies: Map<string, string>,
): Promise<void> {
  const path = await queueSystemHandoff(p.root, SOAK_ROUTES[node].from, {
    to: [...SOAK_ROUTES[node].to],
    priority: '50',
    type: 'note',
    headers: { message: `m${i}` },
    body,
  });
  const id = /^\d+_(.+?)_to_/.exec(path.split('/').pop()!)![1]!;
  bodies.set(id, createHash('sha256').update(body).digest('hex'));
}
