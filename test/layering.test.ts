// Architecture rules that hold for the whole code base: imports point one way (downwards)
// and no external program is ever run through a shell.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const REPO = resolve('.');

/** Every .ts file under `dir` (repo-relative paths), sorted. */
function tsFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(join(REPO, d), { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** One import of a file: the specifier as written and, for a relative one, the repo-relative target. */
interface Import {
  spec: string;
  target?: string;
}

/** The imports of a source text (static, `export ... from`, dynamic `import()`, `import type`, require). */
function importsOf(file: string, text: string): Import[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName: spec }) =>
      spec.startsWith('.')
        ? { spec, target: relative(REPO, resolve(REPO, dirname(file), spec)) }
        : { spec },
    );
}

/** The floor: durable files, locks and records (fsx), processes and git (proc), findings. */
const FLOOR = ['fsx', 'proc', 'findings'];

/**
 * Which lib folders each lib folder may import (besides itself), following architecture.md:
 * the floor imports nothing above it (fsx nothing at all); the queue (the Maildir) sits on
 * fsx; project (the on-disk layout and the records of running parts) on the queue; handoff
 * (agent semantics) on project; admin (init, status, doctor) on handoff; the daemon and the
 * launcher are siblings that never import each other, nor do review and run (lib/cli, which
 * may import anything, wires them together); the agent hooks read the queue and the run
 * records and import nothing that runs anything; the web page reads what status, the monitor,
 * the runs and the reviews read and calls the runtime's owner steps; the scripted agents and demo swarms sit
 * above the stages they play; the adapters import only the floor. A lib folder missing
 * from this table is a violation until it is added.
 */
const MAY_IMPORT: Record<string, string[]> = {
  fsx: [],
  proc: ['fsx'],
  findings: ['fsx'],
  adapters: ['fsx', 'proc'],
  queue: ['fsx'],
  project: ['fsx', 'proc', 'queue'],
  handoff: ['fsx', 'proc', 'project', 'queue'],
  admin: [...FLOOR, 'handoff', 'project', 'queue'],
  bridge: [...FLOOR, 'handoff', 'project', 'queue'],
  daemon: [...FLOOR, 'bridge', 'handoff', 'project', 'queue', 'adapters'],
  swarm: [...FLOOR, 'admin', 'handoff', 'project', 'queue', 'adapters'],
  review: [...FLOOR, 'admin', 'handoff', 'project', 'queue', 'adapters'],
  run: [...FLOOR, 'admin', 'handoff', 'project', 'queue', 'adapters'],
  hooks: [...FLOOR, 'run', 'handoff', 'project', 'queue'],
  web: [...FLOOR, 'swarm', 'run', 'review', 'admin', 'handoff', 'project', 'queue', 'adapters'],
  scripted: [
    ...FLOOR,
    'swarm',
    'review',
    'run',
    'admin',
    'handoff',
    'project',
    'queue',
    'adapters',
  ],
  cli: [
    ...FLOOR,
    'web',
    'scripted',
    'bridge',
    'daemon',
    'swarm',
    'review',
    'run',
    'hooks',
    'admin',
    'handoff',
    'project',
    'queue',
    'adapters',
  ],
};

/** The lib folder of a repo-relative path (`lib/<folder>/...`), or undefined outside lib/. */
function layerOf(path: string): string | undefined {
  return /^lib\/([^/]+)\//.exec(path)?.[1];
}

/** The layering violations of one lib file, one line each. */
function violationsOf(file: string, text: string): string[] {
  const problems: string[] = [];
  const layer = layerOf(file);
  if (layer === undefined || !(layer in MAY_IMPORT))
    return [
      `${file}: lib/${layer ?? '?'} is not in the layering table; add it with the folders it may import`,
    ];
  for (const { spec, target } of importsOf(file, text)) {
    const says = `${file} imports '${spec}'`;
    if (target !== undefined) {
      const to = layerOf(target);
      if (target.startsWith('bin/') || target.startsWith('test/') || !target.startsWith('lib/'))
        problems.push(`${says}: lib must not import outside lib/`);
      else if (to !== layer && !MAY_IMPORT[layer]!.includes(to!))
        problems.push(
          `${says}: lib/${layer} may import only ${['itself', ...MAY_IMPORT[layer]!.map((l) => `lib/${l}`)].join(', ')}`,
        );
      else if (to === 'queue' && layer !== 'queue' && target !== 'lib/queue/index.js')
        problems.push(
          `${says}: outside lib/queue, the queue is imported through lib/queue/index.ts`,
        );
    } else if (layer === 'queue' && !spec.startsWith('node:') && spec !== 'js-yaml') {
      problems.push(`${says}: lib/queue uses only node: builtins and js-yaml`);
    } else if (layer !== 'bridge' && spec.startsWith('@nats-io/')) {
      problems.push(`${says}: only lib/bridge imports the NATS client`);
    }
  }
  return problems;
}

/** Uses of a shell or of child_process exec/execSync in a source text, one line each. */
function shellUsesOf(file: string, text: string): string[] {
  const problems: string[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const report = (pattern: RegExp, what: string) => {
    for (const m of text.matchAll(pattern)) problems.push(`${file}:${lineOf(m.index!)}: ${what}`);
  };
  report(/\bshell\s*:\s*(?:true|['"`])/g, 'shell option');
  report(/(?<![\w$.])exec(?:Sync)?\s*\(/g, 'exec()/execSync() runs a shell');
  report(
    /import\s*\{[^}]*\bexec(?:Sync)?\b(?!File)[^}]*\}\s*from\s*['"](?:node:)?child_process['"]/g,
    'imports exec/execSync from child_process',
  );
  for (const m of text.matchAll(
    /import\s+(?:\*\s+as\s+)?(\w+)\s+from\s*['"](?:node:)?child_process['"]/g,
  )) {
    report(
      new RegExp(`\\b${m[1]}\\.exec(?:Sync)?\\s*\\(`, 'g'),
      `${m[1]}.exec()/execSync() runs a shell`,
    );
  }
  return problems;
}

/** Names of the on-disk layout; only lib/project/layout.ts may spell them as string literals. */
const LAYOUT_NAMES = new Set([
  '.swarmforge',
  '.worktrees',
  'swarmforge',
  'swarmforge.conf',
  'handoffs',
  'tmux-socket',
  'tmux.sock',
]);

/** String literals of a source text that build a layout path: a layout name alone, or a path through `.swarmforge/` or `.worktrees/`. */
function layoutLiteralsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const problems: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const value = node.text;
      if (LAYOUT_NAMES.has(value) || /(^|\/)\.(swarmforge|worktrees)\//.test(value)) {
        problems.push(
          `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: '${value}'`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/** Functions of a source text longer than `max` lines, as `<file>:<line> <name> (<n> lines)`. */
function longFunctionsOf(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const problems: string[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const nameOf = (node: ts.Node): string => {
    const named = (node as ts.FunctionDeclaration).name;
    if (named) return named.getText();
    if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent))
      return node.parent.name.getText();
    return '<anonymous>';
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node)
    ) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      if (lines > max)
        problems.push(`${file}:${lineOf(node.getStart())} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/** Lines of a source text that set an exit code or exit (only lib/cli/failure.ts may). */
function exitCodeSettersOf(file: string, text: string): string[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) =>
    /process\.exitCode\s*=|process\.exit\s*\(/.test(line)
      ? [`${file}:${i + 1}: ${line.trim()}`]
      : [],
  );
}

describe('layering', () => {
  const libFiles = tsFilesUnder('lib');

  it('finds the lib files and parses their imports (static, type-only, re-exports and dynamic)', () => {
    for (const dir of ['lib/queue/', 'lib/handoff/', 'lib/cli/'])
      assert.ok(
        libFiles.some((f) => f.startsWith(dir)),
        dir,
      );
    const read = (f: string) => importsOf(f, fs.readFileSync(join(REPO, f), 'utf8'));
    assert.ok(
      read('lib/queue/envelope.ts').some((i) => i.spec === 'js-yaml'),
      'the dynamic js-yaml import',
    );
    assert.ok(read('lib/handoff/send.ts').some((i) => i.target === 'lib/fsx/lock.js'));
    const sample =
      "import a from '../cli/x.js';\nimport type { B } from '../../bin/y.js';\nexport { c } from '../../test/z.js';\nconst d = await import('../cli/w.js');\nexport * from 'left-pad';\n";
    assert.deepEqual(
      importsOf('lib/handoff/s.ts', sample)
        .map((i) => i.target ?? i.spec)
        .sort(),
      ['bin/y.js', 'left-pad', 'lib/cli/w.js', 'lib/cli/x.js', 'test/z.js'],
    );
  });

  it('every relative import of lib resolves to a file that exists', () => {
    const missing: string[] = [];
    for (const file of libFiles) {
      for (const { spec, target } of importsOf(file, fs.readFileSync(join(REPO, file), 'utf8'))) {
        if (target !== undefined && !fs.existsSync(join(REPO, target.replace(/\.js$/, '.ts'))))
          missing.push(`${file} → ${spec}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('the rules catch what they forbid', () => {
    assert.deepEqual(
      violationsOf(
        'lib/queue/q.ts',
        "import { fail } from '../handoff/send.js';\nimport yargs from 'yargs';\nimport * as fs from 'node:fs';\nimport y from 'js-yaml';\nimport { x } from './x.js';\nimport { l } from '../fsx/lock.js';\n",
      ),
      [
        "lib/queue/q.ts imports '../handoff/send.js': lib/queue may import only itself, lib/fsx",
        "lib/queue/q.ts imports 'yargs': lib/queue uses only node: builtins and js-yaml",
      ],
    );
    assert.deepEqual(
      violationsOf(
        'lib/fsx/f.ts',
        "import { m } from '../queue/mailbox.js';\nimport { g } from '../proc/git.js';\n",
      ),
      [
        "lib/fsx/f.ts imports '../queue/mailbox.js': lib/fsx may import only itself",
        "lib/fsx/f.ts imports '../proc/git.js': lib/fsx may import only itself",
      ],
    );
    assert.deepEqual(
      violationsOf(
        'lib/findings/s.ts',
        "import { r } from '../run/record/workflow.js';\nimport { b } from '../review/bookbag/bookbag.js';\n",
      ).length,
      2,
      'the floor imports no stage',
    );
    const handoffAllowed =
      'lib/handoff may import only itself, lib/fsx, lib/proc, lib/project, lib/queue';
    assert.deepEqual(
      violationsOf(
        'lib/handoff/h.ts',
        "import { x } from '../cli/failure.js';\nimport { y } from '../fsx/lock.js';\nimport { z } from '../../bin/baton.js';\nimport { w } from '../../test/support/project.js';\nimport { v } from '../daemon/control.js';\nimport { s } from '../admin/status.js';\n",
      ),
      [
        `lib/handoff/h.ts imports '../cli/failure.js': ${handoffAllowed}`,
        "lib/handoff/h.ts imports '../../bin/baton.js': lib must not import outside lib/",
        "lib/handoff/h.ts imports '../../test/support/project.js': lib must not import outside lib/",
        `lib/handoff/h.ts imports '../daemon/control.js': ${handoffAllowed}`,
        `lib/handoff/h.ts imports '../admin/status.js': ${handoffAllowed}`,
      ],
    );
    const sideways =
      "import { a } from '../daemon/control.js';\nimport { b } from '../swarm/up.js';\nimport { c } from '../project/layout.js';\nimport { d } from '../adapters/tmux.js';\n";
    assert.deepEqual(violationsOf('lib/swarm/s.ts', sideways), [
      "lib/swarm/s.ts imports '../daemon/control.js': lib/swarm may import only itself, lib/fsx, lib/proc, lib/findings, lib/admin, lib/handoff, lib/project, lib/queue, lib/adapters",
    ]);
    assert.deepEqual(violationsOf('lib/daemon/d.ts', sideways), [
      "lib/daemon/d.ts imports '../swarm/up.js': lib/daemon may import only itself, lib/fsx, lib/proc, lib/findings, lib/bridge, lib/handoff, lib/project, lib/queue, lib/adapters",
    ]);
    assert.deepEqual(
      violationsOf('lib/run/r.ts', "import { b } from '../review/bookbag/store.js';\n").length,
      1,
      'review and run never import each other',
    );
    assert.deepEqual(
      violationsOf('lib/review/r.ts', "import { w } from '../run/record/runStore.js';\n").length,
      1,
    );
    assert.deepEqual(
      violationsOf('lib/daemon/d.ts', "import { connect } from '@nats-io/transport-node';\n"),
      [
        "lib/daemon/d.ts imports '@nats-io/transport-node': only lib/bridge imports the NATS client",
      ],
    );
    assert.deepEqual(
      violationsOf(
        'lib/bridge/b.ts',
        "import { connect } from '@nats-io/transport-node';\nimport { d } from '../daemon/state.js';\n",
      ),
      [
        "lib/bridge/b.ts imports '../daemon/state.js': lib/bridge may import only itself, lib/fsx, lib/proc, lib/findings, lib/handoff, lib/project, lib/queue",
      ],
    );
    assert.deepEqual(violationsOf('lib/cli/c.ts', sideways), []);
    assert.deepEqual(
      violationsOf(
        'lib/handoff/q.ts',
        "import { a } from '../queue/index.js';\nimport { b } from '../queue/claim.js';\n",
      ),
      [
        "lib/handoff/q.ts imports '../queue/claim.js': outside lib/queue, the queue is imported through lib/queue/index.ts",
      ],
    );
    assert.deepEqual(violationsOf('lib/adapters/a.ts', sideways).length, 3);
    assert.deepEqual(violationsOf('lib/newthing/n.ts', ''), [
      'lib/newthing/n.ts: lib/newthing is not in the layering table; add it with the folders it may import',
    ]);
  });

  it('every lib folder imports only the folders the table allows; lib/queue only node: builtins and js-yaml; lib nothing from bin/ or test/', () => {
    const problems = libFiles.flatMap((file) =>
      violationsOf(file, fs.readFileSync(join(REPO, file), 'utf8')),
    );
    assert.deepEqual(problems, []);
  });

  describe('no shell, anywhere', () => {
    it('the check catches exec, execSync, namespace exec and shell options, and lets execFile, spawn and RegExp#exec through', () => {
      const bad = [
        "import { exec } from 'node:child_process';",
        "import { execFile, execSync } from 'child_process';",
        "import * as cp from 'node:child_process';",
        "exec('ls');",
        "execSync('ls');",
        "cp.exec('ls');",
        "spawn('ls', [], { shell: true });",
        "spawn('ls', [], { shell: '/bin/sh' });",
      ].join('\n');
      const lines = shellUsesOf('x.ts', bad)
        .map((p) => Number(p.split(':')[1]))
        .sort();
      assert.deepEqual(
        lines,
        [1, 2, 4, 5, 6, 7, 8],
        'every line but the bare namespace import is flagged',
      );
      const good =
        "import { execFile, execFileSync, spawn } from 'node:child_process';\nexecFile('git', ['status']);\nexecFileSync('git', []);\nspawn('tmux', ['-L', 's'], { shell: false });\n/x/.exec(name);\nGENERATION.exec(n);\n";
      assert.deepEqual(shellUsesOf('y.ts', good), []);
    });

    it('no file in lib/ or bin/ uses exec(, execSync( or a shell option', () => {
      const files = [...libFiles, ...tsFilesUnder('bin')];
      assert.ok(files.some((f) => f.startsWith('bin/')));
      assert.deepEqual(
        files.flatMap((file) => shellUsesOf(file, fs.readFileSync(join(REPO, file), 'utf8'))),
        [],
      );
    });
  });
  describe('one owner each', () => {
    it('the checks catch layout literals, long functions and exit codes set outside their owner', () => {
      const sample =
        "const a = join(root, '.swarmforge', 'daemon');\nconst b = `${root}/.worktrees/${name}`;\nconst c = 'handoffs';\nconst ok = 'run baton init to write .swarmforge/roles.tsv';\n";
      assert.deepEqual(layoutLiteralsOf('lib/x.ts', sample), [
        "lib/x.ts:1: '.swarmforge'",
        "lib/x.ts:2: '/.worktrees/'",
        "lib/x.ts:3: 'handoffs'",
      ]);
      const body = (n: number) =>
        Array.from({ length: n - 2 }, (_, i) => `  x += ${i};`).join('\n');
      const fns = `function short() {\n${body(60)}\n}\nconst long = () => {\n${body(61)}\n};\n`;
      assert.deepEqual(longFunctionsOf('lib/y.ts', fns, 60), ['lib/y.ts:61 long (61 lines)']);
      assert.deepEqual(
        exitCodeSettersOf(
          'lib/z.ts',
          'process.exitCode = 2;\nif (x) process.exit(1);\nconst code = process.exitCode;\n',
        ),
        ['lib/z.ts:1: process.exitCode = 2;', 'lib/z.ts:2: if (x) process.exit(1);'],
      );
    });

    it('every .swarmforge path comes from lib/project/layout.ts: no other lib file spells a layout name', () => {
      const files = libFiles.filter((f) => f !== 'lib/project/layout.ts');
      assert.deepEqual(
        files.flatMap((f) => layoutLiteralsOf(f, fs.readFileSync(join(REPO, f), 'utf8'))),
        [],
      );
    });

    it("no function in lib/ is longer than 60 lines, except the draft validator (it follows the contract's error order)", () => {
      const found = libFiles.flatMap((f) =>
        longFunctionsOf(f, fs.readFileSync(join(REPO, f), 'utf8'), 60),
      );
      assert.deepEqual(
        found.filter((p) => !/^lib\/handoff\/draft\.ts:\d+ validateDraft /.test(p)),
        [],
      );
    });

    it('exit codes are decided in lib/cli/failure.ts only (bins and other lib files never set process.exitCode or exit)', () => {
      const files = [...libFiles, ...tsFilesUnder('bin')].filter((f) => f !== 'lib/cli/failure.ts');
      assert.deepEqual(
        files.flatMap((f) => exitCodeSettersOf(f, fs.readFileSync(join(REPO, f), 'utf8'))),
        [],
      );
    });
  });
});
