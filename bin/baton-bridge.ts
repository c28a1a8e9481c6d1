// The bridge and the NATS client as a bundle of their own (not a command: handoffd requires
// it when nodes.conf asks for a bridge, lib/daemon/bridgeStart.ts). About 550 KB that a
// daemon without a bridge, and every other command, never compiles.
export { Bridge } from '../lib/bridge/bridge.js';
