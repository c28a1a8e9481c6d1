import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, installCommandLinks } from '../../lib/swarm/commandLinks.js';
import { BIN_DIR, tempDir } from '../support/project.js';

describe('lib/swarm/commandLinks', () => {
  it('names every command agents type, with the .sh aliases (protocol §10), each a built bin', () => {
    for (const name of [
      'swarm_handoff',
      'ready_for_next',
      'done_with_current',
      'handoffd',
      'baton',
    ]) {
      assert.ok(COMMANDS[name], name);
      if (name !== 'handoffd' && name !== 'baton')
        assert.equal(COMMANDS[`${name}.sh`], COMMANDS[name], `${name}.sh`);
    }
    for (const [name, file] of Object.entries(COMMANDS))
      assert.ok(fs.statSync(join(BIN_DIR, file)).isFile(), `${name} → dist/bin/${file}`);
  });

  it('installs one symlink per command in ROOT/.swarmforge/bin (0700) to an existing file in dist/bin, replacing stale ones', () => {
    const root = tempDir();
    try {
      const dir = join(root, '.swarmforge', 'bin');
      fs.mkdirSync(dir, { recursive: true });
      fs.symlinkSync('/nonexistent/old-baton.js', join(dir, 'baton'));
      assert.equal(installCommandLinks(root, BIN_DIR), dir);
      assert.deepEqual(fs.readdirSync(dir).sort(), Object.keys(COMMANDS).sort());
      for (const [name, file] of Object.entries(COMMANDS)) {
        const link = join(dir, name);
        assert.ok(fs.lstatSync(link).isSymbolicLink(), name);
        assert.equal(fs.readlinkSync(link), join(BIN_DIR, file));
        assert.ok(fs.statSync(link).isFile(), `${name} resolves to a file`);
      }
      assert.equal(installCommandLinks(root, BIN_DIR), dir, 'idempotent');
      assert.deepEqual(fs.readdirSync(dir).sort(), Object.keys(COMMANDS).sort());
      fs.rmSync(join(root, '.swarmforge'), { recursive: true });
      installCommandLinks(root, BIN_DIR);
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
