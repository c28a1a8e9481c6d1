// The raw baseline of the review-latency figure, run as a child process like a teacher:
// `node --import tsx bench/support/rawSpawner.ts <dir> <reviewer argv...>`. fs.watch on
// `dir`; each complete file that appears is read, removed, and handed to a new reviewer
// process (spawned with its argv, detached, the file's bytes on stdin): no queue, no claim,
// no bookbag, no prompt. Prints `ready` once watching and `exited <name>` when the reviewer
// of `<name>` has exited. Ends on SIGTERM.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';

const [dir, ...argv] = process.argv.slice(2);
if (!dir || argv.length === 0) {
  process.stderr.write('usage: rawSpawner.ts <dir> <reviewer argv...>\n');
  process.exit(1);
}

const seen = new Set<string>();
function look(): void {
  for (const name of fs.readdirSync(dir!)) {
    if (seen.has(name)) continue;
    seen.add(name);
    const prompt = fs.readFileSync(join(dir!, name));
    fs.unlinkSync(join(dir!, name));
    const reviewer = spawn(argv[0]!, argv.slice(1), {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    reviewer.stdin.end(prompt);
    reviewer.on('exit', () => process.stdout.write(`exited ${name}\n`));
  }
}

fs.watch(dir, look);
look();
process.stdout.write('ready\n');
