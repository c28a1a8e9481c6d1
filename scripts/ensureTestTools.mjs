// Run by `npm test` (and the soak) before mocha: the programs the tests drive for real.
// - nats-server, for the bridge tests (Debian package `nats-server`, installed as
//   /usr/sbin/nats-server, which is not on a user's PATH);
// - chromium, for the web page's browser tests (Debian package `chromium`, /usr/bin/chromium,
//   driven by playwright-core: nothing is downloaded by npm);
// - sudo, through which `baton up --agents-user` starts the agents' panes.
// Each found on PATH or in the system folders: nothing to do. Else, as root, apt-get installs
// what is missing (`apt-get update` first only when the install fails: the package lists may
// be stale or absent in a fresh container); else exit 1 saying what to install. apt-get runs
// through spawnSync with an argument vector, never a shell.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

/** Each program the tests need: its Debian package and what needs it. */
const TOOLS = [
  { program: 'nats-server', pkg: 'nats-server', needer: 'the bridge tests' },
  { program: 'chromium', pkg: 'chromium', needer: "the web page's browser tests" },
  { program: 'sudo', pkg: 'sudo', needer: 'the tests of agents run as another user' },
];

/** The executable `program` on PATH or in the system folders, else undefined. */
function find(program) {
  const dirs = [
    ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/bin',
  ];
  for (const dir of dirs) {
    const path = resolve(dir, program);
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
    process.stderr.write(`ensureTestTools: apt-get ${args.join(' ')}: ${result.error.message}\n`);
  return result.status === 0;
}

const missing = TOOLS.filter((t) => find(t.program) === undefined);
const needed = () =>
  missing.map((t) => `${t.program} is needed by ${t.needer}: apt-get install ${t.pkg}`).join('\n');
if (missing.length > 0) {
  if (process.getuid?.() !== 0) {
    process.stderr.write(`${needed()}\n`);
    process.exit(1);
  }
  const install = ['install', '-y', '-qq', ...missing.map((t) => t.pkg)];
  const installed = aptGet(install) || (aptGet(['update', '-qq']) && aptGet(install));
  if (!installed || missing.some((t) => find(t.program) === undefined)) {
    process.stderr.write(`${needed()}\n`);
    process.exit(1);
  }
}
