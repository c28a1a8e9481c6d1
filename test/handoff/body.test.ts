import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { bodyOf } from '../../lib/handoff/body.js';
import { type Draft } from '../../lib/handoff/draft.js';
import { tempDir } from '../support/project.js';

const gitDraft: Draft = {
  type: 'git_handoff',
  to: ['reviewer'],
  priority: '50',
  task: 'task-1',
  commit: 'abcdef0123',
};
const noteDraft: Draft = { type: 'note', to: ['QA'], priority: '70', message: 'Waiting on QA 😀' };

describe('lib/handoff/body', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const override = (type: string, text: string) => {
    fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
    fs.writeFileSync(join(root, 'swarmforge', `body-${type}.txt`), text);
  };

  it('defaults: the preamble, then merge_and_process <sender> <commit> or the message, newline-terminated', () => {
    assert.ok(Buffer.isBuffer(bodyOf(root, 'coder', gitDraft)));
    assert.equal(
      bodyOf(root, 'coder', gitDraft).toString('utf8'),
      'Re-read your role and constitution.\n\nmerge_and_process coder abcdef0123\n',
    );
    assert.equal(
      bodyOf(root, 'architect', noteDraft).toString('utf8'),
      'Re-read your role and constitution.\n\nWaiting on QA 😀\n',
    );
  });

  it('body-note.txt overrides the note body; every placeholder is replaced everywhere, unknown braces kept', () => {
    override('note', '{sender} says: {message}\n{message}|{task}|{commit}|{other}|{ sender }\r\n');
    assert.equal(
      bodyOf(root, 'coder', noteDraft).toString('utf8'),
      'coder says: Waiting on QA 😀\nWaiting on QA 😀|||{other}|{ sender }\r\n',
    );
    assert.equal(
      bodyOf(root, 'coder', gitDraft).toString('utf8'),
      'Re-read your role and constitution.\n\nmerge_and_process coder abcdef0123\n',
      'the other type keeps its default',
    );
  });

  it('body-git_handoff.txt overrides the git_handoff body with sender, task and commit', () => {
    override('git_handoff', 'Merge {commit} from {sender} for {task}.{message}');
    assert.equal(
      bodyOf(root, 'coder', gitDraft).toString('utf8'),
      'Merge abcdef0123 from coder for task-1.',
    );
    assert.equal(
      bodyOf(root, 'coder', noteDraft).toString('utf8'),
      'Re-read your role and constitution.\n\nWaiting on QA 😀\n',
    );
  });

  it('values are inserted literally: no second substitution, no $ patterns', () => {
    override('note', '[{message}] from {sender}\n');
    const tricky: Draft = { ...noteDraft, message: "{sender} $& $1 $' {commit}" };
    assert.equal(
      bodyOf(root, 'coder', tricky).toString('utf8'),
      "[{sender} $& $1 $' {commit}] from coder\n",
    );
    override('git_handoff', 'task={task} commit={commit}');
    const braced: Draft = { ...gitDraft, task: '{message}{sender}{commit}' };
    assert.equal(
      bodyOf(root, 'coder', braced).toString('utf8'),
      'task={message}{sender}{commit} commit=abcdef0123',
    );
  });

  it('an empty override file gives an empty body', () => {
    override('note', '');
    assert.equal(bodyOf(root, 'coder', noteDraft).length, 0);
  });
});
