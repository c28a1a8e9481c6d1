// Order statistics of samples (timings in milliseconds unless a figure says otherwise).

/** Median, 90th and 99th percentiles and count of a set of samples. */
export interface Summary {
  median: number;
  p90: number;
  p99: number;
  n: number;
}

/** The value at quantile `q` (0..1) of `samples`, interpolated between the closest ranks. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) throw new Error('quantile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Median, p90, p99 and count of `samples`. */
export function summarize(samples: number[]): Summary {
  return {
    median: quantile(samples, 0.5),
    p90: quantile(samples, 0.9),
    p99: quantile(samples, 0.99),
    n: samples.length,
  };
}

/** A single measurement as a summary (n = 1: no spread to report). */
export function single(value: number): Summary {
  return { median: value, p90: value, p99: value, n: 1 };
}

/** Milliseconds elapsed since `start`, a process.hrtime.bigint() reading. */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A duration in ms with precision suited to its size (`0.412 ms`, `41.2 ms`, `412 ms`). */
export function formatMs(ms: number): string {
  if (ms < 10) return `${ms.toFixed(3)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}
