// How the hooks count handoffs in words.

/**
 * `1 handoff` / `3 handoffs`, followed by the verb agreeing with it (`waits` / `wait`) when `verb`
 * is given.
 */
export function handoffCount(n: number, verb?: 'wait'): string {
  const noun = `${n} handoff${n === 1 ? '' : 's'}`;
  return verb === undefined ? noun : `${noun} ${n === 1 ? 'waits' : 'wait'}`;
}
