// Where a library claim's time goes, phase by phase, timed apart from the claim with the
// library's own functions: read-only phases on the live inbox (the library's listing
// interleaved with the raw one, since they are compared), the stamp on a scratch copy;
// plus fsync counts per claim. Explains the claim ratios; not itself a figure.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readItem, rewriteItem } from '../lib/queue/item.js';
import { acquireLock } from '../lib/queue/lock.js';
import { itemNamesIn } from '../lib/queue/names.js';
import { tempDir } from '../test/support/project.js';
import { rawClaim } from './support/baselines.js';
import { dropClaimed, placeFirst, type ClaimInbox } from './support/claimInbox.js';
import { countFsyncs } from './support/fsyncCount.js';
import { interleave, medianAlone } from './support/interleave.js';
import { libClaim } from './support/libClaim.js';
import { summarize } from './support/stats.js';

const WARMUP = 3;
const RUNS = 21;

/** Median ms of each claim phase, and fsyncs per claim. */
export interface ClaimPhases {
  lock: number;
  /** itemNamesIn (readdir, item-name filter, byte-order sort) and the raw claim's readdir + filter + sort. */
  libListing: number;
  rawListing: number;
  readFirst: number;
  stamp: number;
  libFsyncs: number;
  rawFsyncs: number;
}

async function medianOf(run: () => Promise<void> | void): Promise<number> {
  return medianAlone(run, WARMUP, RUNS);
}

async function stampMedian(inbox: ClaimInbox): Promise<number> {
  const scratch = tempDir('baton-bench-stamp-');
  try {
    const path = join(scratch, inbox.firstName);
    fs.writeFileSync(path, inbox.firstBytes, { mode: 0o600 });
    const item = await readItem(path);
    const headers = { ...item.headers, dequeued_at: new Date().toISOString() };
    return await medianOf(async () => {
      await rewriteItem(item, headers);
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Times each phase of a claim on `libInbox` and counts fsyncs on both inboxes (each first item placed, then claimed and dropped). */
export async function claimPhases(libInbox: ClaimInbox, rawInbox: ClaimInbox): Promise<ClaimPhases> {
  const { box } = libInbox;
  placeFirst(libInbox, libInbox.firstBytes);
  placeFirst(rawInbox, rawInbox.firstBytes);
  // the two listings are compared with each other, so they are sampled interleaved
  const listings = await interleave([
    { name: 'itemNamesIn', run: () => void itemNamesIn(box.inboxNew) },
    { name: 'raw readdir + sort', run: () => void fs.readdirSync(box.inboxNew).filter((n) => n.endsWith('.handoff')).sort() },
  ], WARMUP, RUNS);
  const [libListing, rawListing] = listings.map((l) => summarize(l).median);
  const phases: ClaimPhases = {
    lock: await medianOf(() => acquireLock(join(box.locks, 'inbox'))()),
    libListing: libListing!,
    rawListing: rawListing!,
    readFirst: await medianOf(async () => void (await readItem(join(box.inboxNew, libInbox.firstName)))),
    stamp: await stampMedian(libInbox),
    libFsyncs: await countFsyncs(() => libClaim(box)),
    rawFsyncs: await countFsyncs(() => rawClaim(rawInbox.box.inboxNew, rawInbox.box.inProcess)),
  };
  dropClaimed(libInbox);
  dropClaimed(rawInbox);
  return phases;
}
