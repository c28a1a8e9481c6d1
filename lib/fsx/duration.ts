// Durations as people write them (runtime.md §11.4): a number and a unit, `500ms`, `90s`,
// `30m`, `2h`; retention bounds (`baton gc --older-than`, §12.6) also take days, `7d`.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a duration like `500ms`, `90s`, `30m`, `2h`; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  return parsed(text, false);
}

/** Milliseconds of a retention bound: a duration, or days (`7d`); undefined when it is not one. */
export function retentionMs(text: string): number | undefined {
  return parsed(text, true);
}

function parsed(text: string, days: boolean): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m || (m[2] === 'd' && !days)) return undefined;
  const ms = Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  return ms > 0 ? ms : undefined;
}

/** A duration as people write it: `90s`, `30m`, `2h`, `1500ms`. */
export function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
