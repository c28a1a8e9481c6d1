// Starts handoffd's bridge when the project has a roster (docs/bridge.md §1): without
// swarmforge/nodes.conf nothing here loads the NATS client (the bridge is imported on this
// path only, so a bundled handoffd keeps it in a chunk of its own). An invalid roster or an
// unknown local node stops handoffd before it starts (exit 1, the roster's own errors).
import * as fs from 'node:fs';
import type { Bridge } from '../bridge/bridge.js';
import { bridgeSettingsOf } from '../bridge/bridgeSettings.js';
import { bridgePathsOf } from '../project/layout.js';
import { localNodeOf, readRoster } from '../handoff/roster.js';
import { type DaemonLog } from './log.js';

/** The started bridge of ROOT, or undefined without a roster. */
export async function startBridgeOf(
  root: string,
  log: DaemonLog,
  notify: () => void,
): Promise<Bridge | undefined> {
  const paths = bridgePathsOf(root);
  const roster = readRoster(root);
  if (!roster) return undefined;
  const node = localNodeOf(root, roster);
  const credentials = roster.credentials ? fs.readFileSync(roster.credentials, 'utf8') : '';
  const { Bridge: BridgeClass } = await import('../bridge/bridge.js');
  const bridge = new BridgeClass(
    { roster, node, credentials, settings: bridgeSettingsOf(), reportPath: paths.state },
    { log: (event, details) => log.write(event, details), notify },
  );
  bridge.start();
  return bridge;
}
