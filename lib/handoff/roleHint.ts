// Hints for a role name that is not in roles.tsv (`Unknown role`, `Unknown sender role`,
// `Unknown recipient role`): the roles that exist, and the one probably meant. A close
// match is the same name in another case first (`Coder` → `coder`), else a name within a
// small edit distance (`reviwer` → `reviewer`: at most 1 edit for names up to 5
// characters, 2 for longer ones, none for 2 characters or fewer; an adjacent swap counts
// as one edit). Computed only when a command fails, from the role table it already read.

/** Edits (insert, delete, substitute, swap two adjacent characters) between two strings. */
function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [
    i,
    ...Array<number>(y.length).fill(0),
  ]);
  for (let j = 1; j <= y.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[x.length]![y.length]!;
}

/**
 * The known role closest to `name`: equal but for case, else the nearest within the edit limit (the
 * first in `known` order on a tie).
 */
export function closestRole(name: string, known: string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameButCase = known.find((role) => role.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  let best: { role: string; distance: number } | undefined;
  for (const role of known) {
    const longest = Math.max([...role].length, [...name].length);
    const limit = longest <= 2 ? 0 : longest <= 5 ? 1 : 2;
    const distance = editDistance(lower, role.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { role, distance };
  }
  return best?.role;
}

/**
 * The hint line after unknown role names: `Known roles: coder, reviewer, QA.` (roles.tsv
 * order; `Known roles: none.` for an empty table), then, for one unknown name with a close
 * match, ` Did you mean 'coder'?`, or for several, ` Did you mean 'coder' for 'Coder'?`
 * per name that has one.
 */
export function knownRolesHint(unknown: string[], known: string[]): string {
  const list = known.length > 0 ? known.join(', ') : 'none';
  const guesses = unknown.flatMap((name) => {
    const match = closestRole(name, known);
    if (match === undefined) return [];
    return [
      unknown.length === 1
        ? ` Did you mean '${match}'?`
        : ` Did you mean '${match}' for '${name}'?`,
    ];
  });
  return `Known roles: ${list}.${guesses.join('')}`;
}
