// Injected into every bundle (scripts/build.mjs): what `import.meta.url` becomes in the
// CommonJS bundles, the bundle's own file URL. A getter, so that a bundle that never reads
// it (the agent commands' loaders) does not build a URL at every start.

export const __batonModule = {
  get url() {
    return process.getBuiltinModule('node:url').pathToFileURL(__filename).href;
  },
};
