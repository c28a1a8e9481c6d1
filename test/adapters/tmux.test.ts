// The tmux adapter against a real tmux server on a private socket in a temp dir. Panes run
// `cat` (or `cat -n`): the terminal echoes what is typed, and cat prints the line again
// (numbered with -n) only after an Enter, so the screen shows exactly which keys arrived.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux, TmuxError } from '../../lib/adapters/tmux.js';
import { waitFor } from '../support/daemon.js';
import { tempDir } from '../support/project.js';

/** True while the process runs (a zombie waiting to be reaped counts as ended). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

describe('lib/adapters/tmux', function () {
  this.timeout(20_000);
  let dir: string;
  let tmux: Tmux;
  // These panes run given commands, never a login shell's rc files; bash as the server's
  // shell runs a pane's `cat` in place, so the pane shows cat as its current command
  // (test/support/testEnv.ts gives the other tests' panes /bin/sh).
  const shell = process.env.SHELL;
  before(() => {
    process.env.SHELL = '/bin/bash';
  });
  after(() => {
    process.env.SHELL = shell;
  });
  beforeEach(() => {
    dir = tempDir('baton-tmux-');
    tmux = new Tmux(join(dir, 'tmux.sock'));
  });
  afterEach(async () => {
    await tmux.killServer();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const catSession = (command = ['cat']) =>
    tmux.newSession({ name: 'work', window: 'main', cwd: dir, command });
  const screen = (pane: string) => tmux.capturePane(pane);
  const count = (text: string, part: string) => text.split(part).length - 1;

  it('newSession and newWindow start panes and return their distinct pane ids', async () => {
    const first = await catSession();
    const second = await tmux.newWindow('work', { name: 'side', cwd: dir, command: ['cat'] });
    assert.match(first, /^%\d+$/);
    assert.match(second, /^%\d+$/);
    assert.notEqual(first, second);
    assert.equal(await tmux.display(first, '#{session_name}:#{window_name}'), 'work:main');
    assert.equal(await tmux.display(second, '#{session_name}:#{window_name}'), 'work:side');
  });

  it('newSession applies cwd, env and the size; newWindow applies cwd and env', async () => {
    const sub = join(dir, 'sub dir');
    fs.mkdirSync(sub);
    const show = ['sh', '-c', 'printf "cwd=%s foo=%s\\n" "$(pwd)" "$FOO"; exec cat'];
    const pane = await tmux.newSession({
      name: 'work',
      window: 'main',
      cwd: sub,
      env: { FOO: 'bar baz' },
      command: show,
      width: 90,
      height: 25,
    });
    const win = await tmux.newWindow('work', {
      name: 'w2',
      cwd: dir,
      env: { FOO: '$HOME;x' },
      command: show,
    });
    await waitFor('the session pane output', async () =>
      (await screen(pane)).includes(`cwd=${sub} foo=bar baz\n`),
    );
    await waitFor('the window pane output', async () =>
      (await screen(win)).includes(`cwd=${dir} foo=$HOME;x\n`),
    );
    assert.equal(await tmux.display(pane, '#{window_width}x#{window_height}'), '90x25');
  });

  it('sendLiteral types key names, shell syntax and quotes verbatim, without pressing Enter', async () => {
    const pane = await catSession();
    const text = `Enter C-c Escape $HOME \`id\` "dq" 'sq' a;b \\n {x} #{pane_id} ~ *`;
    await tmux.sendLiteral(pane, text);
    await tmux.sendLiteral(pane, '|end');
    await waitFor('the typed text', async () => (await screen(pane)).includes(`${text}|end`));
    assert.equal(
      count(await screen(pane), text),
      1,
      'echoed once by the terminal: no Enter, so cat has not printed it',
    );
    await tmux.sendEnter(pane);
    await waitFor(
      'cat to print the line',
      async () => count(await screen(pane), `${text}|end`) === 2,
    );
  });

  it('sendLiteral types a trailing ";" (not taken as a tmux command separator)', async () => {
    const pane = await catSession();
    await tmux.sendLiteral(pane, 'echo a;');
    await tmux.sendLiteral(pane, '|end');
    await waitFor('the typed text', async () => (await screen(pane)).includes('|end'));
    assert.match(await screen(pane), /^echo a;\|end$/m);
  });

  it('sendLiteral types text that starts with "-" (not parsed as a send-keys flag)', async () => {
    const pane = await catSession();
    await tmux.sendLiteral(pane, '-n x');
    await tmux.sendLiteral(pane, '|end');
    await waitFor('the typed text', async () => (await screen(pane)).includes('|end'));
    assert.match(await screen(pane), /^-n x\|end$/m);
  });

  it('sendEnter presses Enter exactly once', async () => {
    const pane = await catSession(['cat', '-n']);
    await tmux.sendLiteral(pane, 'first');
    await tmux.sendEnter(pane);
    await waitFor('line 1', async () => /^\s*1\s+first$/m.test(await screen(pane)));
    await tmux.sendLiteral(pane, 'second');
    await tmux.sendEnter(pane);
    await waitFor('line 2', async () => /^\s*\d+\s+second$/m.test(await screen(pane)));
    assert.match(
      await screen(pane),
      /^\s*2\s+second$/m,
      'a second Enter would have made an empty line 2',
    );
  });

  it('capturePane returns the visible text with wrapped lines joined', async () => {
    const pane = await tmux.newSession({
      name: 'work',
      window: 'main',
      cwd: dir,
      command: ['cat'],
      width: 40,
      height: 20,
    });
    const long = Array.from({ length: 10 }, (_, i) => `word${i}-abcdefgh`).join('_');
    assert.ok(long.length > 100);
    await tmux.sendLiteral(pane, long);
    await waitFor('the long line', async () => (await screen(pane)).includes(long));
    assert.equal((await screen(pane)).split('\n').filter((l) => l.includes('word')).length, 1);
  });

  it('listPanes reports id, session, window, command, pid and dead, for the server or one session', async () => {
    const first = await catSession();
    await tmux.run(['set-option', '-g', 'remain-on-exit', 'on']);
    const gone = await tmux.newWindow('work', {
      name: 'gone',
      cwd: dir,
      command: ['sh', '-c', 'exit 0'],
    });
    const other = await tmux.newSession({ name: 'other', window: 'o', cwd: dir, command: ['cat'] });
    await waitFor('cat running and the exited pane dead', async () => {
      const panes = await tmux.listPanes();
      return (
        panes.find((p) => p.id === first)?.command === 'cat' &&
        panes.find((p) => p.id === gone)?.dead === true
      );
    });
    const all = await tmux.listPanes();
    assert.deepEqual(all.map((p) => p.id).sort(), [first, gone, other].sort());
    const cat = all.find((p) => p.id === first)!;
    assert.deepEqual(
      { ...cat, pid: 0 },
      { id: first, session: 'work', window: 'main', command: 'cat', pid: 0, dead: false },
    );
    assert.ok(Number.isInteger(cat.pid) && cat.pid > 0 && alive(cat.pid));
    assert.equal(all.find((p) => p.id === other)!.session, 'other');
    assert.deepEqual((await tmux.listPanes('work')).map((p) => p.id).sort(), [first, gone].sort());
  });

  it('display formats a message for a target without the trailing newline', async () => {
    const pane = await catSession();
    assert.equal(await tmux.display(pane, '#{pane_id} #{session_name}'), `${pane} work`);
    assert.equal(
      await tmux.display('work:main', '#{pane_current_command}|'),
      `${await tmux.display(pane, '#{pane_current_command}')}|`,
    );
  });

  it('hasSession: false without a server, true for the exact name, false for a prefix or another name', async () => {
    assert.equal(await tmux.hasSession('work'), false);
    await catSession();
    assert.equal(await tmux.hasSession('work'), true);
    assert.equal(await tmux.hasSession('wor'), false, 'no prefix matching');
    assert.equal(await tmux.hasSession('other'), false);
  });

  it('killServer stops the server and its panes, returns once they are gone, and is idempotent', async () => {
    await tmux.killServer();
    const pane = await catSession();
    const [info] = await tmux.listPanes();
    assert.equal(info!.id, pane);
    const server = Number(await tmux.run(['display-message', '-p', '#{pid}']));
    assert.equal(await tmux.killServer(), true);
    assert.equal(alive(server), false, 'the server is gone when killServer returns');
    assert.equal(alive(info!.pid), false, "the pane's process is gone when killServer returns");
    assert.equal(await tmux.hasSession('work'), false);
    assert.equal(await tmux.killServer(), false);
  });

  it("a bad target rejects with a TmuxError naming the command and tmux's message", async () => {
    await catSession();
    const err = await tmux.sendLiteral('%999', 'x').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof TmuxError, String(err));
    assert.deepEqual(err.args.slice(0, 3), ['send-keys', '-t', '%999']);
    assert.equal(err.exitCode, 1);
    assert.match(err.stderr, /can't find pane/);
    assert.match(err.message, /^tmux send-keys -t %999 .*: can't find pane: %999$/);
    await assert.rejects(tmux.capturePane('nosuch:'), TmuxError);
    await assert.rejects(tmux.newWindow('nosuch', { name: 'w', cwd: dir }), TmuxError);
    await assert.rejects(tmux.run(['no-such-command']), TmuxError);
  });
});
