// Ready before the first wake-up (docs/runtime.md §12.1): after typing the launch lines,
// `baton up` watches each role's pane until its agent is ready, and handoffd wakes no role
// until then (lib/project/launchHold.ts). An agent is ready when
// - its SessionStart hook wrote the role's observation file after the launch (the hook's
//   own sign that the session runs), or
// - a program other than the pane's shell is in the foreground and the pane's text has not
//   changed for 3 s (an agent without hooks, drawn and waiting), or
// - it is one of Baton's own programs (the scripted agents, `baton run drive`): they take no
//   typed prompt and read the terminal from their first instant, so nothing is lost.
// A first prompt typed but not submitted (the Enter eaten while the program started) still
// shows on the pane's input line, its last non-blank line, 5 s after the launch: it gets one
// Enter in that same pane, and only when the pane has been still for a second (an agent
// typing gets none). Never a second Enter: a prompt still there after it keeps the role not
// ready. A role with a first prompt is not called ready before those 5 s have passed, so the
// check is made. Past the ready timeout the role is reported not ready, with the reason,
// and the swarm goes on. The decisions are a pure step over what one look saw
// (readinessStep); awaitReadiness does the looking.
import { type Tmux } from '../adapters/tmux.js';
import { readAgentReport } from '../project/agentObservation.js';
import { releaseWakeups } from '../project/launchHold.js';
import { printable } from '../fsx/printable.js';

/** The default of --ready-timeout (ms). */
export const DEFAULT_READY_TIMEOUT_MS = 120_000;
/** How long a pane must be still to count as an agent waiting (ms). */
export const QUIET_MS = 3_000;
/** How long after the launch a first prompt still on the input line counts as stalled (ms). */
export const STALL_MS = 5_000;
/** How long a pane must be still before it is given the Enter (ms). */
export const IDLE_FOR_ENTER_MS = 1_000;
/** How often the panes are looked at (ms). */
const LOOK_EVERY_MS = 250;

/** What is watched of one role while its agent starts. */
export interface ReadinessWatch {
  role: string;
  pane: string;
  /** The foreground program of the pane before the launch: its shell ('sh', 'bash', …). */
  shell: string;
  /** When the launch line was submitted (epoch ms). */
  launchedAt: number;
  /** The first prompt's last non-blank line, trimmed; undefined when there is no prompt. */
  promptTail?: string;
  /** One of Baton's own programs (ready once launched). */
  ownProgram: boolean;
}

/** One look at the pane, and at what the role's hooks last wrote. */
export interface PaneLook {
  at: number;
  /** The pane's foreground program as tmux names it. */
  command: string;
  dead: boolean;
  text: string;
  /** When the role's hooks last wrote its observation file (epoch ms), if ever. */
  reportedAt?: number;
}

/** How a role was found ready. */
export type ReadySign = 'hook' | 'quiet' | 'baton-program';

/** What the step remembers of a role between looks. */
export interface WatchState {
  text?: string;
  changedAt: number;
  /** Since when a program other than the shell has been in the foreground. */
  agentSince?: number;
  enterSentAt?: number;
}

/** A role's outcome. */
export interface Readiness {
  role: string;
  pane: string;
  ready: boolean;
  /** How it was found ready (null when it was not). */
  sign: ReadySign | null;
  /** True when its stalled first prompt was given the one Enter. */
  enter_sent: boolean;
  /** Milliseconds from the launch to the verdict. */
  after_ms: number;
  /** Why it is not ready (null when it is). */
  reason: string | null;
}

/** The first prompt's last non-blank line, trimmed (what its input line ends with). */
export function promptTailOf(prompt: string): string | undefined {
  const lines = prompt.split('\n').map((l) => l.trim());
  return lines.filter(Boolean).pop();
}

function lastNonBlankLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l.trim() !== '')
      .pop() ?? ''
  );
}

/**
 * One look's decisions for a role: whether to press the one Enter now, and the sign it is
 * ready by (undefined while it is not). Updates `state`.
 */
export function readinessStep(
  watch: ReadinessWatch,
  state: WatchState,
  look: PaneLook,
): { enter: boolean; ready?: ReadySign } {
  if (watch.ownProgram) return { enter: false, ready: 'baton-program' };
  if (look.text !== state.text) {
    state.text = look.text;
    state.changedAt = look.at;
  }
  const agentRunning = !look.dead && look.command !== watch.shell;
  if (!agentRunning) state.agentSince = undefined;
  else state.agentSince ??= look.at;
  const sinceLaunch = look.at - watch.launchedAt;
  const showsPrompt =
    watch.promptTail !== undefined && lastNonBlankLine(look.text).endsWith(watch.promptTail);
  if (
    showsPrompt &&
    agentRunning &&
    state.enterSentAt === undefined &&
    sinceLaunch >= STALL_MS &&
    look.at - state.changedAt >= IDLE_FOR_ENTER_MS
  ) {
    state.enterSentAt = look.at;
    state.changedAt = look.at;
    return { enter: true };
  }
  if (showsPrompt || (watch.promptTail !== undefined && sinceLaunch < STALL_MS))
    return { enter: false };
  if (look.reportedAt !== undefined && look.reportedAt >= watch.launchedAt)
    return { enter: false, ready: 'hook' };
  if (
    state.agentSince !== undefined &&
    look.at - Math.max(state.changedAt, state.agentSince) >= QUIET_MS
  )
    return { enter: false, ready: 'quiet' };
  return { enter: false };
}

/** Why a role that was never found ready is not: in words for the owner. */
export function notReadyReason(watch: ReadinessWatch, state: WatchState, look: PaneLook): string {
  if (look.dead) return 'its pane is dead';
  if (state.agentSince === undefined)
    return `its agent did not start (the pane still runs ${printable(look.command)})`;
  if (watch.promptTail !== undefined && lastNonBlankLine(look.text).endsWith(watch.promptTail))
    return state.enterSentAt === undefined
      ? 'its first prompt is still not submitted'
      : 'its first prompt is still not submitted after one Enter';
  return 'its hooks said nothing and its pane never went quiet';
}

/**
 * Watches the roles' panes until each agent is ready or `timeoutMs` has passed since its
 * launch; releases each role's wake-up hold as its verdict comes (ready or not).
 */
export async function awaitReadiness(
  root: string,
  tmux: Tmux,
  watches: readonly ReadinessWatch[],
  timeoutMs: number,
): Promise<Readiness[]> {
  const states = new Map(watches.map((w) => [w.role, { changedAt: w.launchedAt } as WatchState]));
  const verdicts = new Map<string, Readiness>();
  const settle = (w: ReadinessWatch, at: number, sign: ReadySign | null, reason: string | null) => {
    releaseWakeups(root, w.role);
    verdicts.set(w.role, {
      role: w.role,
      pane: w.pane,
      ready: sign !== null,
      sign,
      enter_sent: states.get(w.role)!.enterSentAt !== undefined,
      after_ms: Math.max(0, at - w.launchedAt),
      reason,
    });
  };
  for (;;) {
    const pending = watches.filter((w) => !verdicts.has(w.role));
    if (pending.length === 0) break;
    const panes = new Map((await tmux.listPanes()).map((p) => [p.id, p]));
    for (const w of pending) {
      const info = panes.get(w.pane);
      const at = Date.now();
      const report = readAgentReport(root, w.role);
      const look: PaneLook = {
        at,
        command: info?.command ?? '',
        dead: info === undefined || info.dead,
        text: info === undefined ? '' : await tmux.capturePane(w.pane),
        reportedAt: report ? Date.parse(report.at) : undefined,
      };
      const state = states.get(w.role)!;
      const step = readinessStep(w, state, look);
      if (step.enter) await tmux.sendEnter(w.pane);
      if (step.ready) settle(w, at, step.ready, null);
      else if (at - w.launchedAt >= timeoutMs) settle(w, at, null, notReadyReason(w, state, look));
    }
    if (watches.some((w) => !verdicts.has(w.role)))
      await new Promise((r) => setTimeout(r, LOOK_EVERY_MS));
  }
  return watches.map((w) => verdicts.get(w.role)!);
}
