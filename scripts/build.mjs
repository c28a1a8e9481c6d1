// Bundles each bin into dist/bin with esbuild: one CommonJS file per bin, nothing shared.
// An agent pays start-up on every call (issue 22: ≤ 1.2× `node -e 0`), and measured on the
// development VM (docs/decisions.md, "One CommonJS file per bin"):
// - one bundled file starts ~30% faster than tsc output;
// - each ES module file costs a load (about 4 ms), so chunks shared between bins cost more
//   than parsing a bigger file: `ready_for_next` split over its chunks took 1.5× `node -e 0`;
// - an ES module pays Node's ESM loader and, for each `import … from 'node:fs'`, a facade
//   that evaluates every lazy export of the builtin (fs.promises and the streams behind it);
//   the same code as CommonJS took 1.27× where ESM took 1.37–1.5×.
// Lazy imports stay lazy: esbuild turns `await import()` of bundled code into an init
// function called when the import runs, so yargs or js-yaml is parsed but not evaluated on
// paths that do not use them. Sources stay ES modules; dist/bin/package.json says the
// bundles are CommonJS, and `import.meta.url` becomes the bundle's own file URL.
// The package version is written into every bundle (__BATON_VERSION__, read by
// lib/proc/version.ts), so `<bin> --version` reads no file at run time.
import { build } from 'esbuild';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const { version } = JSON.parse(await readFile('package.json', 'utf8'));
// Clear what an older build left (chunks of the ES module build included).
await rm('dist/bin', { recursive: true, force: true });
await mkdir('dist/bin', { recursive: true });
await writeFile('dist/bin/package.json', '{ "type": "commonjs" }\n');
const bins = (await readdir('bin')).filter((f) => f.endsWith('.ts'));
// Code that bundles import lazily but that is a bundle of its own (`name`, built from
// `entry`): an import() whose path matches `imported` becomes a require() of that bundle
// beside the importer (`supported` below), so it is compiled only when used. The packages'
// entries are CommonJS (scripts/bundles/), so that `(await import(x)).default` is the
// package as Node gives it.
const OWN_BUNDLES = [
  {
    imported: /\/cli\/run\/runCommand\.js$/,
    entry: 'lib/cli/run/runCommand.ts',
    name: 'baton-run',
  },
  { imported: /\/cli\/baton\.js$/, entry: 'lib/cli/baton.ts', name: 'baton-cli' },
  // The agent commands' code: their bins load it with the code cache (bin/ready_for_next.ts).
  { imported: /\/cli\/agentCommands\.js$/, entry: 'lib/cli/agentCommands.ts', name: 'baton-agent' },
  {
    imported: /\/cli\/review\/verdictFastPath\.js$/,
    entry: 'lib/cli/review/verdictFastPath.ts',
    name: 'baton-review-verdict',
  },
  { imported: /\/bridge\/bridge\.js$/, entry: 'lib/bridge/bridge.ts', name: 'baton-bridge' },
  { imported: /\/web\/webServer\.js$/, entry: 'lib/web/webServer.ts', name: 'baton-web' },
  { imported: /^js-yaml$/, entry: 'scripts/bundles/yaml.cjs', name: 'baton-yaml' },
  {
    imported: /^gray-matter$/,
    entry: 'scripts/bundles/front-matter.cjs',
    name: 'baton-front-matter',
  },
  // The hook scripts load their bundle through it (hooks/*); baton.js holds its own copy.
  { imported: /\/cli\/codeCache\.js$/, entry: 'lib/cli/codeCache.ts', name: 'baton-code-cache' },
];
// string-width (three copies under yargs: its own, cliui's, wrap-ansi's) builds an
// Intl.Segmenter and Unicode-property expressions when it loads, about 30 ms of every
// `baton` command; yargs needs it only to lay out help. Each copy is bundled behind a
// stand-in that requires it on the first call.
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === 'real') return undefined;
      const real = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'real',
      });
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents:
        'let real;\n' +
        'export default function stringWidth(text, options) {\n' +
        `  real ??= require(${JSON.stringify(args.path)}).default;\n` +
        '  return real(text, options);\n' +
        '}\n',
      resolveDir: '.',
    }));
  },
};
/**
 * A plugin that bundles the package file matching `file` with `passage` replaced by
 * `replacement`; the build stops when the passage is not found (the package changed, and the
 * edit is to be made again).
 */
function editedPackageFile(name, file, passage, replacement) {
  return {
    name,
    setup(build) {
      build.onLoad({ filter: file }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes(passage))
          throw new Error(`${args.path}: the passage ${name} edits is not found (see build.mjs)`);
        return { contents: source.replace(passage, replacement), loader: 'js' };
      });
    },
  };
}

/** A plugin that gives importers matching `importer` the module `contents` for `module`. */
function standIn(name, module, importer, contents) {
  return {
    name,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${module}$`) }, (args) =>
        importer.test(args.importer) ? { path: module, namespace: name } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: name }, () => ({ contents, resolveDir: '.' }));
    },
  };
}

// After running a command, yargs lays out that command's help text in case a failure
// prints it (command.js, cacheHelpMessage): most of the string-width work above, at every
// `baton` command. Baton's .fail() throws and never prints yargs' help, and Baton never
// calls showHelp() or getHelp(), so the bundle leaves that call out.
const yargsWithoutHelpCache = editedPackageFile(
  'yargs-without-help-cache',
  /[/\\]yargs[/\\]build[/\\]lib[/\\]command\.js$/,
  '            if (!isDefaultCommand) {\n' +
    '                yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();\n' +
    '            }\n',
  '',
);
// yargs' factory gives each instance a version guessed from the nearest package.json above the
// working folder (a listing of every folder up to the root when there is none, then an
// assertion that fails and is caught). Baton always names its own (.version(batonVersion()) in
// lib/cli/baton.ts and lib/cli/handoffd.ts), so the bundle leaves the guess out.
const yargsWithoutVersionGuess = editedPackageFile(
  'yargs-without-version-guess',
  /[/\\]yargs[/\\]build[/\\]lib[/\\]yargs-factory\.js$/,
  '        yargs.help();\n        yargs.version();\n        return yargs;\n',
  '        yargs.help();\n        return yargs;\n',
);
// yargs' ES module entry imports node:assert for two checks of its own arguments
// (strictEqual, notStrictEqual); loading the builtin (its error class, colours, the inspector's
// helpers) took about 1.5 ms of every `baton` command. yargs is given a stand-in that compares
// as they do (Object.is) and calls the real function, which then throws its own error, only
// when a check fails.
const lazyAssertForYargs = standIn(
  'lazy-assert-for-yargs',
  'assert',
  /[/\\]node_modules[/\\]yargs[/\\]/,
  "const real = () => require('node:assert');\n" +
    'export function strictEqual(actual, expected, message) {\n' +
    '  if (!Object.is(actual, expected)) real().strictEqual(actual, expected, message);\n' +
    '}\n' +
    'export function notStrictEqual(actual, expected, message) {\n' +
    '  if (Object.is(actual, expected)) real().notStrictEqual(actual, expected, message);\n' +
    '}\n',
);
// gray-matter loads its own js-yaml (3.x) for its default engine, and that js-yaml requires
// esprima (280 KB, for a `!!js/function` type) when it loads: 6-13 ms of every process that
// reads front matter, spent on code that never runs, since Baton gives every call its own
// engines (lib/findings/frontMatter.ts, js-yaml 4). gray-matter's bundle gets a stand-in whose
// functions throw if anything ever uses them.
const grayMatterWithoutItsYaml = standIn(
  'gray-matter-without-its-yaml',
  'js-yaml',
  /[/\\]node_modules[/\\]gray-matter[/\\]lib[/\\]engines\.js$/,
  'function unused() {\n' +
    '  throw new Error("gray-matter\'s own YAML engine is not Baton\'s (frontMatter.ts)");\n' +
    '}\n' +
    'module.exports = { safeLoad: unused, safeDump: unused };\n',
);
// `import * as fs from 'node:fs'` (in some eighty modules of lib/) becomes, in CommonJS,
// a copy of the whole builtin's properties per importing module (esbuild's __toESM): about
// 5 ms of every start. Baton's modules import node:fs from one module of the bundle
// instead, which takes each plain export once. The builtin's lazy getters (`promises`,
// the stream classes, `opendir`) are left out: reading one loads its modules (fs/promises,
// the streams, readline). lib/ uses none of them (node:fs/promises where it needs that);
// one used would be an esbuild warning, and a warning stops the build.
const nodeFs = createRequire(import.meta.url)('node:fs');
const FS_EXPORTS = Object.keys(nodeFs).filter(
  (name) => Object.getOwnPropertyDescriptor(nodeFs, name)?.get === undefined,
);
const oneFsModule = {
  name: 'one-fs-module',
  setup(build) {
    build.onResolve({ filter: /^node:fs$/ }, (args) =>
      args.kind === 'import-statement' && !args.importer.includes('node_modules')
        ? { path: 'node:fs', namespace: 'one-fs-module' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'one-fs-module' }, () => ({
      contents:
        "const fs = require('node:fs');\n" +
        FS_EXPORTS.map((name) => `export const ${name} = fs.${name};\n`).join(''),
      resolveDir: '.',
    }));
  },
};
const ownBundles = {
  name: 'own-bundles',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const own = OWN_BUNDLES.find(({ imported }) => imported.test(args.path));
      return own && { path: `./${own.name}.js`, external: true };
    });
  },
};
const inputsOf = {};
const entries = [
  ...bins.map((bin) => ({ entry: `bin/${bin}`, name: bin.slice(0, -3) })),
  ...OWN_BUNDLES,
];
await Promise.all(
  entries.map(async ({ entry, name }) => {
    const out = `dist/bin/${name}.js`;
    const { metafile, warnings } = await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      define: {
        __BATON_VERSION__: JSON.stringify(version),
        'import.meta.url': '__batonModule.url',
      },
      inject: ['scripts/moduleUrl.mjs'],
      plugins: [
        ownBundles,
        lazyStringWidth,
        lazyAssertForYargs,
        yargsWithoutVersionGuess,
        yargsWithoutHelpCache,
        grayMatterWithoutItsYaml,
        oneFsModule,
      ],
      supported: { 'dynamic-import': false },
      // A bundle is read, hashed against its code cache and compiled in time proportional
      // to its size (about 30 ms per MB here), so names are shortened too: `baton run` 347 KB
      // → 247 KB, 4 % of its start. No command prints a stack trace (lib/cli/failure.ts
      // prints one line); for a profile or a debugger, BATON_BUILD_NAMES=1 keeps the names.
      minifyWhitespace: true,
      minifySyntax: true,
      minifyIdentifiers: process.env.BATON_BUILD_NAMES !== '1',
      metafile: true,
      logLevel: 'warning',
    });
    if (warnings.length > 0) throw new Error(`${entry}: esbuild warned (above); fix it`);
    inputsOf[`${name}.js`] = Object.keys(metafile.inputs).sort();
    await chmod(out, 0o755);
  }),
);
// What each bundle holds, for a person asking where a module went and for the tests that
// keep heavy code (the NATS client, yargs) off the paths that must start fast.
const sorted = Object.fromEntries(Object.entries(inputsOf).sort(([a], [b]) => a.localeCompare(b)));
await writeFile('dist/bin/bundles.json', `${JSON.stringify(sorted, null, 1)}\n`);
