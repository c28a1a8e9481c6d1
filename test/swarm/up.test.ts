import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { shellWord } from '../../lib/swarm/up.js';

describe('lib/swarm/up', () => {
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
