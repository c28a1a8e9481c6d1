// One seeded generator for the stochastic tests (fuzz, soaks, chaos): mulberry32, small and
// fast, uniform enough to pick test inputs; the same seed gives the same draws, so a failing
// run is replayed from the seed it printed.

/** A generator of uniform numbers in [0, 1) from `seed`. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
