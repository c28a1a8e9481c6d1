import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux, TmuxError } from '../../lib/adapters/tmux.js';
import { wake, WAKE_TEXT, wakeTargetOf } from '../../lib/daemon/waker.js';
import { panesFileOf, socketFileOf } from '../../lib/project/layout.js';
import { waitFor } from '../support/daemon.js';
import { tempDir } from '../support/project.js';

describe('lib/daemon/waker', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
    fs.mkdirSync(join(root, '.swarmforge'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("the wake-up text is the protocol's and names no file", () => {
    assert.equal(WAKE_TEXT, 'You have new handoff mail. If idle, run ready_for_next.sh.');
  });

  describe('wakeTargetOf', () => {
    it('fails with "no tmux socket file" when the socket file is missing', () => {
      assert.throws(() => wakeTargetOf(root, 'coder', 'sess'), { message: 'no tmux socket file' });
    });

    it('fails with "empty tmux socket file" when it holds only whitespace', () => {
      fs.writeFileSync(socketFileOf(root), ' \n');
      assert.throws(() => wakeTargetOf(root, 'coder', 'sess'), {
        message: 'empty tmux socket file',
      });
    });

    it("targets the role's pane from panes.tsv, else its session (`<session>:`)", () => {
      fs.writeFileSync(socketFileOf(root), '/tmp/x.sock\n');
      assert.deepEqual(wakeTargetOf(root, 'coder', 'sess'), {
        socket: '/tmp/x.sock',
        target: 'sess:',
      });
      fs.writeFileSync(panesFileOf(root), 'coder\t%3\n');
      assert.deepEqual(wakeTargetOf(root, 'coder', 'sess'), {
        socket: '/tmp/x.sock',
        target: '%3',
      });
      assert.deepEqual(wakeTargetOf(root, 'reviewer', 'sess'), {
        socket: '/tmp/x.sock',
        target: 'sess:',
      });
    });
  });

  describe('wake (real tmux server on a private socket)', function () {
    this.timeout(20_000);
    let tmux: Tmux;
    beforeEach(() => {
      tmux = new Tmux(join(root, 'tmux.sock'));
    });
    afterEach(() => tmux.killServer());

    const numbered = async (pane: string) =>
      (await tmux.capturePane(pane))
        .split('\n')
        .filter((l) => /^\s*\d+\s/.test(l))
        .map((l) => l.trim().replace(/\s+/, ' '));

    it('types the wake-up text literally, then one Enter, into the pane', async () => {
      const pane = await tmux.newSession({
        name: 'sess',
        window: 'coder',
        cwd: root,
        command: ['cat', '-n'],
      });
      await wake({ socket: tmux.socket, target: pane });
      await waitFor('the first wake-up line', async () => (await numbered(pane)).length === 1);
      await wake({ socket: tmux.socket, target: pane });
      await waitFor('the second wake-up line', async () => (await numbered(pane)).length === 2);
      assert.deepEqual(
        await numbered(pane),
        [`1 ${WAKE_TEXT}`, `2 ${WAKE_TEXT}`],
        'one Enter per wake-up: no empty lines between',
      );
    });

    it('reaches a session target (`<session>:`) and rejects with a TmuxError for a missing pane', async () => {
      const pane = await tmux.newSession({
        name: 'sess',
        window: 'coder',
        cwd: root,
        command: ['cat', '-n'],
      });
      await wake({ socket: tmux.socket, target: 'sess:' });
      await waitFor('the wake-up line', async () => (await numbered(pane)).length === 1);
      await assert.rejects(wake({ socket: tmux.socket, target: '%999' }), TmuxError);
      await assert.rejects(
        wake({ socket: join(root, 'no-server.sock'), target: 'sess:' }),
        TmuxError,
      );
    });
  });
});
