// The rule every role name follows (swarmforge.conf, roles.tsv, recipients).

/** `^[A-Za-z][A-Za-z0-9-]*$`, at most 32 characters. */
export function isValidRoleName(name: string): boolean {
  return name.length <= 32 && /^[A-Za-z][A-Za-z0-9-]*$/.test(name);
}

/** The two receive modes. */
export type ReceiveMode = 'task' | 'batch';
