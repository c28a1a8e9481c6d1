// Where a library claim's time goes, phase by phase, timed apart from the claim with the
// library's own functions: read-only phases on the live inbox (the listing variants
// interleaved with each other, since they are compared), the stamp on a scratch copy;
// plus fsync counts per claim. Explains the claim ratios; not itself a figure.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readItem, rewriteItem } from '../lib/queue/item.js';
import { acquireLock } from '../lib/queue/lock.js';
import { byteOrder, entriesOf, isItemName, itemNamesIn } from '../lib/queue/names.js';
import { tempDir } from '../test/support/project.js';
import { itemNamesProposed } from './proposedListing.js';
import { rawClaim } from './baselines.js';
import { dropClaimed, placeFirst, type ClaimInbox } from './claimInbox.js';
import { countFsyncs } from './fsyncCount.js';
import { interleave, sampleAlone } from './interleave.js';
import { libClaim } from './libClaim.js';
import { summarize } from './stats.js';

const WARMUP = 3;
const RUNS = 21;

/** Median ms of each claim phase, and fsyncs per claim. */
export interface ClaimPhases {
  lock: number;
  libListing: number;
  rawListing: number;
  /** readdir with file types alone (what itemNamesIn lists with). */
  direntListing: number;
  /** itemNamesIn's byte-order sort alone (a Buffer pair per comparison). */
  sortOnly: number;
  proposedListing: number;
  /** byteOrder sort and plain string sort of the same names in random order. */
  sortShuffled: number;
  plainShuffled: number;
  readFirst: number;
  stamp: number;
  libFsyncs: number;
  rawFsyncs: number;
}

/** A copy of `names` in random order (Fisher-Yates). */
function shuffle(names: string[]): string[] {
  const out = [...names];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function medianOf(run: () => Promise<void> | void): Promise<number> {
  return summarize(await sampleAlone(run, WARMUP, RUNS)).median;
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
  if (itemNamesProposed(box.inboxNew).join('/') !== itemNamesIn(box.inboxNew).join('/')) {
    throw new Error('proposed listing disagrees with itemNamesIn');
  }
  const names = fs.readdirSync(box.inboxNew).filter(isItemName);
  let shuffled: string[] = [];
  // the listing variants are compared with each other, so they are sampled interleaved
  const listings = await interleave([
    { name: 'itemNamesIn', run: () => void itemNamesIn(box.inboxNew) },
    { name: 'raw readdir + sort', run: () => void fs.readdirSync(box.inboxNew).filter((n) => n.endsWith('.handoff')).sort() },
    { name: 'readdir withFileTypes', run: () => void entriesOf(box.inboxNew) },
    { name: 'byteOrder sort', run: () => void [...names].sort(byteOrder) },
    { name: 'proposed', run: () => void itemNamesProposed(box.inboxNew) },
    { name: 'byteOrder sort, shuffled', prepare: () => void (shuffled = shuffle(names)), run: () => void shuffled.sort(byteOrder) },
    { name: 'string sort, shuffled', prepare: () => void (shuffled = shuffle(names)), run: () => void shuffled.sort() },
  ], WARMUP, RUNS);
  const [libListing, rawListing, direntListing, sortOnly, proposedListing, sortShuffled, plainShuffled] = listings.map((l) => summarize(l).median);
  const phases: ClaimPhases = {
    lock: await medianOf(() => acquireLock(join(box.locks, 'inbox'))()),
    libListing: libListing!,
    rawListing: rawListing!,
    direntListing: direntListing!,
    sortOnly: sortOnly!,
    proposedListing: proposedListing!,
    sortShuffled: sortShuffled!,
    plainShuffled: plainShuffled!,
    readFirst: await medianOf(async () => void (await readItem(join(box.inboxNew, libInbox.firstName)))),
    stamp: await stampMedian(libInbox),
    libFsyncs: await countFsyncs(() => libClaim(box)),
    rawFsyncs: await countFsyncs(() => rawClaim(rawInbox.box.inboxNew, rawInbox.box.inProcess)),
  };
  dropClaimed(libInbox);
  dropClaimed(rawInbox);
  return phases;
}
