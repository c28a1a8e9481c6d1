// Bundles each bin into dist/bin with esbuild: an agent pays start-up on every call,
// and one bundled file starts ~30% faster than tsc output (see docs/decisions.md).
// Code splitting keeps heavy modules (js-yaml, yargs) in chunks loaded only on the
// paths that need them, so `ready_for_next` on an empty inbox loads almost nothing.
// Each agent hook (bin/hook-*.ts) is built on its own: a hook runs at every session start
// and every stop, and each chunk file costs an ESM load (about 4 ms on the development VM;
// hook-stop split across the twelve chunks it would share with the other bins took 1.5×
// `node -e 0`, as one file 1.1×). Built alone, a hook is one file plus the chunks of what
// it imports lazily (session-start: the run store, only when the project has runs).
// `baton run`'s own bundle (bin/baton-run.ts) is one file without chunks: its lazy imports
// split it over some twenty files, and twenty ES module loads cost more than parsing one
// (`baton run status` 1.7× `node -e 0` split, 1.5× as one file).
// The package version is written into every bundle (__BATON_VERSION__, read by
// lib/proc/version.ts), so `<bin> --version` reads no file at run time.
import { build } from 'esbuild';
import { chmod, readdir, readFile, rm } from 'node:fs/promises';

const { version } = JSON.parse(await readFile('package.json', 'utf8'));
// Chunks are content-hashed: clear the old ones so dist/ holds only this build.
await rm('dist/bin/chunks', { recursive: true, force: true });
const bins = (await readdir('bin')).filter((f) => f.endsWith('.ts')).map((f) => `bin/${f}`);
const isHook = (bin) => bin.startsWith('bin/hook-');
const isRun = (bin) => bin === 'bin/baton-run.ts';
/** One esbuild run over `entryPoints`, with chunks named `chunks/<prefix><name>-<hash>`. */
const bundle = (entryPoints, prefix, splitting = true) =>
  build({
    entryPoints,
    outdir: 'dist/bin',
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: `chunks/${prefix}[name]-[hash]`,
    // CommonJS dependencies bundled into ESM may name __filename (write-file-atomic names its
    // temp files after it): the module's own file, as Node ≥ 20.11 gives it in ESM.
    define: { __BATON_VERSION__: JSON.stringify(version), __filename: 'import.meta.filename' },
    banner: {
      js: "import { createRequire as __batonCreateRequire } from 'node:module'; const require = __batonCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
await bundle(
  bins.filter((bin) => !isHook(bin) && !isRun(bin)),
  '',
);
for (const run of bins.filter(isRun)) await bundle([run], '', false);
for (const hook of bins.filter(isHook)) await bundle([hook], `${hook.slice(4, -3)}-`);
for (const bin of bins) {
  const out = `dist/bin/${bin.slice(4, -3)}.js`;
  await chmod(out, 0o755);
}
