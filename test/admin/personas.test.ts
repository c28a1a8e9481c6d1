import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { personaPathOf } from '../../lib/project/layout.js';
import {
  defaultPersonaOf,
  machinePersonaPathOf,
  PERSONA_NAMES,
  personaOf,
  shippedPersonaPathOf,
} from '../../lib/admin/personas.js';
import { tempDir } from '../support/project.js';

describe('lib/admin/personas', () => {
  let root: string;
  let home: string;
  beforeEach(() => {
    root = tempDir();
    home = tempDir();
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });
  const put = (path: string, text: string) => {
    fs.mkdirSync(dirname(path), { recursive: true });
    fs.writeFileSync(path, text);
  };

  it('without any SOUL.md: the persona Baton ships, front matter dropped, for each of its six names', async () => {
    for (const name of PERSONA_NAMES) {
      const persona = await personaOf(root, name, { HOME: home });
      const shipped = resolve('personas', `${name}.md`);
      assert.deepEqual(
        [persona.source, persona.path, persona.ignored],
        ['shipped', shipped, []],
        name,
      );
      assert.equal(shippedPersonaPathOf(name), shipped);
      assert.match(persona.text, /^You are .{40,}/s, name);
      assert.notEqual(persona.text, defaultPersonaOf(name));
      assert.doesNotMatch(persona.text, /^---|\nname: /, 'front matter dropped');
    }
  });

  it('a name Baton ships no persona for: the one-line default', async () => {
    assert.deepEqual(await personaOf(root, 'student-coder', { HOME: home }), {
      name: 'student-coder',
      text: 'You are student-coder.',
      source: 'default',
      ignored: [],
    });
    assert.match(defaultPersonaOf('teacher-coo'), /^You are teacher-coo, the COO reviewer/);
  });

  it('the machine-local ~/.baton/profiles/<name>/SOUL.md when nothing is committed', async () => {
    put(machinePersonaPathOf(home, 'teacher-cto'), 'I am the machine CTO.\n');
    assert.deepEqual(await personaOf(root, 'teacher-cto', { HOME: home }), {
      name: 'teacher-cto',
      text: 'I am the machine CTO.',
      source: 'machine',
      path: join(home, '.baton', 'profiles', 'teacher-cto', 'SOUL.md'),
      ignored: [],
    });
  });

  it('the committed swarmforge/profiles/<name>/SOUL.md wins over the machine-local one; its front matter is dropped', async () => {
    put(machinePersonaPathOf(home, 'teacher-cto'), 'I am the machine CTO.\n');
    put(
      personaPathOf(root, 'teacher-cto'),
      '---\nname: teacher-cto\nversion: 00\n---\nI am the committed CTO.\n\nI cite lines.\n',
    );
    const persona = await personaOf(root, 'teacher-cto', { HOME: home });
    assert.deepEqual(
      [persona.source, persona.text, persona.path],
      [
        'committed',
        'I am the committed CTO.\n\nI cite lines.',
        join(root, 'swarmforge', 'profiles', 'teacher-cto', 'SOUL.md'),
      ],
    );
  });

  it('a SOUL.md that is a symlink is never followed: it is passed over with a line saying so', async () => {
    put(join(root, 'secret.txt'), 'a secret of this machine\n');
    fs.mkdirSync(dirname(personaPathOf(root, 'teacher-coo')), { recursive: true });
    fs.symlinkSync(join(root, 'secret.txt'), personaPathOf(root, 'teacher-coo'));
    put(machinePersonaPathOf(home, 'teacher-coo'), 'I am the machine COO.\n');
    const persona = await personaOf(root, 'teacher-coo', { HOME: home });
    assert.deepEqual([persona.source, persona.text], ['machine', 'I am the machine COO.']);
    assert.deepEqual(persona.ignored, [
      `persona '${personaPathOf(root, 'teacher-coo')}' is a symlink: ignored (never followed)`,
    ]);
  });

  it('an empty SOUL.md counts as none: the shipped persona is used', async () => {
    put(personaPathOf(root, 'teacher-cto'), '\n\n');
    assert.equal((await personaOf(root, 'teacher-cto', { HOME: home })).source, 'shipped');
  });

  it('the package ships the persona of every name (npm pack lists personas/<name>.md)', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const files = new Set(packed[0]!.files.map((f) => f.path));
    for (const name of PERSONA_NAMES) {
      const shipped = shippedPersonaPathOf(name);
      assert.ok(files.has(`personas/${name}.md`), `personas/${name}.md is not in the package`);
      assert.equal(shipped, resolve('personas', `${name}.md`));
    }
  });
});
