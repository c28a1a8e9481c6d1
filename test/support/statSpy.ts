// Counting the stats a piece of in-process code makes of paths under a folder: fs.statSync
// replaced on the builtin's own object (an ES module namespace is read-only) and synced to
// the ES module exports, so `import * as fs from 'node:fs'` in lib/ sees it too.
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';

const fsObject = createRequire(import.meta.url)('node:fs') as { statSync: unknown };

/** Records each statSync of a path under `under` until `restore()` (call it in afterEach). */
export function spyOnStats(under: string): { paths: string[]; restore: () => void } {
  const real = fs.statSync;
  const paths: string[] = [];
  fsObject.statSync = (path: fs.PathLike, ...rest: unknown[]) => {
    if (String(path).startsWith(under)) paths.push(String(path));
    return (real as (...args: unknown[]) => unknown)(path, ...rest);
  };
  syncBuiltinESMExports();
  return {
    paths,
    restore: () => {
      fsObject.statSync = real;
      syncBuiltinESMExports();
    },
  };
}
