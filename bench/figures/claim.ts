// Figure 2: the cost of one claim with 10 / 1,000 / 10,000 items waiting, library vs the
// minimal durable claim on an identical separate inbox; and flatness in completed/. Under
// each size, where a library claim's time goes: each part one library call made as the
// claim makes it (withLock on the inbox lock, itemNamesIn, readItem, stampIfMissing of
// dequeued_at), timed apart from the claim, and the fsyncs of a real claim counted.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { stampIfMissing } from '../../lib/queue/claim.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { readItem } from '../../lib/queue/item.js';
import { withLock } from '../../lib/fsx/lock.js';
import { itemNamesIn } from '../../lib/queue/names.js';
import { isoOf } from '../../lib/fsx/timestamps.js';
import { tempDir } from '../../test/support/project.js';
import { rawClaim, rawListing } from '../support/baselines.js';
import { dropClaimed, makeClaimInbox, placeFirst, type ClaimInbox } from '../support/claimInbox.js';
import { settle } from '../support/fixtureWrites.js';
import { countFsyncs } from '../support/fsyncCount.js';
import { interleave, medianAlone, type Contender } from '../support/interleave.js';
import { libClaim } from '../support/libClaim.js';
import {
  about,
  atMost,
  figureOf,
  printFigure,
  printHeading,
  printPart,
  type Figure,
} from '../support/report.js';
import { formatMs, msSince, summarize } from '../support/stats.js';

const WARMUP = 5;
const SIZES = [
  { label: '2a', waiting: 10, runs: 60 },
  { label: '2b', waiting: 1_000, runs: 60 },
  { label: '2c', waiting: 10_000, runs: 30 },
];
const FLAT_WAITING = 1_000;
const FLAT_COMPLETED = 10_000;
const FLAT_RUNS = 60;
const PART_WARMUP = 3;
const PART_RUNS = 21;

/** A contender that claims the first item of `inbox` placed with `bytes`. */
function claimer(
  name: string,
  inbox: ClaimInbox,
  bytes: Buffer,
  claim: () => Promise<unknown> | unknown,
): Contender {
  return {
    name,
    prepare: () => placeFirst(inbox, bytes),
    run: async () => void (await claim()),
    reset: () => dropClaimed(inbox),
  };
}

async function checkLibClaim(inbox: ClaimInbox): Promise<void> {
  placeFirst(inbox, inbox.firstBytes);
  const claimed = await libClaim(inbox.box);
  const headers = (await parseEnvelope(fs.readFileSync(claimed))).headers;
  if (!headers.dequeued_at) throw new Error(`library claim left no dequeued_at on ${claimed}`);
  dropClaimed(inbox);
}

interface Medians {
  lib: number;
  raw: number;
  unstamped: number;
}

/** The dequeued_at stamp as claimItem makes it (stampIfMissing), on a scratch copy of the first item; its median ms. */
async function stampMedian(inbox: ClaimInbox): Promise<number> {
  const scratch = tempDir('baton-bench-stamp-');
  try {
    const path = join(scratch, inbox.firstName);
    fs.writeFileSync(path, inbox.firstBytes, { mode: 0o600 });
    const item = await readItem(path);
    return await medianAlone(
      async () => void (await stampIfMissing(item, 'dequeued_at', isoOf(new Date()))),
      PART_WARMUP,
      PART_RUNS,
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Times the parts of a library claim on `lib` (the listings of both inboxes interleaved), counts both claims' fsyncs, and prints them. */
async function printParts(
  waiting: number,
  lib: ClaimInbox,
  raw: ClaimInbox,
  m: Medians,
): Promise<void> {
  const { box } = lib;
  const median = (run: () => Promise<void> | void) => medianAlone(run, PART_WARMUP, PART_RUNS);
  placeFirst(lib, lib.firstBytes);
  placeFirst(raw, raw.firstBytes);
  const [libList, rawList] = (
    await interleave(
      [
        { name: 'itemNamesIn', run: () => void itemNamesIn(box.inboxNew) },
        { name: 'raw listing', run: () => void rawListing(box.inboxNew) },
      ],
      PART_WARMUP,
      PART_RUNS,
    )
  ).map((samples) => summarize(samples).median);
  console.log(
    `    where the time goes (${waiting.toLocaleString('en')} waiting; phases timed apart from the claim, listings interleaved with each other; median, share of a library claim):`,
  );
  printPart(
    'inbox lock take + release ',
    await median(() => withLock(box.inboxLock, () => undefined)),
    m.lib,
  );
  printPart(
    'itemNamesIn: readdir + sort ',
    libList!,
    m.lib,
    `   raw readdir + filter + sort: ${formatMs(rawList!)}`,
  );
  printPart(
    'readItem of the first ',
    await median(async () => void (await readItem(join(box.inboxNew, lib.firstName)))),
    m.lib,
  );
  printPart(
    'dequeued_at stamp (rewriteItem) ',
    await stampMedian(lib),
    m.lib,
    '   (temp write + fsync, rename, fsync dir)',
  );
  const libFsyncs = await countFsyncs(() => libClaim(box));
  const rawFsyncs = await countFsyncs(() => rawClaim(raw.box.inboxNew, raw.box.inProcess));
  dropClaimed(lib);
  dropClaimed(raw);
  console.log(`      fsyncs per claim: library ${libFsyncs}, raw ${rawFsyncs}`);
  const stampShare = m.lib - m.unstamped;
  const dominates = stampShare >= (m.lib - m.raw) / 2;
  console.log(
    `    note: the library also stamps dequeued_at (protocol §7.1), an extra fsync'd rewrite the raw claim does not do.` +
      ` The same claim of an item that already has dequeued_at (stamp skipped; interleaved with the others)` +
      ` takes ${formatMs(m.unstamped)}, ratio ${(m.unstamped / m.raw).toFixed(2)}×: the stamp is` +
      ` ${formatMs(stampShare)} of the ${formatMs(m.lib - m.raw)} difference${dominates ? ' and dominates it' : ''}.`,
  );
}

/** Builds inboxes, runs `fn` on them, removes them; prints how long building and removing took. */
async function withInboxes<T>(
  specs: Array<[waiting: number, completed: number]>,
  fn: (inboxes: ClaimInbox[]) => Promise<T>,
): Promise<T> {
  const built = process.hrtime.bigint();
  const inboxes: ClaimInbox[] = [];
  try {
    for (const [waiting, completed] of specs)
      inboxes.push(await makeClaimInbox(waiting, completed));
    settle();
    const buildMs = msSince(built);
    const result = await fn(inboxes);
    const removed = process.hrtime.bigint();
    for (const inbox of inboxes.splice(0)) inbox.cleanup();
    const files = specs
      .map(([w, c]) => `${w.toLocaleString('en')}+${c.toLocaleString('en')}`)
      .join(', ');
    console.log(
      `    (fixtures: inboxes of ${files} waiting+completed files built in ${formatMs(buildMs)}, removed in ${formatMs(msSince(removed))})`,
    );
    return result;
  } finally {
    for (const inbox of inboxes) inbox.cleanup();
  }
}

/** Figure 2a-2c: one claim with `waiting` items waiting, library variants vs raw. */
async function sizeFigure(label: string, waiting: number, runs: number): Promise<Figure> {
  return withInboxes(
    [
      [waiting, 0],
      [waiting, 0],
    ],
    async ([lib, raw]) => sizeFigureOn(label, waiting, runs, lib!, raw!),
  );
}

async function sizeFigureOn(
  label: string,
  waiting: number,
  runs: number,
  lib: ClaimInbox,
  raw: ClaimInbox,
): Promise<Figure> {
  await checkLibClaim(lib);
  // both library variants share one inbox (each places its own first item); raw has its own
  const [libS, rawS, unstampedS] = (
    await interleave(
      [
        claimer('library claim', lib, lib.firstBytes, () => libClaim(lib.box)),
        claimer('raw claim', raw, raw.firstBytes, () =>
          rawClaim(raw.box.inboxNew, raw.box.inProcess),
        ),
        claimer('library claim, stamp skipped', lib, lib.firstBytesStamped, () =>
          libClaim(lib.box),
        ),
      ],
      WARMUP,
      runs,
    )
  ).map(summarize);
  const figure = figureOf(
    label,
    `claim, ${waiting.toLocaleString('en')} waiting`,
    libS!,
    'readdir+sort+rename+2 fsync',
    rawS!,
    atMost(1.5),
  );
  printFigure(figure);
  await printParts(waiting, lib, raw, {
    lib: libS!.median,
    raw: rawS!.median,
    unstamped: unstampedS!.median,
  });
  return figure;
}

/** Figure 2d: library claims with 10,000 files in completed/ vs the same with completed/ empty. */
async function flatFigure(): Promise<Figure> {
  return withInboxes(
    [
      [FLAT_WAITING, FLAT_COMPLETED],
      [FLAT_WAITING, 0],
    ],
    async ([full, empty]) => flatFigureOn(full!, empty!),
  );
}

async function flatFigureOn(full: ClaimInbox, empty: ClaimInbox): Promise<Figure> {
  const [fullMs, emptyMs] = await interleave(
    [
      claimer('completed full', full, full.firstBytes, () => libClaim(full.box)),
      claimer('completed empty', empty, empty.firstBytes, () => libClaim(empty.box)),
    ],
    WARMUP,
    FLAT_RUNS,
  );
  const figure = figureOf(
    '2d',
    `claim, ${FLAT_WAITING.toLocaleString('en')} waiting, ${FLAT_COMPLETED.toLocaleString('en')} completed`,
    summarize(fullMs!),
    'same, completed/ empty',
    summarize(emptyMs!),
    about(1.0, 0.15),
  );
  printFigure(figure);
  return figure;
}

/** Measures per-claim cost at each inbox size against the raw claim, then flatness in completed/. */
export async function benchClaim(): Promise<Figure[]> {
  printHeading('2. Claim: library (lock + readItemsIn + claimItem) vs minimal durable claim');
  const figures: Figure[] = [];
  for (const { label, waiting, runs } of SIZES)
    figures.push(await sizeFigure(label, waiting, runs));
  figures.push(await flatFigure());
  return figures;
}
