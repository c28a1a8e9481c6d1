// Fault injection: BATON_CRASH_AT=<step>[#<n>] kills this process with SIGKILL the n-th
// time (default the first) execution reaches <step>. Tests use it to prove that every
// atomic step can be interrupted and the next call still ends in a valid state.
const [crashStep, crashNth] = (process.env.BATON_CRASH_AT ?? '').split('#');
const crashTarget = Number(crashNth ?? '1');
let crashHits = 0;

/** Marks a step boundary; dies there with SIGKILL when BATON_CRASH_AT names it. */
export function crashPoint(step: string): void {
  if (!crashStep || step !== crashStep) return;
  crashHits += 1;
  if (crashHits === crashTarget) process.kill(process.pid, 'SIGKILL');
}
