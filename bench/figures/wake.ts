// Figure 7: the cost of one wake-up, wake() (literal send-keys, then Enter: two tmux
// client runs) against a private tmux server with a `cat` pane, vs one tmux client run
// (`tmux -S <socket> display-message -p x`, execFile). No fixed goal: a wake-up should
// cost about two client runs, since that is what it is.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { wake, WAKE_TEXT } from '../../lib/daemon/waker.js';
import { swarmDirOf } from '../../lib/project/layout.js';
import { startPanes } from '../../test/support/daemon.js';
import { tempDir } from '../../test/support/project.js';
import { Cleanups } from '../support/cleanups.js';
import { interleave } from '../support/interleave.js';
import { figureOf, info, printFigure, printHeading, type Figure } from '../support/report.js';
import { summarize } from '../support/stats.js';

const WARMUP = 5;
const RUNS = 50;

/** One tmux client run, as the adapter runs tmux (execFile, argument vector). */
function displayMessage(socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      ['-S', socket, 'display-message', '-p', 'x'],
      { encoding: 'utf8', timeout: 10_000 },
      (err, stdout) => {
        if (err) reject(err);
        else if (stdout !== 'x\n')
          reject(new Error(`display-message printed ${JSON.stringify(stdout)}`));
        else resolve();
      },
    );
  });
}

/** Measures wake() against a single tmux client run, interleaved. */
export async function benchWake(): Promise<Figure[]> {
  printHeading('7. Wake-up: wake() (send-keys -l, then Enter) vs one tmux client run');
  const cleanups = new Cleanups();
  try {
    const root = tempDir('baton-bench-wake-');
    cleanups.add(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.mkdirSync(swarmDirOf(root), { mode: 0o700 });
    const panes = await startPanes(root, ['reviewer']);
    cleanups.add(() => panes.kill());
    const target = { socket: panes.tmux.socket, target: panes.panes.get('reviewer')! };
    const [wakeMs, clientMs] = await interleave(
      [
        { name: 'wake()', run: () => wake(target) },
        { name: 'display-message', run: () => displayMessage(target.socket) },
      ],
      WARMUP,
      RUNS,
    );
    const figure = figureOf(
      '7',
      'wake-up: wake() into a cat pane',
      summarize(wakeMs!),
      'tmux display-message -p x (execFile)',
      summarize(clientMs!),
      info('≈ 2×'),
    );
    printFigure(figure);
    if (!(await panes.tmux.capturePane(target.target)).includes(WAKE_TEXT))
      throw new Error('the wake-up text never reached the pane');
    return [figure];
  } finally {
    await cleanups.run();
  }
}
