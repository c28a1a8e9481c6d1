import assert from 'node:assert/strict';
import {
  parseConfig,
  sharesRoot,
  type ConfigResult,
  type WindowConfig,
} from '../../lib/handoff/config.js';

const F = 'swarmforge/swarmforge.conf';

function windowsOf(text: string): WindowConfig[] {
  const result = parseConfig(text, F);
  assert.ok(result.ok, JSON.stringify(result));
  return result.windows;
}

function errorsOf(text: string): string[] {
  const result: ConfigResult = parseConfig(text, F);
  assert.equal(result.ok, false, `expected errors for ${JSON.stringify(text)}`);
  return result.ok ? [] : result.errors;
}

describe('lib/handoff/config', () => {
  it('parses window lines: role, agent, worktree, mode and extra agent args, with their line numbers', () => {
    assert.deepEqual(
      windowsOf('window coder claude master\nwindow QA codex qa batch --model x\n'),
      [
        {
          line: 1,
          role: 'coder',
          agent: 'claude',
          worktree: 'master',
          mode: 'task',
          extraArgs: '',
        },
        {
          line: 2,
          role: 'QA',
          agent: 'codex',
          worktree: 'qa',
          mode: 'batch',
          extraArgs: '--model x',
        },
      ],
    );
  });

  it('skips blank and # lines, trims lines, splits on any whitespace, tolerates CRLF', () => {
    assert.deepEqual(
      windowsOf(
        '# the swarm\n\n   \n  window\tcoder   claude\t master  \r\n\t# indented comment\r\n',
      ),
      [
        {
          line: 4,
          role: 'coder',
          agent: 'claude',
          worktree: 'master',
          mode: 'task',
          extraArgs: '',
        },
      ],
    );
  });

  it('the 5th field is the mode only when it is task or batch; otherwise it and the rest are agent args (mode task)', () => {
    const w = windowsOf(
      [
        'window a claude wa task',
        'window b claude wb batch',
        'window c claude wc --dangerously-skip-permissions --verbose',
        'window d claude wd Batch',
        'window e claude we task batch',
        'window f claude wf batch task',
      ].join('\n'),
    );
    assert.deepEqual(
      w.map((x) => [x.role, x.mode, x.extraArgs]),
      [
        ['a', 'task', ''],
        ['b', 'batch', ''],
        ['c', 'task', '--dangerously-skip-permissions --verbose'],
        ['d', 'task', 'Batch'],
        ['e', 'task', 'batch'],
        ['f', 'batch', 'task'],
      ],
    );
  });

  it("keeps the extra agent arguments as written (quotes, $VARIABLES, inner spacing), for the pane's shell", () => {
    const w = windowsOf(
      'window tester echo master batch --flag "quoted  arg" $HOME  \'it\'\'s\'  # not a comment to us\r\nwindow t2 echo master "a b"\n',
    );
    assert.deepEqual(
      w.map((x) => [x.mode, x.extraArgs]),
      [
        ['batch', "--flag \"quoted  arg\" $HOME  'it''s'  # not a comment to us"],
        ['task', '"a b"'],
      ],
    );
  });

  it('master and none share ROOT: any number of roles may use them', () => {
    const w = windowsOf(
      'window a claude master\nwindow b claude master\nwindow c claude none\nwindow d claude none\n',
    );
    assert.deepEqual(
      w.map((x) => x.worktree),
      ['master', 'master', 'none', 'none'],
    );
    assert.equal(sharesRoot('master'), true);
    assert.equal(sharesRoot('none'), true);
    assert.equal(sharesRoot('Master'), false);
    assert.equal(sharesRoot('review'), false);
  });

  it('accepts worktree names matching ^[A-Za-z0-9][A-Za-z0-9._-]*$', () => {
    const w = windowsOf('window a claude 1st\nwindow b claude a.b_c-d\nwindow c claude X\n');
    assert.deepEqual(
      w.map((x) => x.worktree),
      ['1st', 'a.b_c-d', 'X'],
    );
  });

  it('role names: the role rule, at most 32 characters', () => {
    const long = 'a'.repeat(33);
    assert.deepEqual(
      windowsOf(`window ${'a'.repeat(32)} claude master\n`).map((x) => x.role),
      ['a'.repeat(32)],
    );
    const rule = (r: string) =>
      `role '${r}' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`;
    assert.deepEqual(
      errorsOf(
        `window bad_role claude master\nwindow ${long} claude master\nwindow 1a claude master\nwindow a.b claude master\nwindow a/b claude master\n`,
      ),
      [
        `${F}:1: ${rule('bad_role')}`,
        `${F}:2: ${rule(long)}`,
        `${F}:3: ${rule('1a')}`,
        `${F}:4: ${rule('a.b')}`,
        `${F}:5: ${rule('a/b')}`,
      ],
    );
  });

  it('a repeated role and a repeated worktree name each point at the first line', () => {
    assert.deepEqual(
      errorsOf(
        'window coder claude master\n\nwindow coder codex master\nwindow a claude shared\nwindow b claude shared\n',
      ),
      [
        `${F}:3: role 'coder' is already defined on line 1`,
        `${F}:5: worktree 'shared' is already used on line 4; only master/none may be shared`,
      ],
    );
  });

  it('invalid worktree names, . and ..', () => {
    const rule = (w: string) =>
      `worktree '${w}' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`;
    assert.deepEqual(
      errorsOf(
        'window a claude .\nwindow b claude ..\nwindow c claude .hidden\nwindow d claude a/b\nwindow e claude -x\n',
      ),
      [
        `${F}:1: ${rule('.')}`,
        `${F}:2: ${rule('..')}`,
        `${F}:3: ${rule('.hidden')}`,
        `${F}:4: ${rule('a/b')}`,
        `${F}:5: ${rule('-x')}`,
      ],
    );
  });

  it('unknown directives and short window lines', () => {
    assert.deepEqual(errorsOf('pane x y z\nwindow a claude\nwindow\nWindow a claude master\n'), [
      `${F}:1: unknown directive 'pane'; expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'`,
      `${F}:2: a window line needs <role> <agent> <worktree>`,
      `${F}:3: a window line needs <role> <agent> <worktree>`,
      `${F}:4: unknown directive 'Window'; expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'`,
    ]);
  });

  it('reports every error at once, in line order, several on one line', () => {
    assert.deepEqual(
      errorsOf('window bad_role claude ..\nwindow ok claude wt\nwindow x claude ..\npane\n'),
      [
        `${F}:1: role 'bad_role' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`,
        `${F}:1: worktree '..' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`,
        `${F}:3: worktree '..' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`,
        `${F}:4: unknown directive 'pane'; expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'`,
      ],
    );
  });

  it('a rejected line reserves neither its role nor its worktree', () => {
    assert.deepEqual(
      errorsOf(
        'window coder claude ..\nwindow coder claude wt\nwindow bad_role claude wt2\nwindow qa claude wt2\n',
      ),
      [
        `${F}:1: worktree '..' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`,
        `${F}:3: role 'bad_role' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`,
      ],
    );
  });

  it('a file with no window lines is an error naming the file', () => {
    for (const text of ['', '# only comments\n\n']) {
      assert.deepEqual(errorsOf(text), [
        `${F}: no window lines; add 'window <role> <agent> <worktree> [task|batch]'`,
      ]);
    }
  });

  it('reads review lines: the reviewer role of each lens, in any order around the windows', () => {
    const result = parseConfig(
      'review coo QA\nwindow coder claude master\nwindow QA codex qa\n# two lenses\nreview cto coder\n',
      F,
    );
    assert.ok(result.ok);
    assert.deepEqual(result.reviewers, [
      { line: 1, lens: 'coo', role: 'QA' },
      { line: 5, lens: 'cto', role: 'coder' },
    ]);
    assert.deepEqual(windowsOf('window coder claude master\n').length, 1);
  });

  it('refuses a review line with an unknown lens, a missing or unknown role, extra fields or a lens set twice, naming file and line', () => {
    assert.deepEqual(
      errorsOf(
        'window coder claude master\nreview cfo coder\nreview cto\nreview coo ghost\nreview cto coder extra\nreview coo coder\n',
      ),
      [
        `${F}:2: a review line names a lens, cto or coo; got 'cfo'`,
        `${F}:3: a review line is 'review cto <role>'`,
        `${F}:5: a review line is 'review cto <role>'`,
        `${F}:6: the coo reviewer is already set on line 4`,
        `${F}:4: review coo names role 'ghost', which no window line defines`,
      ],
    );
  });
});
