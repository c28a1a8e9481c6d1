// Fault injection: BATON_CRASH_AT=<step>[#<n>] kills this process with SIGKILL the n-th
// time (default the first) execution reaches <step>. Tests use it to prove that every
// atomic step can be interrupted and the next call still ends in a valid state.
// BATON_FAIL_AT=<step> makes a step throw instead (an error, not a kill): tests use it to
// prove that a command which fails half-way takes back what it started.
const [crashStep, crashNth] = (process.env.BATON_CRASH_AT ?? '').split('#');
const crashTarget = Number(crashNth ?? '1');
let crashHits = 0;

/** Marks a step boundary; dies there with SIGKILL when BATON_CRASH_AT names it. */
export function crashPoint(step: string): void {
  if (!crashStep || step !== crashStep) return;
  crashHits += 1;
  if (crashHits === crashTarget) process.kill(process.pid, 'SIGKILL');
}

/** Marks a step that can fail; throws there when BATON_FAIL_AT names it. */
export function failPoint(step: string): void {
  if (process.env.BATON_FAIL_AT === step) throw new Error(`failing at ${step} (BATON_FAIL_AT)`);
}
