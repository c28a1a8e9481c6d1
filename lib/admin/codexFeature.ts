// Codex runs hooks only behind a feature flag: `codex_hooks = true` under `[features]` in its
// config.toml (docs/agent-hooks.md). This turns it on in a config text without a TOML
// library, by the few shapes the key can take: a `codex_hooks` line in the `[features]`
// table, or a dotted `features.codex_hooks` key before the first table. A line already
// true is left alone (the text keeps its bytes); another value is replaced; a missing key
// goes right under `[features]`, or in a `[features]` table appended at the end. Shapes
// with no safe place to write (an inline `features = {…}` table, `[features]` twice) are
// refused with MalformedSettings, as the hooks merge refuses its own.
import { MalformedSettings } from './hookSettings.js';

/** The config text with the flag on, and whether it was there already. */
export interface MergedFeature {
  text: string;
  outcome: 'added' | 'present';
}

const TABLE = /^\s*\[\s*features\s*\]\s*(#.*)?$/;
const ANY_TABLE = /^\s*\[/;
const IN_TABLE_KEY = /^\s*codex_hooks\s*=\s*([^#]*?)\s*(#.*)?$/;
const DOTTED_KEY = /^\s*features\s*\.\s*codex_hooks\s*=\s*([^#]*?)\s*(#.*)?$/;
const INLINE_TABLE = /^\s*features\s*=/;
const LINE = 'codex_hooks = true';

/** Turns `features.codex_hooks` on in `text` (none or blank: a new file). */
export function enableCodexHooks(text: string | undefined): MergedFeature {
  const source = text ?? '';
  const lines = source.split('\n');
  const firstTable = lines.findIndex((l) => ANY_TABLE.test(l));
  const topLevel = firstTable === -1 ? lines.length : firstTable;
  if (lines.slice(0, topLevel).some((l) => INLINE_TABLE.test(l)))
    throw new MalformedSettings('"features" is an inline table; set codex_hooks = true in it');
  const tables = lines.flatMap((l, i) => (TABLE.test(l) ? [i] : []));
  if (tables.length > 1) throw new MalformedSettings('[features] appears more than once');
  const dotted = lines.slice(0, topLevel).findIndex((l) => DOTTED_KEY.test(l));
  const keyAt = dotted !== -1 ? dotted : keyInTable(lines, tables[0]);
  if (keyAt !== undefined) {
    const value = (DOTTED_KEY.exec(lines[keyAt]!) ?? IN_TABLE_KEY.exec(lines[keyAt]!))![1];
    if (value === 'true') return { text: source, outcome: 'present' };
    lines[keyAt] = dotted !== -1 ? `features.${LINE}` : LINE;
    return { text: lines.join('\n'), outcome: 'added' };
  }
  if (tables[0] !== undefined) {
    lines.splice(tables[0] + 1, 0, LINE);
    return { text: lines.join('\n'), outcome: 'added' };
  }
  const body = source === '' || source.endsWith('\n') ? source : `${source}\n`;
  const gap = body.trim() === '' ? '' : '\n';
  return { text: `${body.trim() === '' ? '' : body}${gap}[features]\n${LINE}\n`, outcome: 'added' };
}

/** The line of `codex_hooks` inside the `[features]` table starting at `table`, if any. */
function keyInTable(lines: string[], table: number | undefined): number | undefined {
  if (table === undefined) return undefined;
  for (let i = table + 1; i < lines.length && !ANY_TABLE.test(lines[i]!); i++)
    if (IN_TABLE_KEY.test(lines[i]!)) return i;
  return undefined;
}
