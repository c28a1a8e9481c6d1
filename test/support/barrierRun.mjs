// Runs a built bin after a barrier, for races: prints READY, waits for one byte on stdin,
// then runs `<bin.js> args...` in this very process. A parent that starts several of these,
// waits for every READY and then writes to all their stdins releases them at one instant.
// Plain JavaScript (no tsx), so a racer starts as fast as the bin itself.
import { pathToFileURL } from 'node:url';

const [bin, ...args] = process.argv.slice(2);
process.stdin.once('data', async () => {
  process.stdin.pause();
  process.argv = [process.argv[0], bin, ...args];
  await import(pathToFileURL(bin).href);
});
process.stdout.write('READY\n');
