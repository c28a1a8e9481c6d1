import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import {
  formatNodesTable,
  knownLocalNodeOf,
  localNodeOf,
  parseRoster,
  readRoster,
  rolesOfNode,
  type Roster,
} from '../../lib/handoff/roster.js';
import { tempDir } from '../support/project.js';

const ROLES = ['architect', 'coder', 'reviewer', 'QA'];
const HEAD = 'swarm demo\nnats nats://127.0.0.1:4222\n';
const UNKNOWN_NODE = 'local node unknown: set BATON_NODE or run baton init --node NAME';

describe('lib/handoff/roster', () => {
  let root: string;
  let file: string;
  beforeEach(() => {
    root = tempDir();
    file = join(root, 'swarmforge', 'nodes.conf');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const rosterOf = (text: string, roles = ROLES): Roster => {
    const result = parseRoster(text, file, roles, root);
    assert.ok(result.ok, JSON.stringify(result));
    return result.roster;
  };
  const errorsOf = (text: string, roles = ROLES): string[] => {
    const result = parseRoster(text, file, roles, root);
    assert.equal(result.ok, false, `expected errors for ${JSON.stringify(text)}`);
    return result.ok ? [] : result.errors;
  };
  const failsWith = (lines: string[]) => (err: unknown) => {
    assert.ok(err instanceof CommandFailure, String(err));
    assert.deepEqual([err.kind, err.lines], ['environment', lines]);
    return true;
  };

  describe('parseRoster', () => {
    it('the happy path: swarm, several URLs, credentials resolved against ROOT, nodes and their roles in file order; comments, blank lines, CRLF and any order', () => {
      fs.mkdirSync(join(root, 'secrets'));
      fs.writeFileSync(join(root, 'secrets', 'swarm.creds'), 'SECRET');
      const roster = rosterOf(
        '# the swarm\r\n\r\nnode laptop coder, architect\r\n  swarm   my-swarm-2  \r\n\tnats nats://a.example:4222, tls://10.0.0.2:4443,nats://[::1]:65535\r\ncredentials secrets/swarm.creds\r\n# the server\r\nnode build-1 QA,reviewer\r\n',
      );
      assert.deepEqual(roster, {
        file,
        swarm: 'my-swarm-2',
        urls: ['nats://a.example:4222', 'tls://10.0.0.2:4443', 'nats://[::1]:65535'],
        credentials: join(root, 'secrets', 'swarm.creds'),
        replicas: 1,
        nodes: new Map([
          ['laptop', ['coder', 'architect']],
          ['build-1', ['QA', 'reviewer']],
        ]),
        nodeOfRole: new Map([
          ['coder', 'laptop'],
          ['architect', 'laptop'],
          ['QA', 'build-1'],
          ['reviewer', 'build-1'],
        ]),
      });
      assert.equal(
        formatNodesTable(roster),
        'coder\tlaptop\narchitect\tlaptop\nQA\tbuild-1\nreviewer\tbuild-1\n',
      );
    });

    it('without credentials the roster has none; an absolute credentials path is kept as written', () => {
      const plain = rosterOf(`${HEAD}node a architect,coder,reviewer,QA\n`);
      assert.equal('credentials' in plain, false);
      const creds = join(root, 'abs.creds');
      fs.writeFileSync(creds, '');
      assert.equal(
        rosterOf(`${HEAD}credentials ${creds}\nnode a architect,coder,reviewer,QA\n`).credentials,
        creds,
      );
    });

    it('replicas: 1 without the line; 1, 3 or 5 whatever the number of URLs (the server decides what it can hold)', () => {
      const nodes = 'node a architect,coder,reviewer,QA\n';
      assert.equal(rosterOf(`${HEAD}${nodes}`).replicas, 1);
      for (const count of [1, 3, 5])
        assert.equal(rosterOf(`${HEAD}  replicas   ${count}  \r\n${nodes}`).replicas, count);
      assert.equal(
        rosterOf(`swarm s\nnats nats://h:1,nats://h:2,nats://h:3\nreplicas 5\n${nodes}`).replicas,
        5,
      );
    });

    it('replicas: twice, without a count, two counts, and a count other than 1, 3 or 5; nothing parsed on any error', () => {
      const nodes = 'node a architect,coder,reviewer,QA\n';
      assert.deepEqual(errorsOf(`${HEAD}replicas 3\n${nodes}replicas 1\n`), [
        'nodes.conf:5: replicas is already set on line 3',
      ]);
      assert.deepEqual(errorsOf(`${HEAD}replicas\n${nodes}`), [
        "nodes.conf:3: a replicas line is 'replicas <1|3|5>'",
      ]);
      assert.deepEqual(errorsOf(`${HEAD}replicas 3 5\n${nodes}`), [
        "nodes.conf:3: a replicas line is 'replicas <1|3|5>'",
      ]);
      for (const bad of ['0', '2', '4', '7', '03', '3.0', '-1', 'three'])
        assert.deepEqual(
          errorsOf(`${HEAD}replicas ${bad}\n${nodes}`),
          [`nodes.conf:3: replicas must be 1, 3 or 5, not '${bad}'`],
          bad,
        );
    });

    it('an unknown directive', () => {
      assert.deepEqual(errorsOf(`${HEAD}node a architect,coder,reviewer,QA\nwindow b coder\n`), [
        "nodes.conf:4: unknown directive 'window'; expected 'swarm <name>', 'nats <url>[,<url>...]', 'credentials <path>', 'replicas <1|3|5>' or 'node <node-name> <role>[,<role>...]'",
      ]);
    });

    it('swarm: missing, twice, without a name, with two names, a bad name', () => {
      const nodes = 'node a architect,coder,reviewer,QA\n';
      assert.deepEqual(errorsOf(`nats nats://h:1\n${nodes}# end\n\n`), [
        "nodes.conf:3: no swarm line; add 'swarm <name>'",
      ]);
      assert.deepEqual(errorsOf(`${HEAD}swarm other\n${nodes}`), [
        'nodes.conf:3: swarm is already set on line 1',
      ]);
      assert.deepEqual(errorsOf(`swarm\nnats nats://h:1\n${nodes}`), [
        "nodes.conf:1: a swarm line is 'swarm <name>'",
      ]);
      assert.deepEqual(errorsOf(`swarm a b\nnats nats://h:1\n${nodes}`), [
        "nodes.conf:1: a swarm line is 'swarm <name>'",
      ]);
      for (const bad of ['Demo', '1demo', 'de_mo', '-demo', `d${'x'.repeat(32)}`]) {
        assert.deepEqual(
          errorsOf(`swarm ${bad}\nnats nats://h:1\n${nodes}`),
          [`nodes.conf:1: swarm name '${bad}' must match ^[a-z][a-z0-9-]{0,31}$`],
          bad,
        );
      }
      assert.equal(
        rosterOf(`swarm d${'x'.repeat(31)}\nnats nats://h:1\n${nodes}`).swarm.length,
        32,
      );
    });

    it('nats: missing, twice, empty, and each bad URL (scheme nats or tls, a host, an explicit port 1-65535)', () => {
      const nodes = 'node a architect,coder,reviewer,QA\n';
      assert.deepEqual(errorsOf(`swarm s\n${nodes}`), [
        "nodes.conf:2: no nats line; add 'nats nats://host:port'",
      ]);
      assert.deepEqual(errorsOf(`${HEAD}nats nats://h:2\n${nodes}`), [
        'nodes.conf:3: nats is already set on line 2',
      ]);
      assert.deepEqual(errorsOf(`swarm s\nnats\n${nodes}`), [
        "nodes.conf:2: a nats line is 'nats <url>[,<url>...]'",
      ]);
      const bad = [
        'nats://h',
        'nats://h:0',
        'nats://h:65536',
        'nats://h:04222',
        'http://h:80',
        'h:4222',
        'nats://:4222',
        'nats://u:p@h:4222',
        'nats://h:4222/x',
        'nats://-h:1',
        '',
      ];
      assert.deepEqual(
        errorsOf(`swarm s\nnats tls://ok:1,${bad.join(',')}\n${nodes}`),
        bad.map(
          (u) =>
            `nodes.conf:2: nats URL '${u}' must be nats://host:port or tls://host:port with a port from 1 to 65535`,
        ),
      );
      assert.deepEqual(
        rosterOf(`swarm s\nnats tls://nats-1.example.com:1,nats://192.168.0.1:65535\n${nodes}`)
          .urls,
        ['tls://nats-1.example.com:1', 'nats://192.168.0.1:65535'],
      );
    });

    it('credentials: twice, a missing file, a folder, no path; the file is checked, never read or shown', () => {
      const nodes = 'node a architect,coder,reviewer,QA\n';
      fs.writeFileSync(join(root, 'ok.creds'), 'SECRET-CONTENT');
      fs.chmodSync(join(root, 'ok.creds'), 0o000);
      assert.equal(
        rosterOf(`${HEAD}credentials ok.creds\n${nodes}`).credentials,
        join(root, 'ok.creds'),
      );
      const errors = [
        ...errorsOf(`${HEAD}credentials ok.creds\ncredentials ok.creds\n${nodes}`),
        ...errorsOf(`${HEAD}credentials missing.creds\n${nodes}`),
        ...errorsOf(`${HEAD}credentials /\n${nodes}`),
        ...errorsOf(`${HEAD}credentials\n${nodes}`),
      ];
      assert.deepEqual(errors, [
        'nodes.conf:4: credentials is already set on line 3',
        `nodes.conf:3: credentials file '${join(root, 'missing.creds')}' does not exist`,
        "nodes.conf:3: credentials '/' is not a file",
        "nodes.conf:3: a credentials line is 'credentials <path>'",
      ]);
      assert.ok(errors.every((e) => !e.includes('SECRET')));
    });

    it('node: a bad name, no name, twice, without roles, with an empty role', () => {
      assert.deepEqual(errorsOf(`${HEAD}node Laptop architect,coder,reviewer,QA\n`), [
        "nodes.conf:3: node name 'Laptop' must match ^[a-z][a-z0-9-]{0,31}$",
      ]);
      assert.deepEqual(errorsOf(`${HEAD}node\nnode a architect,coder,reviewer,QA\n`), [
        "nodes.conf:3: a node line is 'node <node-name> <role>[,<role>...]'",
      ]);
      assert.deepEqual(
        errorsOf(`${HEAD}node a architect,coder\nnode a reviewer,QA\n`),
        ['nodes.conf:4: node a is already defined on line 3'],
        'the roles of the repeated line are not also on no node',
      );
      assert.deepEqual(errorsOf(`${HEAD}node a architect,coder,reviewer,QA\nnode b\nnode c ,\n`), [
        'nodes.conf:4: node b has no roles',
        'nodes.conf:5: node c has no roles',
      ]);
      assert.deepEqual(errorsOf(`${HEAD}node a architect,,coder,reviewer,QA,\n`), [
        'nodes.conf:3: node a lists an empty role (a comma too many)',
      ]);
    });

    it('roles: unknown, on two nodes, twice on one node, on no node (reported at the last non-blank line)', () => {
      assert.deepEqual(errorsOf(`${HEAD}node a architect,coder,reviewer,QA,qa,helper\n`), [
        'nodes.conf:3: unknown role qa: swarmforge.conf has no window for it',
        'nodes.conf:3: unknown role helper: swarmforge.conf has no window for it',
      ]);
      assert.deepEqual(
        errorsOf(`${HEAD}node a architect,helper\n\nnode b coder,reviewer,QA,helper\n`, [
          ...ROLES,
          'helper',
        ]),
        ['nodes.conf:5: role helper is on two nodes: a (line 3) and b'],
      );
      assert.deepEqual(errorsOf(`${HEAD}node a architect,coder,coder,reviewer,QA\n`), [
        'nodes.conf:3: role coder is listed twice on node a',
      ]);
      assert.deepEqual(errorsOf(`${HEAD}node a coder\n# QA soon\n\n\n`), [
        'nodes.conf:4: role architect is on no node',
        'nodes.conf:4: role reviewer is on no node',
        'nodes.conf:4: role QA is on no node',
      ]);
      assert.deepEqual(errorsOf('', ['coder']), [
        "nodes.conf:1: no swarm line; add 'swarm <name>'",
        "nodes.conf:1: no nats line; add 'nats nats://host:port'",
        'nodes.conf:1: role coder is on no node',
      ]);
    });

    it('reports every error at once, in line order, what is missing last', () => {
      assert.deepEqual(
        errorsOf(
          'swarm Bad\nnats nats://h\ncredentials none.creds\nnode a coder,helper\nnode b coder\nnode a QA\nnode c\nbogus\n',
        ),
        [
          "nodes.conf:1: swarm name 'Bad' must match ^[a-z][a-z0-9-]{0,31}$",
          "nodes.conf:2: nats URL 'nats://h' must be nats://host:port or tls://host:port with a port from 1 to 65535",
          `nodes.conf:3: credentials file '${join(root, 'none.creds')}' does not exist`,
          'nodes.conf:4: unknown role helper: swarmforge.conf has no window for it',
          'nodes.conf:5: role coder is on two nodes: a (line 4) and b',
          'nodes.conf:6: node a is already defined on line 4',
          'nodes.conf:7: node c has no roles',
          "nodes.conf:8: unknown directive 'bogus'; expected 'swarm <name>', 'nats <url>[,<url>...]', 'credentials <path>', 'replicas <1|3|5>' or 'node <node-name> <role>[,<role>...]'",
          'nodes.conf:8: role architect is on no node',
          'nodes.conf:8: role reviewer is on no node',
        ],
      );
    });
  });

  describe('readRoster', () => {
    const write = (name: string, text: string) => {
      fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
      fs.writeFileSync(join(root, 'swarmforge', name), text);
    };

    it('undefined without nodes.conf (swarmforge.conf is not even read); the roster with the roles of swarmforge.conf', () => {
      assert.equal(readRoster(root), undefined);
      write('swarmforge.conf', 'window coder claude master\nwindow QA codex qa batch\n');
      write('nodes.conf', `${HEAD}node a coder\nnode b QA\n`);
      const roster = readRoster(root)!;
      assert.equal(roster.file, file);
      assert.deepEqual(
        [...roster.nodeOfRole],
        [
          ['coder', 'a'],
          ['QA', 'b'],
        ],
      );
    });

    it('fails (environment) with every error of nodes.conf, or with those of swarmforge.conf', () => {
      write('swarmforge.conf', 'window coder claude master\nwindow QA codex qa batch\n');
      write('nodes.conf', `${HEAD}node a coder\nnode b helper\n`);
      assert.throws(
        () => readRoster(root),
        failsWith([
          'nodes.conf:4: unknown role helper: swarmforge.conf has no window for it',
          'nodes.conf:4: role QA is on no node',
        ]),
      );
      write('swarmforge.conf', 'pane x\n');
      assert.throws(
        () => readRoster(root),
        (err: unknown) =>
          err instanceof CommandFailure &&
          /swarmforge\.conf:1: unknown directive 'pane'/.test(err.lines[0]!),
      );
    });
  });

  describe('the local node', () => {
    let roster: Roster;
    const nodeFile = () => join(root, '.swarmforge', 'node');
    beforeEach(() => {
      roster = rosterOf(`${HEAD}node laptop coder,architect\nnode server reviewer,QA\n`);
    });

    it('$BATON_NODE wins over .swarmforge/node; the file when the variable is unset or empty', () => {
      fs.mkdirSync(join(root, '.swarmforge'));
      fs.writeFileSync(nodeFile(), 'server\n');
      assert.equal(localNodeOf(root, roster, { BATON_NODE: 'laptop' }), 'laptop');
      assert.equal(localNodeOf(root, roster, {}), 'server');
      assert.equal(localNodeOf(root, roster, { BATON_NODE: '' }), 'server');
    });

    it('neither, an unknown $BATON_NODE (even with a good file) or an unknown name in the file: fails (environment) with the one line', () => {
      assert.throws(() => localNodeOf(root, roster, {}), failsWith([UNKNOWN_NODE]));
      assert.equal(knownLocalNodeOf(root, roster, {}), undefined);
      fs.mkdirSync(join(root, '.swarmforge'));
      fs.writeFileSync(nodeFile(), 'server\n');
      assert.throws(
        () => localNodeOf(root, roster, { BATON_NODE: 'desktop' }),
        failsWith([UNKNOWN_NODE]),
      );
      fs.writeFileSync(nodeFile(), 'desktop\n');
      assert.throws(() => localNodeOf(root, roster, {}), failsWith([UNKNOWN_NODE]));
      fs.writeFileSync(nodeFile(), '');
      assert.throws(() => localNodeOf(root, roster, {}), failsWith([UNKNOWN_NODE]));
    });

    it("rolesOfNode: the node's roles in file order, a copy; none for an unknown node", () => {
      const roles = rolesOfNode(roster, 'laptop');
      assert.deepEqual(roles, ['coder', 'architect']);
      roles.push('x');
      assert.deepEqual(rolesOfNode(roster, 'laptop'), ['coder', 'architect']);
      assert.deepEqual(rolesOfNode(roster, 'desktop'), []);
    });
  });
});
