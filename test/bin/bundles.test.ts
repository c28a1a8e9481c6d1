// The built bundles (scripts/build.mjs): each bin one CommonJS file; what an agent or the
// controller calls repeatedly holds none of the heavy packages, which are bundles of their
// own required only on the paths that use them (issue 22: start-up close to Node's own).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { handoffFileName, handoffId, tsidOf } from '../../lib/queue/names.js';
import { isoOf } from '../../lib/fsx/timestamps.js';
import { bundlesLoadedBy } from '../support/bundleProbe.js';
import { leaseFor, makeRunRepo, startRun } from '../support/runs.js';
import {
  BIN_DIR,
  makeProject,
  noteDraft,
  placeItem,
  writeDraft,
  type Project,
} from '../support/project.js';

const inputs = () =>
  JSON.parse(fs.readFileSync(join(BIN_DIR, 'bundles.json'), 'utf8')) as Record<string, string[]>;

const HEAVY = ['yargs', 'js-yaml', 'gray-matter', '@nats-io'];

describe('the built bundles (built bins)', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());

  it('the agent commands, the hooks, baton run and a reviewer’s verdict hold no yargs, js-yaml, gray-matter or NATS client; each lives in a bundle of its own', () => {
    const held = inputs();
    const heavyIn = (bundle: string) =>
      HEAVY.filter((pkg) => held[bundle]!.some((i) => i.includes(`node_modules/${pkg}/`)));
    const agentFacing = [
      'ready_for_next.js',
      'baton-agent.js',
      'swarm_handoff.js',
      'done_with_current.js',
      'hook-stop.js',
      'hook-session-start.js',
      'hook-prompt-submit.js',
      'baton.js',
      'baton-run.js',
      'baton-review-verdict.js',
    ];
    for (const bundle of agentFacing) assert.deepEqual(heavyIn(bundle), [], bundle);
    assert.deepEqual(heavyIn('handoffd.js'), ['yargs'], 'the daemon starts once: yargs is fine');
    assert.deepEqual(heavyIn('baton-yaml.js'), ['js-yaml']);
    assert.ok(heavyIn('baton-front-matter.js').includes('gray-matter'));
    assert.deepEqual(heavyIn('baton-bridge.js'), ['@nats-io']);
    // Every bundle a bundle requires beside it exists.
    for (const bundle of Object.keys(held)) {
      const text = fs.readFileSync(join(BIN_DIR, bundle), 'utf8');
      for (const [, sibling] of text.matchAll(/require\("\.\/([^"]+)"\)/g))
        assert.ok(held[sibling!], `${bundle} requires ${sibling}, which the build made`);
    }
  });

  it('ready_for_next loads only its bin and the agent commands’ bundle; a header that needs YAML brings js-yaml’s', () => {
    const empty = bundlesLoadedBy('ready_for_next', [], { cwd: p.root, role: 'reviewer' });
    assert.equal(empty.result.stdout, 'NO_TASK\n');
    assert.deepEqual(empty.bundles, ['ready_for_next.js', 'baton-agent.js']);
    // Of Node's own modules only node:vm, which compiles the bundle with its code cache: not
    // node:module (and Node's ES module loader with it), node:os or the streams.
    assert.deepEqual(empty.builtins, ['vm']);
    // A quoted header value is not a plain `key: value` line: js-yaml reads it.
    const now = new Date();
    const id = handoffId(tsidOf(now), 1, 'coder');
    const headers = `id: ${id}\nfrom: coder\nto: reviewer\npriority: 50\ntype: note\n`;
    fs.writeFileSync(
      join(p.box('reviewer').inboxNew, handoffFileName('50', id, ['reviewer'])),
      `---\n${headers}message: 'a quoted: message'\ncreated_at: ${isoOf(now)}\n---\nbody\n`,
    );
    const claimed = bundlesLoadedBy('ready_for_next', [], { cwd: p.root, role: 'reviewer' });
    assert.equal(claimed.result.code, 0, claimed.result.stderr);
    assert.match(claimed.result.stdout, /^TASK: .*\nFROM: coder\n/);
    assert.deepEqual(claimed.bundles, ['ready_for_next.js', 'baton-agent.js', 'baton-yaml.js']);
    // A package's bundle beside it is loaded as the agent commands' is, with the code cache:
    // node:module (and Node's module loader) stays unloaded.
    assert.deepEqual(claimed.compiled, ['baton-agent.js', 'baton-yaml.js']);
    assert.deepEqual(claimed.builtins, ['vm']);
  });

  it('a claim, a completion and a send load no module of Node’s own but node:vm, nor the time zone data', async () => {
    const agent = (bin: string, args: string[] = [], role = 'reviewer') =>
      bundlesLoadedBy(bin, args, { cwd: p.root, role });
    await placeItem(p.box('reviewer').inboxNew, {});
    for (const [bin, args] of [
      ['ready_for_next', []],
      ['done_with_current', []],
      ['swarm_handoff', [writeDraft(p.root, noteDraft('coder'))]],
    ] as const) {
      const { result, builtins, toISOStringCalls } = agent(bin, [...args]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(builtins, ['vm'], bin);
      // Their timestamps are built from UTC fields: no time zone data is loaded.
      assert.equal(toISOStringCalls, 0, bin);
    }
  });

  it('baton’s command line (yargs) guesses no version from a package.json and loads no node:assert', () => {
    const listed = bundlesLoadedBy('baton', ['review', 'list'], { cwd: p.root, role: 'cto' });
    assert.equal(listed.result.code, 0, listed.result.stderr);
    assert.deepEqual(listed.bundles, ['baton.js', 'baton-cli.js']);
    // yargs' factory looked for package.json in every folder above this one, then failed an
    // assertion; its own argument checks pass without the builtin.
    const asserts = listed.builtins.filter(
      (m) => m === 'assert' || m.startsWith('internal/assert'),
    );
    assert.deepEqual(asserts, []);
    const version = bundlesLoadedBy('baton', ['--version'], { cwd: p.root });
    assert.equal(
      version.result.stdout,
      `${JSON.parse(fs.readFileSync('package.json', 'utf8')).version}\n`,
    );
  });

  it('baton run status and a lease heartbeat look up no user (node:os is not loaded); an owner’s pause does', async () => {
    const root = makeRunRepo();
    try {
      const runId = await startRun(root);
      const token = await leaseFor(root, runId);
      const run = (args: string[]) => bundlesLoadedBy('baton', ['run', ...args], { cwd: root });
      for (const args of [
        ['status', runId],
        ['lease', runId, 'heartbeat', '--lease', token],
      ]) {
        const { result, builtins } = run(args);
        assert.equal(result.code, 0, result.stderr);
        assert.ok(!builtins.includes('os'), `${args[0]}: ${builtins.join(' ')}`);
      }
      const paused = run(['pause', runId]);
      assert.equal(paused.result.code, 0, paused.result.stderr);
      assert.ok(paused.builtins.includes('os'), 'the owner is looked up for an owner action');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
