// Resolving a draft's 10-hex commit prefix in the sender's worktree with git (argv only).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type CommitLookup } from './draft.js';

const run = promisify(execFile);

/** A CommitLookup bound to a worktree: how many objects share the prefix, and the type of the one. */
export function commitLookupIn(worktree: string): CommitLookup {
  return async (prefix) => {
    let names: string[];
    try {
      const { stdout } = await run('git', ['rev-parse', `--disambiguate=${prefix}`], { cwd: worktree });
      names = stdout.split('\n').filter(Boolean);
    } catch {
      return { matches: 0 };
    }
    if (names.length !== 1) return { matches: names.length };
    const { stdout } = await run('git', ['cat-file', '-t', names[0]!], { cwd: worktree });
    return { matches: 1, type: stdout.trim() };
  };
}
