// The `baton run` actions that are the owner's decisions (docs/runtime.md §11.7), apart from
// their code so that the command line can tell them without loading it.

/** The actions that are the owner's decisions: refused from inside the swarm. */
export const OWNER_ACTIONS: ReadonlySet<string> = new Set([
  'start',
  'new',
  'pause',
  'resume',
  'retry',
  'request-changes',
  'approve',
  'cancel',
  'fail',
  'answer',
]);
