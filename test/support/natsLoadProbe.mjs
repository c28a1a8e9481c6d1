// Run as `node --import tsx natsLoadProbe.mjs ROOT`: calls handoffd's startBridgeOf on ROOT
// (lib/daemon/bridgeStart.ts, through tsx) and prints, as one JSON line, whether a bridge
// was started and how many modules of the NATS client (@nats-io/*) this process loaded by
// then. The client's packages are CommonJS, so every file of theirs that was loaded, by an
// import or a require, is in the shared require cache.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = process.argv[2];
const { startBridgeOf } = await import(
  fileURLToPath(new URL('../../lib/daemon/bridgeStart.ts', import.meta.url))
);
const bridge = await startBridgeOf(root, { write: () => undefined }, () => undefined);
const nats = Object.keys(createRequire(import.meta.url).cache).filter((path) =>
  path.includes('/@nats-io/'),
);
process.stdout.write(
  `${JSON.stringify({ started: bridge !== undefined, natsModules: nats.length })}\n`,
);
await bridge?.close();
