// The generated body of a handoff. Defaults follow the reference scripts; a project can
// override them with `ROOT/swarmforge/body-git_handoff.txt` or `body-note.txt`, where
// {sender}, {commit}, {task} and {message} are replaced.
import { readFileSync } from 'node:fs';
import { type Draft } from './draft.js';
import { bodyTemplatePathOf } from '../project/layout.js';

const PREAMBLE = 'Re-read your role and constitution.\n\n';
const DEFAULTS = {
  git_handoff: `${PREAMBLE}merge_and_process {sender} {commit}\n`,
  note: `${PREAMBLE}{message}\n`,
};

/** The body bytes for a validated draft from `sender`. */
export function bodyOf(root: string, sender: string, draft: Draft): Buffer {
  let template = DEFAULTS[draft.type];
  try {
    template = readFileSync(bodyTemplatePathOf(root, draft.type), 'utf8');
  } catch {
    // no override: the default stands
  }
  const values: Record<string, string> = {
    sender,
    commit: draft.commit ?? '',
    task: draft.task ?? '',
    message: draft.message ?? '',
  };
  return Buffer.from(
    template.replace(/\{(sender|commit|task|message)\}/g, (_, key: string) => values[key]!),
    'utf8',
  );
}
