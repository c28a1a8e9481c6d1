// Undoing what a benchmark set up (processes, tmux servers, temp dirs) in reverse order,
// every step attempted even when an earlier one fails.

/** A stack of clean-up steps. */
export class Cleanups {
  private readonly steps: (() => Promise<unknown> | unknown)[] = [];

  /** Adds a step; steps run last-added first. */
  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }

  /** Runs every step; throws the first failure after all have run. */
  async run(): Promise<void> {
    let first: unknown;
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        first ??= err;
      }
    }
    if (first !== undefined) throw first;
  }
}
