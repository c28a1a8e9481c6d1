import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { rolesPathOf, swarmDirOf } from '../../lib/project/layout.js';
import { formatRoles, parseRoles, readRoles, type Role } from '../../lib/handoff/roles.js';
import { tempDir } from '../support/project.js';

const coder: Role = {
  role: 'coder',
  worktreeName: 'master',
  worktreePath: '/p',
  session: 'baton-p',
  displayName: 'coder',
  agent: 'claude',
  mode: 'task',
};
const qa: Role = {
  role: 'QA',
  worktreeName: 'qa',
  worktreePath: '/p/.worktrees/qa',
  session: 'baton-p',
  displayName: 'Q A',
  agent: 'codex',
  mode: 'batch',
};

describe('lib/handoff/roles', () => {
  it('parses the 7 TAB-separated columns of each line', () => {
    const table = parseRoles(
      'coder\tmaster\t/p\tbaton-p\tcoder\tclaude\ttask\nQA\tqa\t/p/.worktrees/qa\tbaton-p\tQ A\tcodex\tbatch\n',
    );
    assert.deepEqual(table.problems, []);
    assert.deepEqual([...table.roles.keys()], ['coder', 'QA']);
    assert.deepEqual(table.roles.get('coder'), coder);
    assert.deepEqual(table.roles.get('QA'), qa);
  });

  it('a missing or empty 7th column means task; any other mode is kept verbatim for the commands to judge', () => {
    const table = parseRoles(
      'a\tm\t/p\ts\ta\tclaude\nb\tm\t/p\ts\tb\tclaude\t\nc\tm\t/p\ts\tc\tclaude\tweird\n',
    );
    assert.deepEqual(table.problems, []);
    assert.deepEqual(
      ['a', 'b', 'c'].map((r) => table.roles.get(r)?.mode),
      ['task', 'task', 'weird'],
    );
  });

  it('ignores bad lines and reports each with file:line; blank lines count in the numbering; the first of a repeated role wins', () => {
    const text = [
      'coder\tmaster\t/p\ts\tcoder\tclaude\ttask',
      '',
      'short\tmaster\t/p\ts\tshort',
      'bad_role\tmaster\t/p\ts\tbad\tclaude\ttask',
      'coder\tother\t/q\ts\tcoder2\tcodex\tbatch',
      '9lives\tm\t/p\ts\tx\tclaude',
      'QA\tqa\t/p/.worktrees/qa\tbaton-p\tQ A\tcodex\tbatch',
      '',
    ].join('\n');
    const table = parseRoles(text, '/p/.swarmforge/roles.tsv');
    assert.deepEqual(table.problems, [
      '/p/.swarmforge/roles.tsv:3: fewer than 6 columns',
      "/p/.swarmforge/roles.tsv:4: invalid role name 'bad_role'",
      "/p/.swarmforge/roles.tsv:5: repeated role 'coder'",
      "/p/.swarmforge/roles.tsv:6: invalid role name '9lives'",
    ]);
    assert.deepEqual([...table.roles.keys()], ['coder', 'QA']);
    assert.equal(table.roles.get('coder')!.worktreePath, '/p');
    assert.equal(table.roles.get('coder')!.agent, 'claude');
  });

  it('reports problems under the default name roles.tsv and tolerates CRLF line ends', () => {
    const table = parseRoles('coder\tmaster\t/p\ts\tcoder\tclaude\tbatch\r\nx\r\n');
    assert.deepEqual(table.problems, ['roles.tsv:2: fewer than 6 columns']);
    assert.equal(table.roles.get('coder')!.mode, 'batch');
  });

  it('formatRoles writes one LF-terminated line of 7 TAB-separated columns per role, and parses back to the same roles', () => {
    const text = formatRoles([coder, qa]);
    assert.equal(
      text,
      'coder\tmaster\t/p\tbaton-p\tcoder\tclaude\ttask\nQA\tqa\t/p/.worktrees/qa\tbaton-p\tQ A\tcodex\tbatch\n',
    );
    const back = parseRoles(text);
    assert.deepEqual(back.problems, []);
    assert.deepEqual([...back.roles.values()], [coder, qa]);
    assert.equal(formatRoles([...back.roles.values()]), text);
    assert.equal(formatRoles([]), '');
  });

  it('readRoles reads ROOT/.swarmforge/roles.tsv and names that path in problems', () => {
    const root = tempDir();
    try {
      fs.mkdirSync(swarmDirOf(root));
      fs.writeFileSync(rolesPathOf(root), `${formatRoles([coder])}broken\n`);
      const table = readRoles(root);
      assert.deepEqual([...table.roles.values()], [coder]);
      assert.deepEqual(table.problems, [`${rolesPathOf(root)}:2: fewer than 6 columns`]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
