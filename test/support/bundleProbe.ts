// Which of the built bundles a command loads: the bins are CommonJS (scripts/build.mjs), so
// a --require probe that wraps Module.prototype.load sees every file Node loads as one, and
// wrapping vm.Script sees the bundles `baton` compiles with the code cache (codeCache.ts).
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { BIN_DIR, runExecutable, tempDir, type RunOptions, type RunResult } from './project.js';

const PROBE = `const M = require('node:module');
const load = M.prototype.load;
M.prototype.load = function (file) {
  process.stderr.write('LOADED ' + file + '\\n');
  return load.call(this, file);
};
const vm = require('node:vm');
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    if (options && options.filename) process.stderr.write('LOADED ' + options.filename + '\\n');
    super(code, options);
  }
};
`;

/** Runs `bin` (a built bin's name) with `args`; its result, and the bundles it loaded, in order. */
export function bundlesLoadedBy(
  bin: string,
  args: string[],
  options: RunOptions,
): { result: RunResult; bundles: string[] } {
  const dir = tempDir('baton-probe-');
  try {
    fs.writeFileSync(join(dir, 'probe.cjs'), PROBE);
    const result = runExecutable(
      process.execPath,
      ['--require', join(dir, 'probe.cjs'), join(BIN_DIR, `${bin}.js`), ...args],
      options,
    );
    const lines = result.stderr.split('\n');
    const bundles = lines
      .filter((l) => l.startsWith('LOADED '))
      .map((l) => l.slice('LOADED '.length))
      .filter((file) => file.startsWith(`${BIN_DIR}/`))
      .map((file) => basename(file));
    const stderr = lines.filter((l) => !l.startsWith('LOADED ')).join('\n');
    return { result: { ...result, stderr }, bundles };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
