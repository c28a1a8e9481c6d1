// Figures (a subject's median over a baseline's median, measured in the same run), their
// goals and verdicts, and the final table.
import { formatMs, type Summary } from './stats.js';

/** A goal for a ratio: its label and its test. */
export interface Goal {
  label: string;
  met: (ratio: number) => boolean;
}

/** Goal: the ratio is at most `max`. */
export function atMost(max: number, note = ''): Goal {
  return { label: `≤ ${max.toFixed(1)}×${note}`, met: (r) => r <= max };
}

/** Goal: the ratio is about `target`, within ±`tolerance` (a fraction). */
export function about(target: number, tolerance: number): Goal {
  const lo = target * (1 - tolerance);
  const hi = target * (1 + tolerance);
  return { label: `≈ ${target.toFixed(1)}× (${lo.toFixed(2)}–${hi.toFixed(2)})`, met: (r) => r >= lo && r <= hi };
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
  verdict: 'PASS' | 'MISS';
}

/** Builds a figure from two summaries: the ratio of medians and its verdict. */
export function figureOf(section: string, name: string, subject: Summary, baselineName: string, baseline: Summary, goal: Goal): Figure {
  const ratio = subject.median / baseline.median;
  return { section, name, subject, baselineName, baseline, ratio, goal, verdict: goal.met(ratio) ? 'PASS' : 'MISS' };
}

function medianP90(s: Summary): string {
  return `${formatMs(s.median)} (p90 ${formatMs(s.p90)}, n=${s.n})`;
}

/** Prints one figure as soon as it is measured. */
export function printFigure(f: Figure): void {
  console.log(`  ${f.section}. ${f.name}`);
  console.log(`    subject : ${medianP90(f.subject)}`);
  console.log(`    baseline: ${medianP90(f.baseline)}  [${f.baselineName}]`);
  console.log(`    ratio   : ${f.ratio.toFixed(2)}×   goal ${f.goal.label}   ${f.verdict}`);
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
    f.section, f.name, formatMs(f.subject.median), formatMs(f.subject.p90), formatMs(f.baseline.median),
    `${f.ratio.toFixed(2)}×`, f.goal.label, f.verdict,
  ]);
  const head = ['#', 'figure', 'median', 'p90', 'baseline', 'ratio', 'goal', 'verdict'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = new Set([2, 3, 4, 5]);
  const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i]!, numeric.has(i))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const missed = figures.filter((f) => f.verdict === 'MISS').length;
  console.log(`\n${figures.length - missed} of ${figures.length} figures meet their goal.`);
}
