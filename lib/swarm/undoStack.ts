// What a command that fails half-way must take back, in reverse order of creation: `baton
// up` registers an undo step for each thing it starts or creates (worktrees, the tmux
// server, the files that record it, the daemon) and runs them all when a later step fails.
// An undo step that fails is reported and the others still run: the original failure is
// what the user needs to see.

/** Undo steps, run last-in first-out. */
export class UndoStack {
  private readonly steps: { what: string; undo: () => Promise<void> | void }[] = [];

  /** Registers how to take back `what`. */
  push(what: string, undo: () => Promise<void> | void): void {
    this.steps.push({ what, undo });
  }

  /** Runs every step, last first; returns one line per step that failed. */
  async run(): Promise<string[]> {
    const failures: string[] = [];
    for (const step of this.steps.reverse()) {
      try {
        await step.undo();
      } catch (err) {
        failures.push(`could not undo ${step.what}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    this.steps.length = 0;
    return failures;
  }
}
