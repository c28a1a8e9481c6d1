// How a bookbag reads for a person (`baton review show`, `verdict`, `score`, `dispose`
// without --json): the bead, its state, each lens's verdict and score, acceptance and every
// finding, with text from files escaped for the terminal.
import { printable } from '../../fsx/printable.js';
import { LENSES, type Bookbag } from './bookbag.js';

function lensLine(bag: Bookbag, lens: (typeof LENSES)[number]): string {
  const verdict = bag[`${lens}_verdict`];
  if (!verdict) return `${lens.toUpperCase()}: (pending) from ${bag[`${lens}_role`]}`;
  return (
    `${lens.toUpperCase()}: ${verdict} score ` +
    `${bag[`${lens}_score`]} by ` +
    `${printable(bag[`${lens}_reviewer`])}`
  );
}

/** The whole summary, one fact per line. */
export function bookbagText(bag: Bookbag): string {
  const lines = [
    `BEAD: ${bag.bead}`,
    `STATE: ${bag.state}`,
    `TASK: ${printable(bag.task)}`,
    `STUDENT: ${bag.student}  DOMAIN: ${bag.domain}  DIFFICULTY: ${bag.difficulty}`,
    ...LENSES.map((lens) => lensLine(bag, lens)),
    `ACCEPTED: ${bag.accepted ? 'yes' : 'no'}`,
    `FINDINGS: ${bag.findings.length}`,
    ...bag.findings.map(
      (f) => `- [${f.lens} ${f.severity}] ${printable(f.section)}: ${printable(f.description)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** One line after a verdict: the lens, its verdict and score, and where the bead stands. */
export function verdictLine(bag: Bookbag, lens: (typeof LENSES)[number]): string {
  return (
    `VERDICT: ${bag.bead} ${lens} ${bag[`${lens}_verdict`]} score ` +
    `${bag[`${lens}_score`]}; state ` +
    `${bag.state}${bag.state === 'REVIEWED' ? `, accepted ${bag.accepted ? 'yes' : 'no'}` : ''}\n`
  );
}
