// lib/review/store: bookbags validated against the schema on every read and before every
// write (unknown properties refused at every level), invariants checked on read, symlinks
// refused, atomic writes with mode 0600, and updateBookbag as a read-modify-write under the
// bead's lock that gives up with LockBusy and writes nothing while a live process holds it.
import { schemaProblems } from '../../../lib/fsx/records.js';
import { validateBookbagSchema } from '../../../lib/review/bookbag/bookbagValidator.generated.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { acquireLock, LockBusy } from '../../../lib/fsx/lock.js';
import { BookbagProblem } from '../../../lib/review/bookbag/reviewErrors.js';
import {
  bookbagPathOf,
  loadBookbag,
  readBookbag,
  updateBookbag,
  writeBookbag,
} from '../../../lib/review/bookbag/store.js';
import { withAttempt } from '../../../lib/review/bookbag/transitions.js';
import {
  at,
  bareRootForEachTest,
  BEAD,
  bookbagIn,
  finding,
  writeRawBookbag,
} from '../../support/bookbags.js';
import { holdLockElsewhere } from '../../support/heldLock.js';

/** Matches a BookbagProblem of `kind` whose problems match `pattern`. */
function problem(kind: BookbagProblem['kind'], pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof BookbagProblem, String(err));
    assert.equal(err.kind, kind);
    assert.match(err.problems.join('\n'), pattern);
    return true;
  };
}

describe('lib/review/bookbag/store', () => {
  const root = bareRootForEachTest();
  let path: string;
  beforeEach(() => {
    path = bookbagPathOf(reviewPathsOf(root(), {}), BEAD);
  });

  describe('schemaProblemsOf', () => {
    it('finds nothing wrong with a bookbag from the transitions', () => {
      assert.deepEqual(
        schemaProblems(validateBookbagSchema, bookbagIn('REVIEWED', { cto: [finding('HIGH')] })),
        [],
      );
    });

    it('refuses an unknown property at the top level and inside a finding, naming it', () => {
      assert.deepEqual(
        schemaProblems(validateBookbagSchema, { ...bookbagIn('WRITTEN'), score: 3 }),
        ["/ must NOT have additional properties 'score'"],
      );
      const bag = bookbagIn('CTO_REVIEWED', { cto: [finding('LOW')] });
      assert.deepEqual(
        schemaProblems(validateBookbagSchema, {
          ...bag,
          cto_findings: [{ ...finding('LOW'), lens: 'cto' }],
        }),
        ["/cto_findings/0 must NOT have additional properties 'lens'"],
      );
      assert.deepEqual(
        schemaProblems(validateBookbagSchema, {
          ...bag,
          findings: [{ ...bag.findings[0], note: 'x' }],
        }),
        ["/findings/0 must NOT have additional properties 'note'"],
      );
    });

    it('refuses a missing field and a value out of its vocabulary', () => {
      const { history: _history, ...withoutHistory } = bookbagIn('WRITTEN');
      assert.match(
        schemaProblems(validateBookbagSchema, withoutHistory).join('\n'),
        /must have required property 'history'/,
      );
      assert.match(
        schemaProblems(validateBookbagSchema, { ...bookbagIn('WRITTEN'), state: 'DONE' }).join(
          '\n',
        ),
        /^\/state must be equal to one of the allowed values/,
      );
      assert.notDeepEqual(
        schemaProblems(validateBookbagSchema, { ...bookbagIn('REVIEWED'), cto_score: 101 }),
        [],
      );
    });
  });

  it('bookbagPathOf is <bookbags>/<bead>.json and refuses an unsafe bead', () => {
    assert.equal(path, join(root(), '.swarmforge', 'reviews', 'bookbag', `${BEAD}.json`));
    assert.throws(
      () => bookbagPathOf(reviewPathsOf(root(), {}), '../x'),
      (err: unknown) => err instanceof CommandFailure && err.kind === 'invalid',
    );
  });

  describe('reading', () => {
    it('reads back what was written', () => {
      const bag = bookbagIn('REVIEWED', { coo: [finding('MEDIUM')] });
      writeBookbag(path, bag);
      assert.deepEqual(readBookbag(path), bag);
      assert.deepEqual(loadBookbag(path), { bag, problems: [] });
    });

    it('reports a missing bookbag as missing', () => {
      assert.throws(() => readBookbag(path), problem('missing', /no such bookbag/));
    });

    it('refuses a file that is not JSON', () => {
      writeRawBookbag(root(), BEAD, '{"bead": ');
      assert.throws(() => readBookbag(path), problem('invalid', /^not JSON: /));
    });

    it('refuses unknown properties at the top level and inside a finding', () => {
      writeRawBookbag(root(), BEAD, { ...bookbagIn('WRITTEN'), reviewer_notes: 'x' });
      assert.throws(
        () => loadBookbag(path),
        problem('invalid', /additional properties 'reviewer_notes'/),
      );
      const bag = bookbagIn('COO_REVIEWED', { coo: [finding('LOW')] });
      writeRawBookbag(root(), BEAD, { ...bag, coo_findings: [{ ...finding('LOW'), weight: 3 }] });
      assert.throws(
        () => loadBookbag(path),
        problem('invalid', /^\/coo_findings\/0 must NOT have additional properties 'weight'$/),
      );
    });

    it('loads an inconsistent bookbag with its problems; readBookbag refuses it as inconsistent', () => {
      writeRawBookbag(root(), BEAD, { ...bookbagIn('REVIEWED'), state: 'CTO_REVIEWED' });
      assert.deepEqual(loadBookbag(path).problems, [
        'state is CTO_REVIEWED but the verdicts say REVIEWED',
      ]);
      assert.throws(
        () => readBookbag(path),
        problem('inconsistent', /^state is CTO_REVIEWED but the verdicts say REVIEWED$/),
      );
    });

    it('refuses a symlinked bookbag instead of following it', () => {
      const elsewhere = join(root(), 'elsewhere.json');
      fs.writeFileSync(elsewhere, JSON.stringify(bookbagIn('WRITTEN')));
      fs.mkdirSync(join(path, '..'), { recursive: true });
      fs.symlinkSync(elsewhere, path);
      assert.throws(() => readBookbag(path), problem('invalid', /is a symlink/));
    });
  });

  describe('writing', () => {
    it('writes JSON atomically with mode 0600 in a 0700 folder, leaving no temp file', () => {
      writeBookbag(path, bookbagIn('WRITTEN'));
      assert.equal(fs.statSync(path).mode & 0o777, 0o600);
      assert.equal(fs.statSync(join(path, '..')).mode & 0o777, 0o700);
      assert.deepEqual(fs.readdirSync(join(path, '..')), [`${BEAD}.json`]);
      assert.equal(
        fs.readFileSync(path, 'utf8'),
        `${JSON.stringify(bookbagIn('WRITTEN'), null, 2)}\n`,
      );
    });

    it('replaces a bookbag of another mode with one of mode 0600', () => {
      writeRawBookbag(root(), BEAD, bookbagIn('WRITTEN'));
      fs.chmodSync(path, 0o644);
      const inode = fs.statSync(path).ino;
      writeBookbag(path, bookbagIn('CTO_REVIEWED'));
      assert.equal(fs.statSync(path).mode & 0o777, 0o600);
      assert.notEqual(fs.statSync(path).ino, inode, 'replaced by a rename, not rewritten in place');
      assert.equal(readBookbag(path).state, 'CTO_REVIEWED');
    });

    it('refuses a schema-invalid or inconsistent bookbag and leaves the file as it was', () => {
      writeBookbag(path, bookbagIn('WRITTEN'));
      const before = fs.readFileSync(path);
      assert.throws(
        () => writeBookbag(path, { ...bookbagIn('WRITTEN'), extra: 1 } as never),
        /refusing to write an invalid bookbag .*additional properties 'extra'/,
      );
      assert.throws(
        () =>
          writeBookbag(path, { ...bookbagIn('REVIEWED'), accepted: false, cto_verdict: 'FAIL' }),
        /refusing to write an invalid bookbag .*cto_verdict is FAIL/,
      );
      assert.deepEqual(fs.readFileSync(path), before);
      assert.deepEqual(fs.readdirSync(join(path, '..')), [`${BEAD}.json`]);
    });

    it('refuses to write through a symlink, leaving the link and its target alone', () => {
      const elsewhere = join(root(), 'elsewhere.json');
      fs.writeFileSync(elsewhere, 'target\n');
      fs.mkdirSync(join(path, '..'), { recursive: true });
      fs.symlinkSync(elsewhere, path);
      assert.throws(
        () => writeBookbag(path, bookbagIn('WRITTEN')),
        problem('invalid', /is a symlink/),
      );
      assert.equal(fs.lstatSync(path).isSymbolicLink(), true);
      assert.equal(fs.readFileSync(elsewhere, 'utf8'), 'target\n');
    });
  });

  describe('updateBookbag', () => {
    const lockDir = () => join(reviewPathsOf(root(), {}).locks, `${BEAD}.lock`);
    const attempt = (bag: Parameters<typeof withAttempt>[0]) =>
      withAttempt(bag, 'cto', 'teacher-cto', 'run', at(9));

    it('writes and returns the changed bookbag, then releases the lock', async () => {
      writeBookbag(path, bookbagIn('WRITTEN'));
      const written = await updateBookbag(root(), BEAD, { env: {} }, attempt);
      assert.equal(written.attempts.cto, 1);
      assert.deepEqual(readBookbag(path), written);
      acquireLock(lockDir(), 0)();
    });

    it('writes nothing when the change throws, and still releases the lock', async () => {
      writeBookbag(path, bookbagIn('WRITTEN'));
      const before = fs.readFileSync(path);
      await assert.rejects(
        updateBookbag(root(), BEAD, { env: {} }, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.deepEqual(fs.readFileSync(path), before);
      acquireLock(lockDir(), 0)();
    });

    it('refuses an inconsistent bookbag without calling the change', async () => {
      writeRawBookbag(root(), BEAD, { ...bookbagIn('WRITTEN'), accepted: true });
      const before = fs.readFileSync(path);
      let called = false;
      await assert.rejects(
        updateBookbag(root(), BEAD, { env: {} }, (bag) => {
          called = true;
          return bag;
        }),
        problem('inconsistent', /accepted is true/),
      );
      assert.deepEqual([called, fs.readFileSync(path)], [false, before]);
    });

    it('gives up with LockBusy after the bounded wait while a live process holds the lock, writing nothing', async () => {
      writeBookbag(path, bookbagIn('WRITTEN'));
      const before = fs.readFileSync(path);
      const holder = await holdLockElsewhere(lockDir());
      try {
        let called = false;
        const started = Date.now();
        await assert.rejects(
          updateBookbag(root(), BEAD, { env: {}, lockTimeoutMs: 300 }, (bag) => {
            called = true;
            return attempt(bag);
          }),
          (err: unknown) =>
            err instanceof LockBusy && err.message.includes(`held by pid ${holder.pid}`),
        );
        assert.ok(Date.now() - started >= 300, 'waited the bound first');
        assert.deepEqual([called, fs.readFileSync(path)], [false, before]);
      } finally {
        await holder.stop();
      }
      assert.equal(
        (await updateBookbag(root(), BEAD, { env: {}, lockTimeoutMs: 5000 }, attempt)).attempts.cto,
        1,
        "the dead holder's lock is taken over",
      );
    });
  });
});
