// The one refusal of a second daemon, whether `handoffd` itself or `baton daemon start`
// meets a running one (lib/cli maps it to its line and exit code).

/** Another handoffd holds the project's daemon lock. */
export class DaemonAlreadyRunning extends Error {
  constructor(readonly pid: number) {
    super(`handoffd: already running as pid ${pid}`);
  }
}
