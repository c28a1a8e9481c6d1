import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { splitAcceptanceCommand } from '../../../lib/run/gates/commandWords.js';

/** The refusal a command gets: `kind: first line`, or its argv when it is accepted. */
function outcomeOf(command: string): string | string[] {
  try {
    return splitAcceptanceCommand(command);
  } catch (err) {
    if (err instanceof CommandFailure) return `${err.kind}: ${err.lines[0]}`;
    throw err;
  }
}

const operatorRefusal = (token: string) =>
  `refused: acceptance command has a shell operator or expansion: '${token}'; baton runs it without a shell`;

describe('lib/run/gates/commandWords', () => {
  it('splits on blanks and honours single quotes, double quotes and backslashes', () => {
    assert.deepEqual(outcomeOf('npm test'), ['npm', 'test']);
    assert.deepEqual(outcomeOf(`npx mocha  'test/a b.ts' "x y" it\\'s ""`), [
      'npx',
      'mocha',
      'test/a b.ts',
      'x y',
      "it's",
      '',
    ]);
    assert.deepEqual(outcomeOf(`grep -e 'a|b;c&d>e<f(g)' "h|i;j"`), [
      'grep',
      '-e',
      'a|b;c&d>e<f(g)',
      'h|i;j',
    ]);
    assert.deepEqual(outcomeOf(`printf '$HOME \`id\`' "\\$HOME" \\$USER`), [
      'printf',
      '$HOME `id`',
      '$HOME',
      '$USER',
    ]);
  });

  it('expands nothing: globs, a tilde and braces stay literal', () => {
    assert.deepEqual(outcomeOf('ls *.ts src/?.js [ab].md ~/x {a,b} \\*'), [
      'ls',
      '*.ts',
      'src/?.js',
      '[ab].md',
      '~/x',
      '{a,b}',
      '*',
    ]);
  });

  it('refuses every unquoted operator, naming it', () => {
    for (const [command, token] of [
      ['npm test | tee log', '|'],
      ['a && b', '&&'],
      ['a || b', '||'],
      ['a; b', ';'],
      ['a & b', '&'],
      ['a > out', '>'],
      ['a >> out', '>>'],
      ['a < in', '<'],
      ['a 2>&1', '>&'],
      ['(a)', '('],
      ['a |& b', '|&'],
      ['a;b', ';'],
      ['diff <(a) b', '<('],
    ])
      assert.equal(outcomeOf(command!), operatorRefusal(token!), command);
  });

  it('refuses every $ expansion, unquoted or inside double quotes', () => {
    for (const [command, token] of [
      ['echo $HOME', '$HOME'],
      ['echo "$HOME"', '$HOME'],
      ['echo ${HOME}', '$HOME'],
      ['echo "a${X}b"', '$X'],
      ['echo $$', '$$'],
      ['echo $(id)', '$'],
      ['echo "$(id)"', '$'],
      ['echo ${}', '${'],
      ["echo $'a\\nb'", "$'"],
    ])
      assert.equal(outcomeOf(command!), operatorRefusal(token!), command);
  });

  it('refuses a backtick anywhere outside single quotes, which shell-quote would keep as text', () => {
    for (const command of ['echo `id`', 'echo "`id`"', 'echo a`id`b', 'echo \\`id\\`'])
      assert.equal(outcomeOf(command), operatorRefusal('`'), command);
  });

  it('refuses an unquoted newline (a second command to a shell), which shell-quote would read as a blank', () => {
    assert.equal(outcomeOf('npm test\nrm -rf x'), operatorRefusal('\\n'));
    assert.equal(outcomeOf('npm test \\\n --x'), operatorRefusal('\\n'));
    assert.deepEqual(outcomeOf("printf 'a\nb'"), ['printf', 'a\nb']);
  });

  it('refuses what shell-quote would read silently: an unterminated quote, a trailing backslash, a comment', () => {
    assert.equal(outcomeOf('echo "abc'), 'refused: acceptance command has an unterminated " quote');
    assert.equal(outcomeOf("echo 'abc"), "refused: acceptance command has an unterminated ' quote");
    assert.equal(outcomeOf('echo abc \\'), operatorRefusal('\\'));
    assert.equal(
      outcomeOf('npm test # all of it'),
      "refused: acceptance command has a comment: '# all of it'; quote a '#' that belongs to an argument",
    );
    assert.match(
      outcomeOf('open http://x/#top') as string,
      /^refused: acceptance command has a comment/,
    );
    assert.deepEqual(outcomeOf("open 'http://x/#top'"), ['open', 'http://x/#top']);
  });

  it('refuses an empty command, an empty program name, a NUL and a leading variable assignment', () => {
    for (const command of ['', '   ', "''"])
      assert.equal(
        outcomeOf(command),
        'refused: acceptance command is empty: it names no program',
        JSON.stringify(command),
      );
    assert.equal(outcomeOf('npm\0test'), 'refused: acceptance command has a NUL character');
    assert.equal(
      outcomeOf('CI=1 npm test'),
      "refused: acceptance command starts with a variable assignment: 'CI=1'; baton runs it without a shell (write 'env CI=1 ...')",
    );
    assert.deepEqual(outcomeOf('env CI=1 npm test'), ['env', 'CI=1', 'npm', 'test']);
  });
});
