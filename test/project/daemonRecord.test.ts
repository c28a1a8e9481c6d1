// The daemon's files as others read them: its log line format (both ways), its liveness
// (the live holder of its lock) and the counts of health.json.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  daemonLogTail,
  daemonStatus,
  formatLogLine,
  parseLogLine,
  rewakesSpentOf,
  runningDaemon,
} from '../../lib/project/daemonRecord.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { tempDir } from '../support/project.js';

describe('lib/project/daemonRecord', () => {
  const when = new Date('2026-06-15T14:05:31.123Z');

  it('formats `<ISO time> <event> <key=value ...>`, plain values unquoted, numbers as text', () => {
    assert.equal(formatLogLine(when, 'started', {}), '2026-06-15T14:05:31.123Z started');
    assert.equal(
      formatLogLine(when, 'delivered', {
        id: 'a_1',
        name: '50_x.handoff',
        to: 'reviewer,QA',
        pid: 42,
        path: '/r/é/ü',
      }),
      '2026-06-15T14:05:31.123Z delivered id=a_1 name=50_x.handoff to=reviewer,QA pid=42 path=/r/é/ü',
    );
  });

  it('JSON-quotes values with spaces, quotes, "=", control characters, or nothing at all; a line stays one line', () => {
    assert.equal(
      formatLogLine(when, 'failed', { reason: 'unknown recipient ghost, ghost2' }),
      '2026-06-15T14:05:31.123Z failed reason="unknown recipient ghost, ghost2"',
    );
    assert.equal(
      formatLogLine(when, 'error', { a: 'x=y', b: 'say "hi"', c: '', d: 'two\nlines\tand\r' }),
      '2026-06-15T14:05:31.123Z error a="x=y" b="say \\"hi\\"" c="" d="two\\nlines\\tand\\r"',
    );
  });

  it('escapes non-printable characters (escape sequences, bidi overrides, DEL, C1) inside the quotes, and parses them back', () => {
    const name = '50_\x1b]0;x\x07\x1b[2Jevil\u202etxt\x7f\x9b.handoff';
    const line = formatLogLine(when, 'quarantined', { role: 'QA', name, reason: 'is a symlink' });
    assert.equal(
      line,
      '2026-06-15T14:05:31.123Z quarantined role=QA name="50_\\u001b]0;x\\u0007\\u001b[2Jevil\\u202etxt\\u007f\\u009b.handoff" reason="is a symlink"',
    );
    assert.deepEqual(parseLogLine(line)!.details, { role: 'QA', name, reason: 'is a symlink' });
  });

  it('parses its own lines back, whatever the values', () => {
    const details = {
      plain: 'coder',
      spaced: "name clash in QA's mailbox",
      eq: 'a=b=c',
      quoted: '"quoted" and \\"escaped\\"',
      unicode: 'héllo wörld ✓ 日本',
      emoji: '🚀',
      empty: '',
      newline: 'one\ntwo',
      trailing: 'x ',
      leading: ' =y',
      looksLikePair: 'k=v other=w',
      backslash: 'C:\\path\\',
      number: 7,
    };
    const line = formatLogLine(when, 'wake-failed', details);
    assert.equal(line.includes('\n'), false);
    assert.deepEqual(parseLogLine(line), {
      at: '2026-06-15T14:05:31.123Z',
      event: 'wake-failed',
      details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, String(v)])),
    });
  });

  it('parses a line without details, and returns undefined for a line it cannot read', () => {
    assert.deepEqual(parseLogLine('2026-06-15T14:05:31.123Z stopped'), {
      at: '2026-06-15T14:05:31.123Z',
      event: 'stopped',
      details: {},
    });
    assert.equal(parseLogLine(''), undefined);
    assert.equal(parseLogLine('garbage'), undefined);
  });

  describe('on disk', () => {
    let root: string;
    beforeEach(() => {
      root = tempDir();
      fs.mkdirSync(daemonPathsOf(root).dir, { recursive: true });
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    it('without a daemon: not running, no pid, zero counts, no log lines', () => {
      assert.equal(runningDaemon(root), undefined);
      assert.deepEqual(daemonStatus(root), {
        running: false,
        pid: null,
        last_pass_at: null,
        passes: 0,
        delivered: 0,
        failed: 0,
        errors: 0,
      });
      assert.deepEqual(daemonLogTail(root), []);
    });

    it('runningDaemon is the live holder of the daemon lock, whatever the pid file says', () => {
      const paths = daemonPathsOf(root);
      fs.writeFileSync(paths.pid, '123\n');
      assert.equal(runningDaemon(root), undefined, 'a pid file alone is not a daemon');
      const release = acquireLock(paths.lock);
      try {
        assert.equal(runningDaemon(root), process.pid);
        assert.equal(daemonStatus(root).running, true);
      } finally {
        release();
      }
      assert.equal(runningDaemon(root), undefined);
    });

    it('status reads the counts of the last run from health.json even when the daemon is gone', () => {
      const paths = daemonPathsOf(root);
      fs.writeFileSync(
        paths.health,
        JSON.stringify({
          pid: 123,
          passes: 9,
          delivered: 4,
          failed: 1,
          errors: 2,
          last_pass_at: '2026-06-15T14:05:31.123Z',
        }),
      );
      fs.writeFileSync(paths.pid, '123\n');
      assert.deepEqual(daemonStatus(root), {
        running: false,
        pid: null,
        last_pass_at: '2026-06-15T14:05:31.123Z',
        passes: 9,
        delivered: 4,
        failed: 1,
        errors: 2,
      });
    });

    it('rewakesSpentOf: the spent roles of health.json; empty without or with nonsense', () => {
      const paths = daemonPathsOf(root);
      assert.deepEqual([...rewakesSpentOf(root)], []);
      fs.writeFileSync(paths.health, JSON.stringify({ passes: 3 }));
      assert.deepEqual([...rewakesSpentOf(root)], []);
      fs.writeFileSync(paths.health, '{"passes": 3, "rewakes_');
      assert.deepEqual([...rewakesSpentOf(root)], []);
      fs.writeFileSync(paths.health, JSON.stringify({ rewakes_spent: ['coder'] }));
      assert.deepEqual([...rewakesSpentOf(root)], []);
      fs.writeFileSync(
        paths.health,
        JSON.stringify({ rewakes_spent: { coder: '2026-06-15T14:05:31.123Z', QA: 7 } }),
      );
      assert.deepEqual([...rewakesSpentOf(root)], [['coder', '2026-06-15T14:05:31.123Z']]);
    });

    it('daemonLogTail: the whole log when small; only whole lines of the last bytes when large', () => {
      const lines = Array.from({ length: 100 }, (_, i) =>
        formatLogLine(when, 'delivered', { id: `id-${i}` }),
      );
      fs.writeFileSync(daemonPathsOf(root).log, `${lines.join('\n')}\n`);
      assert.deepEqual(daemonLogTail(root), lines);
      const tail = daemonLogTail(root, 200);
      assert.ok(tail.length > 0 && tail.length < 10, String(tail.length));
      assert.deepEqual(tail, lines.slice(-tail.length), 'a line cut by the byte window is dropped');
    });
  });
});
