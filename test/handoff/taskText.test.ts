import assert from 'node:assert/strict';
import { batchText, priorityOf, taskText } from '../../lib/handoff/taskText.js';
import { type Item } from '../../lib/queue/item.js';

function item(
  headers: Record<string, string>,
  body: string | Buffer,
  path = '/r/in_process/50_x.handoff',
): Item {
  return {
    path,
    name: path.split('/').pop()!,
    id: headers.id ?? 'x',
    headers,
    body: Buffer.from(body),
    legacy: false,
  };
}

describe('lib/handoff/taskText', () => {
  it('prints TASK/FROM/TYPE/PRIORITY/TASK_NAME/PAYLOAD and the body verbatim', () => {
    const text = taskText(
      item(
        { id: 'x', from: 'coder', type: 'git_handoff', priority: '05', task: 'task-1' },
        'Re-read.\n\nmerge_and_process coder abcdef0123\n',
      ),
    );
    assert.ok(Buffer.isBuffer(text));
    assert.equal(
      text.toString(),
      'TASK: /r/in_process/50_x.handoff\nFROM: coder\nTYPE: git_handoff\nPRIORITY: 05\nTASK_NAME: task-1\nPAYLOAD:\nRe-read.\n\nmerge_and_process coder abcdef0123\n',
    );
  });

  it('no TASK_NAME line without a task header; unknown/unknown/50 for missing from, type and priority', () => {
    assert.equal(
      taskText(item({ id: 'x' }, 'b\n')).toString(),
      'TASK: /r/in_process/50_x.handoff\nFROM: unknown\nTYPE: unknown\nPRIORITY: 50\nPAYLOAD:\nb\n',
    );
    assert.equal(
      taskText(item({ id: 'x', from: '', type: '', priority: '', task: '' }, 'b\n')).toString(),
      'TASK: /r/in_process/50_x.handoff\nFROM: unknown\nTYPE: unknown\nPRIORITY: 50\nPAYLOAD:\nb\n',
    );
  });

  it('adds a newline only when the body does not end with one; an empty body prints one newline', () => {
    const head =
      'TASK: /r/in_process/50_x.handoff\nFROM: coder\nTYPE: note\nPRIORITY: 50\nPAYLOAD:\n';
    const h = { id: 'x', from: 'coder', type: 'note', priority: '50' };
    assert.equal(taskText(item(h, 'no newline')).toString(), `${head}no newline\n`);
    assert.equal(taskText(item(h, 'one\n')).toString(), `${head}one\n`);
    assert.equal(taskText(item(h, 'two\n\n\n')).toString(), `${head}two\n\n\n`);
    assert.equal(taskText(item(h, 'crlf\r\n')).toString(), `${head}crlf\r\n`);
    assert.equal(taskText(item(h, 'ends in cr\r')).toString(), `${head}ends in cr\r\n`);
    assert.equal(taskText(item(h, '')).toString(), `${head}\n`);
  });

  it('keeps non-UTF-8 body bytes verbatim', () => {
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x0a]);
    const out = taskText(item({ id: 'x' }, body));
    assert.ok(out.subarray(out.length - body.length).equals(body));
  });

  it('batchText: BATCH/COUNT/PRIORITY, then each item after a blank line and BATCH_ITEM: n', () => {
    const a = item(
      { id: 'a', from: 'coder', type: 'note', priority: '30' },
      'A',
      '/b/batch_1/30_a.handoff',
    );
    const b = item(
      { id: 'b', from: 'QA', type: 'git_handoff', priority: '30', task: 't' },
      'B\n',
      '/b/batch_1/30_b.handoff',
    );
    assert.equal(
      batchText('/b/batch_1', '30', [a, b]).toString(),
      'BATCH: /b/batch_1\nCOUNT: 2\nPRIORITY: 30\n' +
        '\nBATCH_ITEM: 1\nTASK: /b/batch_1/30_a.handoff\nFROM: coder\nTYPE: note\nPRIORITY: 30\nPAYLOAD:\nA\n' +
        '\nBATCH_ITEM: 2\nTASK: /b/batch_1/30_b.handoff\nFROM: QA\nTYPE: git_handoff\nPRIORITY: 30\nTASK_NAME: t\nPAYLOAD:\nB\n',
    );
  });

  it('priorityOf: the header, or 50', () => {
    assert.equal(priorityOf(item({ id: 'x', priority: '07' }, '')), '07');
    assert.equal(priorityOf(item({ id: 'x' }, '')), '50');
  });
});
