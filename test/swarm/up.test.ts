import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellWord, socketPathFor } from '../../lib/swarm/up.js';

describe('lib/swarm/up', () => {
  describe('socketPathFor', () => {
    const suffix = '/.swarmforge/tmux.sock';

    it('is ROOT/.swarmforge/tmux.sock when that is shorter than 100 bytes', () => {
      assert.equal(socketPathFor('/home/me/project'), '/home/me/project/.swarmforge/tmux.sock');
      const root = `/${'r'.repeat(99 - suffix.length - 1)}`;
      assert.equal(Buffer.byteLength(root + suffix), 99);
      assert.equal(socketPathFor(root), root + suffix);
    });

    it('falls back to a short, stable, per-root path in the temp folder for long roots (counted in bytes)', () => {
      const long = `/${'r'.repeat(100 - suffix.length - 1)}`;
      const fallback = socketPathFor(long);
      assert.ok(fallback.startsWith(`${tmpdir()}/`), fallback);
      assert.match(fallback, /\/baton-[0-9a-f]{16}\.sock$/);
      assert.ok(Buffer.byteLength(fallback) < 100);
      assert.equal(socketPathFor(long), fallback, 'the same root always gets the same socket');
      assert.notEqual(socketPathFor(`${long}x`), fallback, 'another root gets another socket');
      const deep = join('/', ...Array.from({ length: 40 }, (_, i) => `folder-${i}`));
      assert.ok(Buffer.byteLength(socketPathFor(deep)) < 100);
      const multibyte = `/${'é'.repeat(40)}`;
      assert.ok((multibyte + suffix).length < 100 && Buffer.byteLength(multibyte + suffix) >= 100);
      assert.match(socketPathFor(multibyte), /\/baton-[0-9a-f]{16}\.sock$/);
    });
  });

  describe('shellWord', () => {
    it('leaves plain words alone', () => {
      for (const word of ['claude', '--next', 'reviewer', '/usr/bin/x', 'a=b', 'user@host:8080', '50%', '1+1', 'file.v2_x']) assert.equal(shellWord(word), word);
    });

    it('quotes anything else so that a shell reads back exactly the word', () => {
      const tricky = [
        '', ' ', 'two words', "it's", "''", '\'"\'', '$HOME', '${PATH}', '$(id)', '`id`', '"dq"', 'a\\b', '\\', '*', '?', '[a]', '~', '~/x',
        'a;b', 'a|b', 'a&b', 'a>b', '<in', '(x)', '{a,b}', '#comment', '!bang', 'new\nline', 'tab\tx', 'é ✓ 日本', '-n', '-e \\n',
      ];
      for (const word of tricky) {
        const read = execFileSync('bash', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8' });
        assert.equal(read, word, `${JSON.stringify(word)} quoted as ${shellWord(word)}`);
      }
    });

    it('quotes each word as one argument', () => {
      const words = ['a b', "c'd", '', 'e'];
      const read = execFileSync('bash', ['-c', `printf '<%s>' ${words.map(shellWord).join(' ')}`], { encoding: 'utf8' });
      assert.equal(read, '<a b><c\'d><><e>');
    });
  });
});
