// The raw watcher baseline of the delivery-latency figure, run as a child process like
// handoffd: `node --import tsx bench/support/rawWatcher.ts <outbox> <sent> <tmp> <new-dir>...`.
// fs.watch on the outbox, and on every event a synchronous rawDeliverAll, so no event is
// lost while a delivery runs (events queue until the loop is free). Prints `ready` once
// watching and `delivered <name>` after each delivery's last fsync. Ends on SIGTERM.
import * as fs from 'node:fs';
import { rawDeliverAll } from './baselines.js';

const [outbox, sent, tmp, ...newDirs] = process.argv.slice(2);
if (!outbox || !sent || !tmp || newDirs.length === 0) {
  process.stderr.write('usage: rawWatcher.ts <outbox> <sent> <tmp> <new-dir>...\n');
  process.exit(1);
}

function drain(): void {
  for (const name of rawDeliverAll(outbox!, sent!, newDirs, tmp!))
    process.stdout.write(`delivered ${name}\n`);
}

fs.watch(outbox, drain);
drain();
process.stdout.write('ready\n');
