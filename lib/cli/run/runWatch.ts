// `baton run status --watch`: redraws the status (one run, or every run) whenever a
// record changes (a watch on the runs folder, and a poll every second for what a watch
// misses), until interrupted. On a terminal it clears the screen first; piped, it prints
// each new status as a JSON document. Read-only, like status.
import * as fs from 'node:fs';
import { runsDirOf } from '../../project/layout.js';
import { type RunContext } from '../../run/record/runContext.js';
import { statusOrList } from '../../run/record/runListing.js';

/** Prints the status now and after every change, until SIGINT/SIGTERM. */
export async function watchStatus(ctx: RunContext, runId: string | undefined): Promise<void> {
  let last = '';
  const draw = () => {
    const result = statusOrList(ctx, runId);
    const text = `${JSON.stringify(Array.isArray(result) ? result : result.status, null, 2)}\n`;
    if (text === last) return;
    last = text;
    process.stdout.write(process.stdout.isTTY ? `\x1b[H\x1b[2J${text}` : text);
  };
  draw();
  await new Promise<void>((done) => {
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(runsDirOf(ctx.root), { recursive: true }, () => draw());
    } catch {
      // no runs folder yet, or no recursive watch here: the poll still redraws
    }
    const timer = setInterval(draw, 1000);
    const stop = () => {
      clearInterval(timer);
      watcher?.close();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
