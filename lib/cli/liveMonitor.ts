// `baton monitor` without --once: redraws the view every second until the user presses
// q (or Ctrl-C, which raw mode delivers as a key) or stdin ends; each view says how to quit.
// With --json it prints one JSON view per line instead, for scripts.
import { runsText, runsView } from '../run/record/runMonitor.js';
import { monitorText, monitorView } from '../swarm/monitor.js';

const QUIT_KEYS = new Set([0x71, 0x51, 0x03]); // q, Q, Ctrl-C

/** Runs the live monitor of `root` until a quit key; `write` prints to stdout. */
export async function liveMonitor(
  root: string,
  json: boolean,
  write: (text: string) => void,
): Promise<void> {
  const stdin = process.stdin;
  let quit = false;
  let wake = () => undefined as void;
  const onKey = (data: Buffer) => {
    if (![...data].some((byte) => QUIT_KEYS.has(byte))) return;
    quit = true;
    wake();
  };
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.on('data', onKey);
  stdin.resume();
  try {
    while (!quit) {
      const view = { ...(await monitorView(root)), runs: runsView(root) };
      write(
        json
          ? `${JSON.stringify(view)}\n`
          : `\x1b[H\x1b[2J${monitorText(view)}${runsText(view.runs)}\nPress q to quit.\n`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    stdin.off('data', onKey);
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
  }
}
