// Black-box: `baton up` waits for each agent to be ready before handoffd may wake it
// (docs/runtime.md §12.1), with the interactive stand-in agent (test/support/
// interactiveAgent.mjs) running Baton's hooks as Claude Code does, in a real tmux server:
// a slow agent gets no wake-up before it is ready, a never-ready one is reported not ready
// after --ready-timeout while the rest of the swarm is woken, a first prompt whose Enter
// was eaten gets exactly one Enter in its own pane, and an agent typing gets none; an up
// SIGKILLed while it waits leaves no role held past the hold's own time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { readPanes, recordedSocketOf } from '../../lib/project/tmuxRecord.js';
import { waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { BIN_DIR, makeRepo, noteDraft, runBin, tempDir, writeDraft } from '../support/project.js';

/** One line of a stand-in's events file. */
interface StandInEvent {
  event: string;
  at: number;
  text?: string;
  swallowed?: boolean;
  first?: boolean;
}

describe('baton up waits for each agent to be ready (built bin, interactive stand-ins in tmux)', function () {
  this.timeout(120_000);
  let root: string;
  let scratch: string;
  let env: Record<string, string>;
  const baton = (args: string[]) => runBin('baton', args, { cwd: root, env });
  const events = (role: string): StandInEvent[] => {
    const file = join(scratch, 'records', `claude.${role}.events`);
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as StandInEvent);
  };
  const submitted = (role: string, text: string) =>
    events(role).find((e) => e.event === 'submitted' && e.text === text);

  function swarmOf(conf: string, plan: Record<string, object>): void {
    root = makeRepo(conf);
    scratch = tempDir();
    const bin = join(scratch, 'bin');
    fs.mkdirSync(bin);
    fs.mkdirSync(join(scratch, 'records'));
    const script = resolve('test/support/interactiveAgent.mjs');
    fs.chmodSync(script, 0o755);
    fs.symlinkSync(script, join(bin, 'claude'));
    env = {
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      BATON_STANDIN_DIR: join(scratch, 'records'),
      BATON_INTERACTIVE_PLAN: JSON.stringify(plan),
    };
  }
  afterEach(() => {
    tearDownSwarm(root);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('a slow agent gets no wake-up before it is ready; a never-ready one is reported after --ready-timeout and the rest is woken', async () => {
    swarmOf('window slow claude master\nwindow stuck claude master\nwindow fast claude master\n', {
      slow: { startMs: 4_000 },
      stuck: { neverReady: true },
    });
    assert.equal(baton(['init']).code, 0);
    // Mail for slow and fast waits in an outbox: handoffd's first pass delivers it and would
    // wake both at once, long before slow has drawn its input line.
    const draft = writeDraft(scratch, noteDraft('slow, fast', 'start here'));
    const sent = runBin('swarm_handoff', [draft], { cwd: root, role: 'stuck', env });
    assert.equal(sent.code, 0, sent.stderr);
    const up = baton(['up', '--ready-timeout', '6', '--json']);
    assert.equal(up.code, 0, up.stderr);
    const readiness = (
      JSON.parse(up.stdout) as {
        readiness: { role: string; ready: boolean; sign: string | null; reason: string | null }[];
      }
    ).readiness.map((r) => [r.role, r.ready, r.sign, r.reason]);
    assert.deepEqual(readiness, [
      ['slow', true, 'hook', null],
      ['stuck', false, null, 'its hooks said nothing and its pane never went quiet'],
      ['fast', true, 'hook', null],
    ]);
    await waitFor('handoffd to wake slow and fast', () =>
      Boolean(submitted('slow', WAKE_TEXT) && submitted('fast', WAKE_TEXT)),
    );
    const slow = events('slow');
    const drawn = slow.find((e) => e.event === 'drawn')!;
    assert.ok(submitted('slow', WAKE_TEXT)!.at > drawn.at, 'woken after it was ready');
    assert.deepEqual(
      slow.filter((e) => e.event === 'discarded'),
      [],
      'nothing was typed while it started',
    );
    assert.equal(fs.existsSync(join(root, '.swarmforge', 'launching', 'slow.json')), false);
    assert.equal(fs.existsSync(join(root, '.swarmforge', 'launching', 'stuck.json')), false);
  });

  it('a first prompt left on the input line gets one Enter in its own pane; an agent typing gets none', async () => {
    swarmOf('window eaten claude master\nwindow busy claude master\n', {
      eaten: { swallowFirstEnter: true },
      busy: { swallowFirstEnter: true, typing: true },
    });
    fs.writeFileSync(join(root, 'swarmforge', 'constitution.prompt'), 'Be brief.\n');
    const up = baton(['up', '--ready-timeout', '30']);
    assert.equal(up.code, 0, up.stderr);
    const lines = up.stdout.split('\n').filter((l) => /^(NOT )?READY: /.test(l));
    assert.match(
      lines[0]!,
      /^READY: eaten \(hook, \d+\.\d s, first prompt submitted with one Enter\)$/,
    );
    assert.match(lines[1]!, /^READY: busy \(hook, \d+\.\d s\)$/);
    assert.equal(lines.length, 2);
    const prompt = fs.readFileSync(join(root, '.swarmforge', 'prompts', 'eaten.md'), 'utf8');
    const enters = (role: string) =>
      events(role).filter((e) => e.event === 'enter' && !e.first).length;
    assert.ok(submitted('eaten', prompt.trimEnd()), 'the prompt was submitted');
    assert.equal(enters('eaten'), 1, 'exactly one Enter');
    assert.equal(enters('busy'), 0, 'an agent typing gets no Enter');
    const tmux = new Tmux(recordedSocketOf(root)!);
    const panes = (await tmux.listPanes()).map((p) => p.id);
    for (const pane of readPanes(root).values()) assert.ok(panes.includes(pane), pane);
    assert.equal(panes.length, 3, 'no new pane: the two roles and the monitor');
  });

  it('an up killed while it waits leaves holds that end at their own time; down removes them', async () => {
    swarmOf('window stuck claude master\n', { stuck: { neverReady: true } });
    const startedAt = Date.now();
    const up = spawn(process.execPath, [join(BIN_DIR, 'baton.js'), 'up', '--ready-timeout', '60'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const hold = join(root, '.swarmforge', 'launching', 'stuck.json');
    await waitFor('the agent to be launched', () =>
      events('stuck').some((e) => e.event === 'started'),
    );
    up.kill('SIGKILL');
    await once(up, 'exit');
    const until = Date.parse(
      (JSON.parse(fs.readFileSync(hold, 'utf8')) as { until: string }).until,
    );
    assert.ok(until > Date.now(), 'the hold outlives the killed up');
    // Its time: the ready timeout, the shells' timeout (15 s) and 10 s to spare after the start.
    assert.ok(until <= startedAt + (60 + 15 + 10) * 1000 + 2_000, new Date(until).toISOString());
    const down = baton(['down']);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(fs.existsSync(hold), false);
  });
});
