// Run by `npm test` before mocha: the bridge tests need a real nats-server (Debian package
// `nats-server`, installed as /usr/sbin/nats-server, which is not on a user's PATH).
// Found on PATH or in /usr/sbin: nothing to do. Else, as root, apt-get installs it
// (`apt-get update` first only when the install fails: the package lists may be stale or
// absent in a fresh container); else exit 1 saying what to install. apt-get runs through
// spawnSync with an argument vector, never a shell.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

const NEEDED = 'nats-server is needed by the bridge tests: apt-get install nats-server';

/** The nats-server executable on PATH or in the system folders, else undefined. */
function findNatsServer() {
  const dirs = [
    ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
  ];
  for (const dir of dirs) {
    const path = resolve(dir, 'nats-server');
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // not here; the next folder
    }
  }
  return undefined;
}

/** Runs apt-get with `args` (its output on our stderr, stdout kept off the test report); true when it exits 0. */
function aptGet(args) {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error)
    process.stderr.write(`ensureNatsServer: apt-get ${args.join(' ')}: ${result.error.message}\n`);
  return result.status === 0;
}

if (findNatsServer() === undefined) {
  if (process.getuid?.() !== 0) {
    process.stderr.write(`${NEEDED}\n`);
    process.exit(1);
  }
  const install = ['install', '-y', '-qq', 'nats-server'];
  const installed = aptGet(install) || (aptGet(['update', '-qq']) && aptGet(install));
  if (!installed || findNatsServer() === undefined) {
    process.stderr.write(`${NEEDED}\n`);
    process.exit(1);
  }
}
