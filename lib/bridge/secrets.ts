// Credentials never reach a log line, bridge.json or `--json` (docs/bridge.md §4). The
// bridge reads the credentials file itself and passes its bytes to the client only; every
// text it writes out goes through redactSecrets first, which removes the file's content
// (each line of it) and anything shaped like a NATS JWT or an nkey seed, should an error
// message of the client or the server quote one.

const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const SEED = /\bS[ONACPUX][A-Z2-7]{40,}\b/g;

/**
 * `text` with every secret line of `secretText` and every JWT- or seed-shaped token replaced by
 * `[redacted]`.
 */
export function redactSecrets(text: string, secretText = ''): string {
  let out = text;
  for (const line of secretText.split('\n').map((l) => l.trim())) {
    if (line.length >= 8 && !line.startsWith('---') && !line.startsWith('*'))
      out = out.split(line).join('[redacted]');
  }
  return out.replace(JWT, '[redacted]').replace(SEED, '[redacted]');
}
