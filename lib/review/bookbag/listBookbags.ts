// `baton review list` (docs/review.md §6): one line per bookbag of the bookbag folder (and
// the archive with `archived`), read and checked like every read; a bookbag that cannot be
// read, is not valid or breaks an invariant is listed with state INVALID. Reads only.
import * as fs from 'node:fs';
import { childPathOf } from '../../fsx/childPaths.js';
import { reviewPathsOf } from '../../project/layout.js';
import { isSafeBeadName } from './beads.js';
import { type Verdict } from './bookbag.js';
import { readBookbag } from './store.js';

/** One bookbag as listed. */
export interface ListedBookbag {
  bead: string;
  state: string;
  cto_verdict: Verdict;
  coo_verdict: Verdict;
  accepted: boolean;
  archived: boolean;
}

function listFolder(dir: string, archived: boolean): ListedBookbag[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  // The folder's path normalized once, not in every join (figure 8b lists 1,000).
  const at = childPathOf(dir);
  return names
    .filter((n) => n.endsWith('.json') && isSafeBeadName(n.slice(0, -5)))
    .sort()
    .map((name) => {
      const bead = name.slice(0, -5);
      try {
        const bag = readBookbag(at(name));
        return {
          bead,
          state: bag.state,
          cto_verdict: bag.cto_verdict,
          coo_verdict: bag.coo_verdict,
          accepted: bag.accepted,
          archived,
        };
      } catch {
        return {
          bead,
          state: 'INVALID',
          cto_verdict: '',
          coo_verdict: '',
          accepted: false,
          archived,
        };
      }
    });
}

/** The bookbags of ROOT (with the archive when asked), by bead name. */
export function listBookbags(
  root: string,
  options: { archived?: boolean; env?: NodeJS.ProcessEnv } = {},
): ListedBookbag[] {
  const paths = reviewPathsOf(root, options.env);
  return [
    ...listFolder(paths.bookbags, false),
    ...(options.archived ? listFolder(paths.archive, true) : []),
  ];
}
