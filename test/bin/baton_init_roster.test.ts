// Black-box tests of `baton init` with a roster (swarmforge/nodes.conf, docs/bridge.md §1):
// nodes.tsv written whenever a roster exists, `--node NAME` recorded after it is checked,
// nothing written on any error, and nothing new without a roster.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { makeRepo, runBin } from '../support/project.js';

const CONF =
  'window coder claude master\nwindow reviewer codex review\nwindow QA claude none batch\n';
const NODES =
  '# two machines\nswarm demo\nnats nats://127.0.0.1:4222\nnode laptop coder,reviewer\nnode server QA\n';

describe('baton init with a roster (built bin)', () => {
  let root: string;
  const swarmDir = () => join(root, '.swarmforge');
  const nodesTable = () => join(swarmDir(), 'nodes.tsv');
  const nodeFile = () => join(swarmDir(), 'node');
  const rosterFile = () => join(root, 'swarmforge', 'nodes.conf');
  const init = (
    args: string[] = [],
    env: Record<string, string | undefined> = { BATON_NODE: undefined },
  ) => runBin('baton', ['init', ...args], { cwd: root, env });
  beforeEach(() => {
    root = makeRepo(CONF);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('without nodes.conf nothing changes: no nodes.tsv, no node in the output; --node is refused with one line before anything is written', () => {
    const refused = init(['--node', 'laptop']);
    assert.deepEqual(
      [refused.code, refused.stdout, refused.stderr],
      [1, '', `baton: --node needs a roster, and there is no '${rosterFile()}'\n`],
    );
    assert.equal(fs.existsSync(swarmDir()), false);
    const r = init(['--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(Object.keys(JSON.parse(r.stdout) as object), [
      'root',
      'roles',
      'imported',
      'not_imported',
    ]);
    assert.equal(fs.existsSync(nodesTable()), false);
    assert.doesNotMatch(init().stdout, /NODE/);
  });

  it('with a roster: nodes.tsv (<role>\\t<node>), the nodes in the output, the local node null until --node records it; BATON_NODE wins', () => {
    fs.writeFileSync(rosterFile(), NODES);
    const plain = init();
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(
      plain.stdout,
      /^ROLE: QA batch .*\nNODE: laptop coder,reviewer\nNODE: server QA\n$/m,
    );
    assert.doesNotMatch(plain.stdout, /LOCAL NODE/);
    assert.equal(
      fs.readFileSync(nodesTable(), 'utf8'),
      'coder\tlaptop\nreviewer\tlaptop\nQA\tserver\n',
    );
    assert.equal(fs.existsSync(nodeFile()), false);
    assert.deepEqual(
      fs.readdirSync(swarmDir()).filter((n) => n.endsWith('.tmp')),
      [],
      'published through a temp file, none left',
    );
    const json = (r: ReturnType<typeof init>) =>
      JSON.parse(r.stdout) as { node: string | null; nodes: Record<string, string[]> };
    const before = json(init(['--json']));
    assert.deepEqual(
      [before.node, before.nodes],
      [null, { laptop: ['coder', 'reviewer'], server: ['QA'] }],
    );
    const recorded = init(['--node', 'server', '--json']);
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.equal(json(recorded).node, 'server');
    assert.equal(fs.readFileSync(nodeFile(), 'utf8'), 'server\n');
    assert.match(
      init().stdout,
      /^LOCAL NODE: server$/m,
      'a later plain init shows the recorded node',
    );
    assert.equal(json(init(['--json'], { BATON_NODE: 'laptop' })).node, 'laptop');
  });

  it('--node with a name the roster does not have: exit 1, one line naming the nodes, nothing written', () => {
    fs.writeFileSync(rosterFile(), NODES);
    const r = init(['--node', 'desktop']);
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [1, '', `baton: node 'desktop' is not in '${rosterFile()}' (its nodes: laptop, server)\n`],
    );
    assert.equal(fs.existsSync(swarmDir()), false);
  });

  it('an invalid roster: exit 1, every error (nodes.conf:<line>: <rule>), nothing written, not even with --node', () => {
    fs.writeFileSync(
      rosterFile(),
      'swarm demo\nnats nats://h\nnode laptop coder,reviewer,helper\nnode server QA,coder\nreplicas 2\n',
    );
    for (const args of [[], ['--node', 'laptop']]) {
      const r = init(args);
      assert.deepEqual([r.code, r.stdout], [1, '']);
      assert.equal(
        r.stderr,
        [
          "nodes.conf:2: nats URL 'nats://h' must be nats://host:port or tls://host:port with a port from 1 to 65535",
          'nodes.conf:3: unknown role helper: swarmforge.conf has no window for it',
          'nodes.conf:4: role coder is on two nodes: laptop (line 3) and server',
          "nodes.conf:5: replicas must be 1, 3 or 5, not '2'",
          '',
        ].join('\n'),
      );
      assert.equal(fs.existsSync(swarmDir()), false);
    }
  });

  it('a roster removed later: init removes its nodes.tsv and leaves the node file', () => {
    fs.writeFileSync(rosterFile(), NODES);
    assert.equal(init(['--node', 'laptop']).code, 0);
    fs.rmSync(rosterFile());
    const r = init();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.existsSync(nodesTable()), false);
    assert.equal(fs.readFileSync(nodeFile(), 'utf8'), 'laptop\n');
  });
});
