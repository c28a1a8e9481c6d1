// Injected into every bundle (scripts/build.mjs): what `import.meta.url` becomes in the
// CommonJS bundles, the bundle's own file URL. node:url is loaded by Node's own start-up.
import { pathToFileURL } from 'node:url';

export const __batonModuleUrl = pathToFileURL(__filename).href;
