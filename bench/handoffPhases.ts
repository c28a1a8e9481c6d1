// Where an in-process sendHandoff's time goes: its non-fsync parts timed alone with the
// library's own functions, and fsyncs per send counted. Explains the figure; not one itself.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { serializeEnvelope, type Headers } from '../lib/queue/envelope.js';
import { acquireLock } from '../lib/queue/lock.js';
import { mailboxAt } from '../lib/queue/mailbox.js';
import { actingContext } from '../lib/handoff/context.js';
import { validateDraft } from '../lib/handoff/draft.js';
import { takeSequence } from '../lib/handoff/sequence.js';
import { tempDir } from '../test/support/project.js';
import { sampleAlone } from './support/interleave.js';
import { summarize } from './support/stats.js';

const WARMUP = 3;
const RUNS = 15;

/** Median ms of parts of a send. */
export interface SendPhases {
  contextAndValidate: number;
  lock: number;
  sequence: number;
  serialize: number;
}

async function medianOf(run: () => Promise<void> | void): Promise<number> {
  return summarize(await sampleAlone(run, WARMUP, RUNS)).median;
}

async function sequenceMedian(): Promise<number> {
  const scratch = tempDir('baton-bench-seq-');
  try {
    const box = mailboxAt(join(scratch, 'sender'));
    fs.mkdirSync(box.dir, { mode: 0o700 });
    return await medianOf(async () => void (await takeSequence(box)));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Times the parts of a send by `env`'s role in `root` for `draftText`, and the locks of `locksDir`. */
export async function sendPhases(root: string, env: NodeJS.ProcessEnv, draftText: string, headers: Headers, locksDir: string): Promise<SendPhases> {
  const body = Buffer.from('Re-read your role and constitution.\n\nhello\n');
  return {
    contextAndValidate: await medianOf(async () => {
      const ctx = actingContext(root, env, 'sender role');
      const result = await validateDraft(draftText, new Set(ctx.table.roles.keys()), () => Promise.reject(new Error('note drafts need no git')));
      if (!result.ok) throw new Error(`draft invalid: ${result.errors.join('; ')}`);
    }),
    lock: await medianOf(() => acquireLock(join(locksDir, 'outbox'))()),
    sequence: await sequenceMedian(),
    serialize: await medianOf(async () => void (await serializeEnvelope(headers, body))),
  };
}
