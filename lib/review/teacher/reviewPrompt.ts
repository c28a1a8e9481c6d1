// The prompt a teacher writes on its reviewer's stdin (docs/review.md §7): the persona, a
// `---` line, the lens instructions (what the lens judges and the findings document to
// print), on a retry a stricter instruction naming what was wrong with the last output,
// then the bead: task, output, files changed, verification (and the submitter's own
// acceptance criteria, blockers and summary, which the COO lens judges). Plain text, the
// same for any reviewer program; nothing in it starts a line with `FINDING:`, the marker
// the scripted reviewer looks for in the bead's own text.
import { type Bookbag, type Lens } from '../bookbag/bookbag.js';

const LENS_FOCUS: Record<Lens, string> = {
  cto:
    'You review with the CTO lens: correctness, security and edge ' +
    'cases. Read the output as code that will run: what breaks, ' +
    'what can be abused, which inputs and failures are not ' +
    'handled.',
  coo:
    'You review with the COO lens: acceptance criteria, ' +
    'completeness and task coverage. Check that the output does ' +
    'everything the task asks, that each acceptance criterion is ' +
    'really met, and that nothing was left out or only claimed.',
};

const FORMAT = [
  'Print a findings document on stdout and nothing else, in one of two forms:',
  '  JSON: {"verdict": "PASS", "summary": "one line", ' +
    '"findings": [{"severity": "HIGH", "section": "where", ' +
    '"description": "what is wrong", "suggestion": "how to fix ' +
    'it"}]}',
  '  Markdown: a front matter block (verdict: and summary: ' +
    'lines between --- lines), then one line per finding: - ' +
    '[SEVERITY] section: description',
  'Severities: CRITICAL, HIGH, MEDIUM, LOW (or Critical, ' +
    'Important, Minor, Nit). CRITICAL and HIGH block: the verdict ' +
    'is FAIL exactly when a finding is CRITICAL or HIGH, and a ' +
    'verdict that contradicts the findings is refused. No ' +
    'findings means PASS.',
].join('\n');

/** Where the reviewer is in its bounded attempts, and why the last run could not be used. */
export interface AttemptContext {
  attempt: number;
  maxAttempts: number;
  /** The reason the previous run failed (absent on a first attempt). */
  previousFailure?: string;
  /** The sections this lens's earlier reviews kept finding (the consolidation summary). */
  summary?: string;
}

/** The lens part of the prompt: focus, output format, and on a retry the stricter instruction. */
export function lensInstructions(lens: Lens, context: AttemptContext): string {
  const lines = [LENS_FOCUS[lens], '', FORMAT];
  if (context.summary)
    lines.push(
      '',
      'Your earlier reviews in this lens kept finding problems in these sections ' +
        '(consolidation summary); look there first:',
      context.summary,
    );
  if (context.attempt > 1) {
    lines.push(
      '',
      `Attempt ${context.attempt} of ${context.maxAttempts}. Your ` +
        `previous run could not be used ` +
        `(${context.previousFailure ?? 'no usable output'}).`,
      'Be strict this time: print ONLY the findings document, with ' +
        'no text before or after it and no code fences; finish within ' +
        'the time limit; exit 0.',
    );
  }
  return lines.join('\n');
}

function section(title: string, body: string): string {
  return `## ${title}\n${body.trim() === '' ? '(none)' : body.trimEnd()}\n`;
}

function list(items: string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

/** The bead as the reviewer reads it. */
export function beadText(bag: Bookbag, lens: Lens): string {
  const head = [
    `Lens: ${lens}`,
    `Bead: ${bag.bead}`,
    `Student: ${bag.student}`,
    `Domain: ${bag.domain}`,
    `Difficulty: ${bag.difficulty}`,
  ];
  if (bag.branch || bag.commit)
    head.push(`Branch: ${bag.branch || '(none)'} at ${bag.commit || '(none)'}`);
  return [
    head.join('\n'),
    '',
    section('Task', bag.task),
    section('Output', bag.output),
    section('Files changed', list(bag.files_changed)),
    section('Verification', bag.verification),
    section('Acceptance criteria met (as the student claims)', list(bag.ac_met)),
    section('Blockers', list(bag.blockers)),
    section('Summary', bag.summary),
  ].join('\n');
}

/** The whole prompt: persona, `---`, lens instructions, the bead. */
export function reviewPromptOf(
  persona: string,
  lens: Lens,
  bag: Bookbag,
  context: AttemptContext,
): string {
  return `${persona.trimEnd()}\n---\n${lensInstructions(lens, context)}\n\n${beadText(bag, lens)}`;
}
