// The only module that runs tmux. Every call is `tmux -S <socket> <args...>` through
// execFile with an argument vector (never a shell), so a private server is addressed by
// its socket path and nothing is ever interpreted by /bin/sh.
// node:child_process is loaded at the first call (agent commands that wake nobody never load it).
import { processRunning } from '../fsx/processIdentity.js';
import { until } from '../proc/ending.js';

/** A failed tmux call: the arguments and what tmux said. */
export class TmuxError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`tmux ${args.join(' ')}: ${stderr.trim() || `exit ${exitCode}`}`);
  }
}

/** One pane as tmux reports it. */
export interface PaneInfo {
  id: string;
  session: string;
  window: string;
  command: string;
  pid: number;
  dead: boolean;
}

/** Options of a new session or window. */
export interface StartOptions {
  name: string;
  cwd: string;
  env?: Record<string, string>;
  /** Program and arguments to run instead of the default shell. */
  command?: string[];
}

const PANE_FORMAT =
  '#{pane_id}\t#{session_name}\t#{window_name}\t#{pane_current_command}\t#{pane_pid}\t#{pane_dead}';

/** A tmux server addressed by its socket path. */
export class Tmux {
  constructor(readonly socket: string) {}

  /** Runs one tmux command; resolves with stdout, rejects with TmuxError. */
  run(args: string[]): Promise<string> {
    const argv = ['-S', this.socket, ...args];
    return new Promise((resolve, reject) => {
      process
        .getBuiltinModule('node:child_process')
        .execFile('tmux', argv, { encoding: 'utf8', timeout: 10_000 }, (err, stdout, stderr) => {
          if (err)
            reject(
              new TmuxError(
                args,
                stderr || err.message,
                typeof err.code === 'number' ? err.code : null,
              ),
            );
          else resolve(stdout);
        });
    });
  }

  private envArgs(env: Record<string, string> | undefined): string[] {
    return Object.entries(env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  }

  /** Starts a detached session (and the server if needed); returns the first pane's id. */
  async newSession(
    options: StartOptions & { window: string; width?: number; height?: number },
  ): Promise<string> {
    const out = await this.run([
      'new-session',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-s',
      options.name,
      '-n',
      options.window,
      '-c',
      options.cwd,
      '-x',
      String(options.width ?? 200),
      '-y',
      String(options.height ?? 50),
      ...this.envArgs(options.env),
      ...(options.command ?? []),
    ]);
    return out.trim();
  }

  /** Adds a window to a session; returns its pane's id. */
  async newWindow(session: string, options: StartOptions): Promise<string> {
    const out = await this.run([
      'new-window',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-t',
      `${session}:`,
      '-n',
      options.name,
      '-c',
      options.cwd,
      ...this.envArgs(options.env),
      ...(options.command ?? []),
    ]);
    return out.trim();
  }

  /**
   * Types text literally into a pane (no key names interpreted, no Enter). `--` keeps a
   * leading `-` from being read as a flag; a trailing `;` would end the tmux command, so
   * it is escaped.
   */
  async sendLiteral(target: string, text: string): Promise<void> {
    await this.run([
      'send-keys',
      '-t',
      target,
      '-l',
      '--',
      text.endsWith(';') ? `${text.slice(0, -1)}\\;` : text,
    ]);
  }

  /** Presses Enter once in a pane. */
  async sendEnter(target: string): Promise<void> {
    await this.run(['send-keys', '-t', target, 'Enter']);
  }

  /** The visible text of a pane (wrapped lines joined). */
  async capturePane(target: string): Promise<string> {
    return this.run(['capture-pane', '-p', '-J', '-t', target]);
  }

  /** Every pane of the server (or of one session). */
  async listPanes(session?: string): Promise<PaneInfo[]> {
    const out = await this.run([
      'list-panes',
      ...(session ? ['-s', '-t', session] : ['-a']),
      '-F',
      PANE_FORMAT,
    ]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [id, sessionName, window, command, pid, dead] = line.split('\t');
        return {
          id: id!,
          session: sessionName!,
          window: window!,
          command: command!,
          pid: Number(pid),
          dead: dead === '1',
        };
      });
  }

  /** Formats a message for a target (`display-message -p`), e.g. '#{pane_current_command}'. */
  async display(target: string, format: string): Promise<string> {
    return (await this.run(['display-message', '-p', '-t', target, format])).replace(/\n$/, '');
  }

  /** True when the session exists on this server. */
  async hasSession(name: string): Promise<boolean> {
    try {
      await this.run(['has-session', '-t', `=${name}`]);
      return true;
    } catch (err) {
      if (err instanceof TmuxError) return false;
      throw err;
    }
  }

  /**
   * Stops the server and every pane's process, and returns once they are gone (up to `waitMs`):
   * kill-server only asks, and a caller that reports "stopped" (baton down, the demo) must not
   * leave the server or a pane's program running behind it. True when a server was running (one
   * already gone is not an error).
   */
  async killServer(waitMs = 5_000): Promise<boolean> {
    let pids: number[];
    try {
      const server = Number(await this.run(['display-message', '-p', '#{pid}']));
      pids = [server, ...(await this.listPanes()).map((p) => p.pid)];
      await this.run(['kill-server']);
    } catch (err) {
      if (!(err instanceof TmuxError)) throw err;
      return false;
    }
    await until(() => !pids.some((pid) => pid > 0 && processRunning(pid)), waitMs);
    return true;
  }
}

/**
 * Attaches the calling terminal to a session on `socket` (blocks until detach); resolves with
 * tmux's exit code.
 */
export function attachSession(socket: string, session: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = process
      .getBuiltinModule('node:child_process')
      .spawn('tmux', ['-S', socket, 'attach-session', '-t', session], {
        stdio: 'inherit',
      });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}
