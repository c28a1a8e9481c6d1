#!/usr/bin/env node
// A stand-in for a real agent program (claude, codex, ... or any name it is linked as):
// records what it was started with, `<name>.<role>.json` in $BATON_STANDIN_DIR (name,
// argv, cwd, its pid and the SWARMFORGE_* environment, written atomically), then stays alive
// like an agent until its terminal closes, appending what is typed to it (a wake-up) to
// `<name>.<role>.<pid>.input`; with BATON_STANDIN_IGNORE_TERM=1 it ignores SIGTERM
// (an agent that will not stop). Plain JavaScript: it runs in panes without tsx.
import * as fs from 'node:fs';
import { basename, join } from 'node:path';

const dir = process.env.BATON_STANDIN_DIR;
const name = basename(process.argv[1] ?? 'agent');
const role = process.env.SWARMFORGE_ROLE ?? 'none';
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.startsWith('SWARMFORGE_')),
);
if (dir) {
  const path = join(dir, `${name}.${role}.json`);
  fs.writeFileSync(
    `${path}.tmp`,
    JSON.stringify({
      name,
      argv: process.argv.slice(2),
      cwd: process.cwd(),
      pid: process.pid,
      env,
    }),
  );
  fs.renameSync(`${path}.tmp`, path);
}
if (process.env.BATON_STANDIN_IGNORE_TERM === '1') process.on('SIGTERM', () => {});
process.stdin.resume();
process.stdin.on('data', (chunk) => {
  if (dir) fs.appendFileSync(join(dir, `${name}.${role}.${process.pid}.input`), chunk);
});
process.stdin.on('end', () => process.exit(0));
