import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { gitComplaint, runGit } from '../../lib/proc/git.js';
import { tempDir } from '../support/project.js';

describe('lib/proc/git', () => {
  it('runs git with an argument vector in a folder and returns its trimmed stdout', () => {
    const dir = tempDir();
    try {
      runGit(dir, ['init', '-q', '-b', 'trunk']);
      assert.equal(runGit(dir, ['symbolic-ref', '--short', 'HEAD']), 'trunk');
      assert.equal(runGit(dir, ['rev-parse', '--show-toplevel']), dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a failure quotes git's own complaint (the first line of its stderr), else the error's message", () => {
    const dir = tempDir();
    try {
      assert.throws(
        () => runGit(dir, ['rev-parse', 'HEAD']),
        (err: unknown) => /^fatal: not a git repository/.test(gitComplaint(err)),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(gitComplaint(new Error('spawn git ENOENT\nmore')), 'spawn git ENOENT');
  });
});
