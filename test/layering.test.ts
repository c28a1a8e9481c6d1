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
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: spec }) =>
    spec.startsWith('.') ? { spec, target: relative(REPO, resolve(REPO, dirname(file), spec)) } : { spec });
}

/** The layering violations of one lib file, one line each. */
function violationsOf(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const { spec, target } of importsOf(file, text)) {
    const says = `${file} imports '${spec}'`;
    if (target !== undefined) {
      if (target.startsWith('bin/') || target.startsWith('test/') || !target.startsWith('lib/')) problems.push(`${says}: lib must not import outside lib/`);
      else if (file.startsWith('lib/queue/') && !target.startsWith('lib/queue/')) problems.push(`${says}: lib/queue imports nothing above it`);
      else if (file.startsWith('lib/handoff/') && target.startsWith('lib/cli/')) problems.push(`${says}: lib/handoff must not import lib/cli`);
    } else if (file.startsWith('lib/queue/') && !spec.startsWith('node:') && spec !== 'js-yaml') {
      problems.push(`${says}: lib/queue uses only node: builtins and js-yaml`);
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
  report(/import\s*\{[^}]*\bexec(?:Sync)?\b(?!File)[^}]*\}\s*from\s*['"](?:node:)?child_process['"]/g, 'imports exec/execSync from child_process');
  for (const m of text.matchAll(/import\s+(?:\*\s+as\s+)?(\w+)\s+from\s*['"](?:node:)?child_process['"]/g)) {
    report(new RegExp(`\\b${m[1]}\\.exec(?:Sync)?\\s*\\(`, 'g'), `${m[1]}.exec()/execSync() runs a shell`);
  }
  return problems;
}

describe('layering', () => {
  const libFiles = tsFilesUnder('lib');

  it('finds the lib files and parses their imports (static, type-only, re-exports and dynamic)', () => {
    for (const dir of ['lib/queue/', 'lib/handoff/', 'lib/cli/']) assert.ok(libFiles.some((f) => f.startsWith(dir)), dir);
    const read = (f: string) => importsOf(f, fs.readFileSync(join(REPO, f), 'utf8'));
    assert.ok(read('lib/queue/envelope.ts').some((i) => i.spec === 'js-yaml'), 'the dynamic js-yaml import');
    assert.ok(read('lib/handoff/send.ts').some((i) => i.target === 'lib/queue/lock.js'));
    const sample = "import a from '../cli/x.js';\nimport type { B } from '../../bin/y.js';\nexport { c } from '../../test/z.js';\nconst d = await import('../cli/w.js');\nexport * from 'left-pad';\n";
    assert.deepEqual(importsOf('lib/handoff/s.ts', sample).map((i) => i.target ?? i.spec).sort(), ['bin/y.js', 'left-pad', 'lib/cli/w.js', 'lib/cli/x.js', 'test/z.js']);
  });

  it('every relative import of lib resolves to a file that exists', () => {
    const missing: string[] = [];
    for (const file of libFiles) {
      for (const { spec, target } of importsOf(file, fs.readFileSync(join(REPO, file), 'utf8'))) {
        if (target !== undefined && !fs.existsSync(join(REPO, target.replace(/\.js$/, '.ts')))) missing.push(`${file} → ${spec}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('the rules catch what they forbid', () => {
    assert.deepEqual(violationsOf('lib/queue/q.ts', "import { fail } from '../handoff/errors.js';\nimport yargs from 'yargs';\nimport * as fs from 'node:fs';\nimport y from 'js-yaml';\nimport { x } from './x.js';\n"), [
      "lib/queue/q.ts imports '../handoff/errors.js': lib/queue imports nothing above it",
      "lib/queue/q.ts imports 'yargs': lib/queue uses only node: builtins and js-yaml",
    ]);
    assert.deepEqual(violationsOf('lib/handoff/h.ts', "import { x } from '../cli/failure.js';\nimport { y } from '../queue/lock.js';\nimport { z } from '../../bin/baton.js';\nimport { w } from '../../test/support/project.js';\n"), [
      "lib/handoff/h.ts imports '../cli/failure.js': lib/handoff must not import lib/cli",
      "lib/handoff/h.ts imports '../../bin/baton.js': lib must not import outside lib/",
      "lib/handoff/h.ts imports '../../test/support/project.js': lib must not import outside lib/",
    ]);
  });

  it('lib/queue imports nothing outside lib/queue but node: builtins and js-yaml; lib/handoff nothing from lib/cli; lib nothing from bin/ or test/', () => {
    const problems = libFiles.flatMap((file) => violationsOf(file, fs.readFileSync(join(REPO, file), 'utf8')));
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
      const lines = shellUsesOf('x.ts', bad).map((p) => Number(p.split(':')[1])).sort();
      assert.deepEqual(lines, [1, 2, 4, 5, 6, 7, 8], 'every line but the bare namespace import is flagged');
      const good = "import { execFile, execFileSync, spawn } from 'node:child_process';\nexecFile('git', ['status']);\nexecFileSync('git', []);\nspawn('tmux', ['-L', 's'], { shell: false });\n/x/.exec(name);\nGENERATION.exec(n);\n";
      assert.deepEqual(shellUsesOf('y.ts', good), []);
    });

    it('no file in lib/ or bin/ uses exec(, execSync( or a shell option', () => {
      const files = [...libFiles, ...tsFilesUnder('bin')];
      assert.ok(files.some((f) => f.startsWith('bin/')));
      assert.deepEqual(files.flatMap((file) => shellUsesOf(file, fs.readFileSync(join(REPO, file), 'utf8'))), []);
    });
  });
});
