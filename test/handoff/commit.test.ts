import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { commitLookupIn } from '../../lib/handoff/commit.js';
import { commitIn, git, tempDir } from '../support/project.js';

/** Git's object id of a blob with `content`. */
function blobId(content: string): string {
  return createHash('sha1')
    .update(`blob ${Buffer.byteLength(content)}\0${content}`)
    .digest('hex');
}

describe('lib/handoff/commit', () => {
  let dir: string;
  let repo: string;
  let head: string;
  before(() => {
    dir = tempDir();
    repo = join(dir, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(join(repo, 'file.txt'), 'content\n');
    git(repo, 'add', 'file.txt');
    head = commitIn(repo, 'first');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a 10-hex prefix of a commit: one match, type commit', async () => {
    assert.deepEqual(await commitLookupIn(repo)(head.slice(0, 10)), { matches: 1, type: 'commit' });
  });

  it('a prefix of a tree or a blob: one match, with that type', async () => {
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}');
    const blob = git(repo, 'rev-parse', 'HEAD:file.txt');
    assert.deepEqual(await commitLookupIn(repo)(tree.slice(0, 10)), { matches: 1, type: 'tree' });
    assert.deepEqual(await commitLookupIn(repo)(blob.slice(0, 10)), { matches: 1, type: 'blob' });
  });

  it('resolves in the given directory: a linked worktree sees the commit, another repository does not', async () => {
    const worktree = join(dir, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', worktree);
    const side = commitIn(worktree, 'side work');
    assert.deepEqual(await commitLookupIn(worktree)(side.slice(0, 10)), {
      matches: 1,
      type: 'commit',
    });
    const other = join(dir, 'other');
    fs.mkdirSync(other);
    git(other, 'init', '-q');
    assert.deepEqual(await commitLookupIn(other)(side.slice(0, 10)), { matches: 0 });
  });

  it('no match gives 0, also outside a repository and in a worktree that does not exist', async () => {
    assert.deepEqual(await commitLookupIn(repo)('0000000000'), { matches: 0 });
    const plain = join(dir, 'plain');
    fs.mkdirSync(plain, { recursive: true });
    assert.deepEqual(await commitLookupIn(plain)(head.slice(0, 10)), { matches: 0 });
    assert.deepEqual(await commitLookupIn(join(dir, 'missing'))(head.slice(0, 10)), { matches: 0 });
  });

  it('an ambiguous prefix gives the number of objects it matches', async () => {
    const empty = join(dir, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    // Two blobs whose ids share their first 4 hex digits (git's shortest allowed prefix).
    const seen = new Map<string, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const content = `blob ${i}\n`;
      const prefix = blobId(content).slice(0, 4);
      const other = seen.get(prefix);
      if (other !== undefined) pair = [other, content];
      else seen.set(prefix, content);
    }
    fs.writeFileSync(join(empty, 'a'), pair[0]);
    fs.writeFileSync(join(empty, 'b'), pair[1]);
    const ids = git(empty, 'hash-object', '-w', 'a', 'b').split('\n');
    assert.deepEqual(ids, [blobId(pair[0]), blobId(pair[1])]);
    assert.deepEqual(await commitLookupIn(empty)(ids[0]!.slice(0, 4)), { matches: 2 });
    assert.deepEqual(await commitLookupIn(empty)(ids[0]!.slice(0, 10)), {
      matches: 1,
      type: 'blob',
    });
  });
});
