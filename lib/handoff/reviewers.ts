// The runtime reviewer table `ROOT/.swarmforge/reviewers.tsv` (docs/review.md §5): one
// `<lens>\t<role>` line per `review cto|coo <role>` line of swarmforge.conf, written by
// `baton init`/`baton up` beside roles.tsv; the review stage reads it, never the conf.
import * as fs from 'node:fs';
import { type ReviewerConfig } from './config.js';
import { reviewersPathOf } from '../project/layout.js';

/** The reviewer role of each lens (a lens without a line is absent). */
export type Reviewers = Partial<Record<'cto' | 'coo', string>>;

/** reviewers.tsv text for the conf's review lines. */
export function formatReviewers(reviewers: ReviewerConfig[]): string {
  return reviewers.map((r) => `${r.lens}\t${r.role}\n`).join('');
}

/** Parses reviewers.tsv text (odd lines ignored). */
export function parseReviewers(text: string): Reviewers {
  const reviewers: Reviewers = {};
  for (const line of text.split('\n')) {
    const [lens, role] = line.replace(/\r$/, '').split('\t');
    if ((lens === 'cto' || lens === 'coo') && role) reviewers[lens] = role;
  }
  return reviewers;
}

/** ROOT's reviewers.tsv (empty when there is none). */
export function readReviewers(root: string): Reviewers {
  try {
    return parseReviewers(fs.readFileSync(reviewersPathOf(root), 'utf8'));
  } catch {
    return {};
  }
}
