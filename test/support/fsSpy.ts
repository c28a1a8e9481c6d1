// Counting the paths a piece of in-process code passes to one node:fs function (statSync,
// readFileSync): the function replaced on the builtin's own object (an ES module namespace
// is read-only) and synced to the ES module exports, so `import * as fs from 'node:fs'` in
// lib/ sees it too. The real function still runs.
import { createRequire, syncBuiltinESMExports } from 'node:module';

type Spied = 'statSync' | 'readFileSync';
const fsObject = createRequire(import.meta.url)('node:fs') as Record<Spied, unknown>;

/**
 * Records each path under `under` given to `fs[name]` until `restore()` (call it in
 * afterEach or a finally).
 */
export function spyOnFs(name: Spied, under: string): { paths: string[]; restore: () => void } {
  const real = fsObject[name] as (...args: unknown[]) => unknown;
  const paths: string[] = [];
  fsObject[name] = (path: unknown, ...rest: unknown[]) => {
    if (String(path).startsWith(under)) paths.push(String(path));
    return real(path, ...rest);
  };
  syncBuiltinESMExports();
  return {
    paths,
    restore: () => {
      fsObject[name] = real;
      syncBuiltinESMExports();
    },
  };
}

/** Records each statSync of a path under `under` until `restore()`. */
export function spyOnStats(under: string): { paths: string[]; restore: () => void } {
  return spyOnFs('statSync', under);
}
