// Figures (a subject's median over a baseline's median, measured in the same run), their
// goals and verdicts, and the final table.
import { formatMs, type Summary } from './stats.js';

/** How a figure's values print: milliseconds unless it says otherwise. */
export interface Unit {
  format: (value: number) => string;
}

/** Durations in milliseconds. */
export const MS: Unit = { format: formatMs };

/** Rates in handoffs per second. */
export const PER_SECOND: Unit = { format: (v) => `${v.toFixed(v < 100 ? 1 : 0)}/s` };

/** Shares of one CPU core, in percent. */
export const PERCENT_OF_CORE: Unit = { format: (v) => `${v.toFixed(2)} %` };

/**
 * A goal: its label and its test. Most goals judge the ratio; some judge the subject's
 * own values (a latency budget) or its distance from the baseline. A goal without a test
 * is information only (verdict `info`).
 */
export interface Goal {
  label: string;
  met?: (ratio: number, subject: Summary, baseline: Summary) => boolean;
}

/** Goal: the ratio is at most `max`. */
export function atMost(max: number, note = ''): Goal {
  return { label: `≤ ${max.toFixed(1)}×${note}`, met: (r) => r <= max };
}

/** Goal: the ratio is at least `min` (for rates, where more is better). */
export function atLeast(min: number, note = ''): Goal {
  return { label: `≥ ${min.toFixed(1)}×${note}`, met: (r) => r >= min };
}

/** Goal: the ratio is about `target`, within ±`tolerance` (a fraction). */
export function about(target: number, tolerance: number): Goal {
  const lo = target * (1 - tolerance);
  const hi = target * (1 + tolerance);
  return {
    label: `≈ ${target.toFixed(1)}× (${lo.toFixed(2)}–${hi.toFixed(2)})`,
    met: (r) => r >= lo && r <= hi,
  };
}

/** Goal on the subject's or baseline's values rather than their ratio. */
export function budget(label: string, met: (subject: Summary, baseline: Summary) => boolean): Goal {
  return { label, met: (_r, s, b) => met(s, b) };
}

/** No goal: the figure is reported for information (`expected` says what to expect). */
export function info(expected: string): Goal {
  return { label: `info (${expected})` };
}

/** One measured figure: subject vs baseline, both summarized. */
export interface Figure {
  section: string;
  name: string;
  subject: Summary;
  baselineName: string;
  baseline: Summary;
  ratio: number;
  goal: Goal;
  verdict: 'PASS' | 'MISS' | 'info';
  unit: Unit;
  /** The figure's floor against the same baseline, where one was timed beside it (withFloor). */
  floor?: { name: string; summary: Summary; ratio: number; meetsGoal: boolean };
}

/** Builds a figure from two summaries: the ratio of medians and its verdict. */
export function figureOf(
  section: string,
  name: string,
  subject: Summary,
  baselineName: string,
  baseline: Summary,
  goal: Goal,
  unit: Unit = MS,
): Figure {
  const ratio = subject.median / baseline.median;
  const verdict = goal.met ? (goal.met(ratio, subject, baseline) ? 'PASS' : 'MISS') : 'info';
  return { section, name, subject, baselineName, baseline, ratio, goal, verdict, unit };
}

/** p99 is shown only where there are enough samples for it to mean something. */
const P99_MIN_SAMPLES = 100;

function spread(s: Summary, unit: Unit): string {
  if (s.n === 1) return `${unit.format(s.median)} (one measurement)`;
  const p99 = s.n >= P99_MIN_SAMPLES ? `, p99 ${unit.format(s.p99)}` : '';
  return `${unit.format(s.median)} (p90 ${unit.format(s.p90)}${p99}, n=${s.n})`;
}

/** A ratio as printed (`—` when the baseline is zero). */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '—';
}

/** Prints one figure as soon as it is measured. */
export function printFigure(f: Figure): void {
  console.log(`  ${f.section}. ${f.name}`);
  console.log(`    subject : ${spread(f.subject, f.unit)}`);
  console.log(`    baseline: ${spread(f.baseline, f.unit)}  [${f.baselineName}]`);
  console.log(`    ratio   : ${formatRatio(f.ratio)}   goal ${f.goal.label}   ${f.verdict}`);
}

/**
 * The figure with its floor (what no build of the command can go below: durableFloor.ts, or
 * the one git call a resume must make), timed in the same rounds against the same baseline;
 * prints it under the figure, with what the command adds and whether the floor alone already
 * misses the goal.
 */
export function withFloor(f: Figure, name: string, floor: Summary): Figure {
  const ratio = floor.median / f.baseline.median;
  const meetsGoal = f.goal.met?.(ratio, floor, f.baseline) ?? true;
  console.log(
    `    floor   : ${f.unit.format(floor.median)} (${formatRatio(ratio)} ${f.baselineName}), ` +
      `${name}; the command adds ${f.unit.format(f.subject.median - floor.median)}` +
      (meetsGoal ? '' : `; the floor alone misses the goal`),
  );
  return { ...f, floor: { name, summary: floor, ratio, meetsGoal } };
}

/** Prints one breakdown line under a figure: a part's median ms and its share of `whole` (the subject's median), then `note`. */
export function printPart(label: string, ms: number, whole: number, note = ''): void {
  const share = `${((ms / whole) * 100).toFixed(0)}%`.padStart(4);
  console.log(`      ${label.padEnd(36, '.')} ${formatMs(ms).padStart(9)} ${share}${note}`);
}

/** Prints a section heading. */
export function printHeading(title: string): void {
  console.log(`\n== ${title} ${'='.repeat(Math.max(0, 76 - title.length))}`);
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** Prints the final table of every figure, one row each. */
export function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => [
    f.section,
    f.name,
    f.unit.format(f.subject.median),
    f.subject.n > 1 ? f.unit.format(f.subject.p90) : '—',
    f.subject.n >= P99_MIN_SAMPLES ? f.unit.format(f.subject.p99) : '—',
    f.unit.format(f.baseline.median),
    formatRatio(f.ratio),
    f.floor === undefined ? '—' : formatRatio(f.floor.ratio),
    f.goal.label,
    f.verdict,
  ]);
  const head = [
    ...['#', 'figure', 'median', 'p90', 'p99', 'baseline', 'ratio', 'floor'],
    ...['goal', 'verdict'],
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, numeric.has(i)))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const judged = figures.filter((f) => f.verdict !== 'info');
  const met = judged.filter((f) => f.verdict === 'PASS').length;
  const infoOnly = figures.length - judged.length;
  console.log(
    `\n${met} of ${judged.length} figures meet their goal${infoOnly > 0 ? ` (${infoOnly} more for information only)` : ''}.`,
  );
  const belowFloor = judged.filter((f) => f.floor?.meetsGoal === false).map((f) => f.section);
  if (belowFloor.length > 0)
    console.log(
      `Goals below their floor on this machine (the durable steps alone, in a bare Node ` +
        `process, take longer): ${belowFloor.join(', ')}.`,
    );
}
