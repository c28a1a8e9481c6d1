// The one severity vocabulary of findings (docs/review.md §2, docs/runtime.md §6), for
// both stages: Critical, Important, Minor, Nit, with the other common vocabulary, CRITICAL,
// HIGH, MEDIUM, LOW, mapped onto it word for word. Critical and Important block. The run
// runtime stores these words; the review stage's bookbags store the mapped upper-case
// words (their published schema says so), and converts with bookbagWordOf. How strictly a
// word is read is each stage's: a run's evidence takes the eight words exactly, a
// reviewer's report takes them in any case.

/** A finding's severity. */
export type Severity = 'Critical' | 'Important' | 'Minor' | 'Nit';

/** The severities, most severe first. */
export const SEVERITY_WORDS: readonly Severity[] = ['Critical', 'Important', 'Minor', 'Nit'];

/** The other vocabulary, word for word: CRITICAL, HIGH, MEDIUM, LOW. */
export const MAPPED_WORDS = {
  CRITICAL: 'Critical',
  HIGH: 'Important',
  MEDIUM: 'Minor',
  LOW: 'Nit',
} as const;

/** A severity as the other vocabulary writes it. */
export type MappedWord = keyof typeof MAPPED_WORDS;

const EXACT: Readonly<Record<string, Severity>> = {
  ...Object.fromEntries(SEVERITY_WORDS.map((s) => [s, s])),
  ...MAPPED_WORDS,
};

/**
 * The severity a word names: one of the eight words exactly (`anyCase`: in any case, trimmed);
 * undefined otherwise.
 */
export function severityOf(word: string, anyCase = false): Severity | undefined {
  if (!anyCase) return Object.hasOwn(EXACT, word) ? EXACT[word] : undefined;
  const folded = word.trim().toLowerCase();
  return (
    SEVERITY_WORDS.find((s) => s.toLowerCase() === folded) ??
    (Object.hasOwn(EXACT, folded.toUpperCase()) ? EXACT[folded.toUpperCase()] : undefined)
  );
}

/** Critical and Important findings block. */
export function isBlockingSeverity(severity: Severity): boolean {
  return severity === 'Critical' || severity === 'Important';
}

/** The other vocabulary's word for a severity (what a bookbag stores). */
export function mappedWordOf(severity: Severity): MappedWord {
  return (Object.keys(MAPPED_WORDS) as MappedWord[]).find((w) => MAPPED_WORDS[w] === severity)!;
}

/** `Critical, Important, Minor, Nit`, for messages. */
export const SEVERITY_LIST = SEVERITY_WORDS.join(', ');
