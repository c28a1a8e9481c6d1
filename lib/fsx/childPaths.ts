// Paths of a folder's entries with the folder's path normalized once. path.join normalizes its
// whole result at every call: about 5 µs where the code runs once (a command, each transition of
// a controller), and the layout builds a mailbox's thirteen paths or a run's six at a time (a
// controller's run built 1,500 paths this way).
import { join } from 'node:path';

/**
 * `join(dir, name)` for names made of plain segments (no `.`, `..` or empty segment), as a function
 * of `name`: `dir` is normalized once, each name is appended.
 */
export function childPathOf(dir: string): (name: string) => string {
  const base = join(dir);
  // A normalized path keeps the input's trailing `/` (`a/` → `a/`, `./` → `./`).
  const parent = base.length > 1 && base.endsWith('/') ? base.slice(0, -1) : base;
  if (parent === '.') return (name) => name;
  if (parent === '/') return (name) => `/${name}`;
  return (name) => `${parent}/${name}`;
}
