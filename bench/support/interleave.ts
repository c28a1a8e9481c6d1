// Interleaved sampling: contenders take turns, so drift in the machine (page cache,
// another process, CPU frequency) hits every contender alike instead of whichever ran
// last. The order within a round alternates (ABBA...) to cancel first-runs-first effects.
import { msSince, summarize } from './stats.js';

/** One contender: untimed preparation, the timed action, untimed clean-up after it. */
export interface Contender {
  name: string;
  prepare?: () => Promise<void> | void;
  run: () => Promise<void> | void;
  reset?: () => Promise<void> | void;
}

async function timeOnce(c: Contender): Promise<number> {
  await c.prepare?.();
  const start = process.hrtime.bigint();
  await c.run();
  const ms = msSince(start);
  await c.reset?.();
  return ms;
}

/** Runs the contenders in alternating rounds after `warmup` untimed rounds; each one's samples in ms. */
export async function interleave(
  contenders: Contender[],
  warmup: number,
  runs: number,
): Promise<number[][]> {
  const samples = contenders.map(() => [] as number[]);
  for (let round = 0; round < warmup + runs; round++) {
    const order = contenders.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const ms = await timeOnce(contenders[i]!);
      if (round >= warmup) samples[i]!.push(ms);
    }
  }
  return samples;
}

/** The median ms of one action sampled alone (for breakdowns of a figure): `runs` timings after `warmup`. */
export async function medianAlone(
  run: () => Promise<void> | void,
  warmup: number,
  runs: number,
): Promise<number> {
  const [samples] = await interleave([{ name: 'alone', run }], warmup, runs);
  return summarize(samples!).median;
}
