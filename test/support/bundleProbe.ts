// Which of the built bundles a command loads: the bins are CommonJS (scripts/build.mjs), so
// a --require probe that wraps Module.prototype.load sees every file Node loads as one, and
// wrapping vm.Script (on process.getBuiltinModule, as codeCache.ts gets node:vm) sees the
// bundles compiled with the code cache. At exit it lists the modules of Node's own that the
// command loaded (process.moduleLoadList beyond what was loaded before it). The probe loads
// none itself and writes to fd 2 directly: process.stderr would load the stream modules.
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { BIN_DIR, runExecutable, tempDir, type RunOptions, type RunResult } from './project.js';

const PROBE = `const fs = require('node:fs');
// module.constructor is Node's Module class: the probe loads neither node:module nor node:vm.
const M = module.constructor;
const load = M.prototype.load;
M.prototype.load = function (file) {
  fs.writeSync(2, 'LOADED ' + file + '\\n');
  return load.call(this, file);
};
let wrapped = false;
const getBuiltinModule = process.getBuiltinModule;
process.getBuiltinModule = function (id) {
  const builtin = getBuiltinModule.call(process, id);
  if ((id === 'node:vm' || id === 'vm') && !wrapped) {
    wrapped = true;
    const Script = builtin.Script;
    builtin.Script = class extends Script {
      constructor(code, options) {
        if (options && options.filename) fs.writeSync(2, 'COMPILED ' + options.filename + '\\n');
        super(code, options);
      }
    };
  }
  return builtin;
};
// Date's toISOString loads the time zone data at its first call (fsx/timestamps.ts).
const toISOString = Date.prototype.toISOString;
Date.prototype.toISOString = function () {
  fs.writeSync(2, 'TOISOSTRING\\n');
  return toISOString.call(this);
};
const before = new Set(process.moduleLoadList);
process.on('exit', () => {
  const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule '));
  fs.writeSync(2, 'BUILTINS ' + loaded.map((m) => m.slice(13)).join(' ') + '\\n');
});
`;

/**
 * Runs `bin` (a built bin's name) with `args`; its result, the bundles it loaded in order (those
 * compiled with the code cache, through node:vm, also in `compiled`), the modules of Node's own it
 * loaded (`vm`, `os`, `internal/modules/esm/loader`, …), and how often it called Date's
 * toISOString.
 */
export function bundlesLoadedBy(
  bin: string,
  args: string[],
  options: RunOptions,
): {
  result: RunResult;
  bundles: string[];
  compiled: string[];
  builtins: string[];
  toISOStringCalls: number;
} {
  const dir = tempDir('baton-probe-');
  try {
    fs.writeFileSync(join(dir, 'probe.cjs'), PROBE);
    const result = runExecutable(
      process.execPath,
      ['--require', join(dir, 'probe.cjs'), join(BIN_DIR, `${bin}.js`), ...args],
      options,
    );
    const lines = result.stderr.split('\n');
    const ours = (prefix: string, line: string) =>
      line.startsWith(prefix) && line.startsWith(`${BIN_DIR}/`, prefix.length);
    const bundles = lines
      .filter((l) => ours('LOADED ', l) || ours('COMPILED ', l))
      .map((l) => basename(l));
    const compiled = lines.filter((l) => ours('COMPILED ', l)).map((l) => basename(l));
    const builtins = (lines.find((l) => l.startsWith('BUILTINS ')) ?? 'BUILTINS ')
      .slice('BUILTINS '.length)
      .split(' ')
      .filter((m) => m !== '');
    const toISOStringCalls = lines.filter((l) => l === 'TOISOSTRING').length;
    const stderr = lines
      .filter(
        (l) =>
          !l.startsWith('LOADED ') &&
          !l.startsWith('COMPILED ') &&
          !l.startsWith('BUILTINS ') &&
          l !== 'TOISOSTRING',
      )
      .join('\n');
    return { result: { ...result, stderr }, bundles, compiled, builtins, toISOStringCalls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
