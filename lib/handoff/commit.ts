// Resolving a draft's 10-hex commit prefix in the sender's worktree with git (argv only).
import { runGitAsync } from '../proc/git.js';
import { type CommitLookup } from './draft.js';

/**
 * A CommitLookup bound to a worktree: how many objects share the prefix, and the type of the one.
 */
export function commitLookupIn(worktree: string): CommitLookup {
  return async (prefix) => {
    let names: string[];
    try {
      names = (await runGitAsync(worktree, ['rev-parse', `--disambiguate=${prefix}`]))
        .split('\n')
        .filter(Boolean);
    } catch {
      return { matches: 0 };
    }
    if (names.length !== 1) return { matches: names.length };
    return { matches: 1, type: await runGitAsync(worktree, ['cat-file', '-t', names[0]!]) };
  };
}
