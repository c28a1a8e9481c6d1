// The package version every command prints for --version. The build (scripts/build.mjs)
// writes package.json's version into each bundle as __BATON_VERSION__, so a bin reads no
// file for it; run from source (tsx, the tests), it is read from package.json beside lib/.
import { readFileSync } from 'node:fs';

declare const __BATON_VERSION__: string | undefined;

/** The version of the Baton package, e.g. `0.1.0`. */
export function batonVersion(): string {
  if (typeof __BATON_VERSION__ === 'string') return __BATON_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
