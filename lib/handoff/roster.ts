// The roster of a swarm across machines, `swarmforge/nodes.conf` (docs/bridge.md §1),
// committed and the same on every node:
//   swarm <name>                          once; ^[a-z][a-z0-9-]{0,31}$
//   nats <url>[,<url>...]                 once; nats://host:port or tls://host:port
//   credentials <path>                    optional, once; absolute or relative to ROOT
//   replicas <1|3|5>                      optional, once (default 1): the stream's, its
//                                         consumers' and the owners' bucket's replica count
//   node <node-name> <role>[,<role>...]   one line per node; every role of swarmforge.conf
//                                         on exactly one node
// Blank lines and lines starting with `#` are ignored; directives may come in any order.
// Every error is `nodes.conf:<line>: <rule>` (the file's base name) and all are reported at
// once. What is missing rather than wrong (no swarm line, no nats line, a role on no node)
// has no line of its own: it is reported at the file's last non-blank line, where one
// would add it (line 1 for an empty file). The credentials file is checked to exist and
// never read; its path may be shown, its content never. Nothing here loads NATS.
import { readTextIfPresent } from '../fsx/absent.js';
import * as fs from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { readConfig } from './config.js';
import { fail } from '../fsx/commandFailure.js';
import { bridgePathsOf } from '../project/layout.js';

/** The roster of a swarm across machines (swarmforge/nodes.conf). */
export interface Roster {
  file: string; // absolute path of nodes.conf
  swarm: string; // ^[a-z][a-z0-9-]{0,31}$
  urls: string[]; // nats://host:port or tls://host:port, port required
  credentials?: string; // absolute path (relative ones resolved against ROOT); the file must exist
  replicas: number; // 1, 3 or 5 (1 without a replicas line); the server decides if it can hold it
  nodes: Map<string, string[]>; // node name -> its roles, in file order
  nodeOfRole: Map<string, string>; // role -> node
}

/** The rule for swarm and node names. */
const NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** scheme, then a host name, an IPv4 address or a bracketed IPv6 address, then an explicit port. */
const HOST_FORM = '(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+\\])';
const URL_FORM = new RegExp(`^(?:nats|tls)://${HOST_FORM}:([1-9][0-9]{0,4})$`);

const DIRECTIVES =
  "expected 'swarm <name>', 'nats <url>[,<url>...]', " +
  "'credentials <path>', 'replicas <1|3|5>' or 'node <node-name> " +
  "<role>[,<role>...]'";

/** What has been read so far, and the errors found. */
interface Parse {
  root: string;
  configRoles: Set<string>;
  errors: string[];
  swarm?: { line: number; name: string };
  nats?: { line: number; urls: string[] };
  credentials?: { line: number; path: string };
  replicas?: { line: number; count: number };
  nodeLines: Map<string, number>;
  nodes: Map<string, string[]>;
  nodeOfRole: Map<string, string>;
  /**
   * Every role named on a node line, valid or not: a role named somewhere is not also reported as
   * on no node.
   */
  mentioned: Set<string>;
}

type Report = (rule: string) => void;

/** True for `nats://host:port` or `tls://host:port` with a port from 1 to 65535. */
function isNatsUrl(url: string): boolean {
  const port = URL_FORM.exec(url)?.[1];
  return port !== undefined && Number(port) <= 65535;
}

/** The text after the directive's keyword, trimmed. */
function argumentOf(trimmed: string, keyword: string): string {
  return trimmed.slice(keyword.length).trim();
}

function swarmLine(parse: Parse, line: number, trimmed: string, err: Report): void {
  if (parse.swarm) return err(`swarm is already set on line ${parse.swarm.line}`);
  const fields = argumentOf(trimmed, 'swarm').split(/\s+/);
  parse.swarm = { line, name: fields[0]! };
  if (fields.length !== 1 || fields[0] === '') err("a swarm line is 'swarm <name>'");
  else if (!NAME.test(fields[0]!)) err(`swarm name '${fields[0]}' must match ${NAME.source}`);
}

function natsLine(parse: Parse, line: number, trimmed: string, err: Report): void {
  if (parse.nats) return err(`nats is already set on line ${parse.nats.line}`);
  const text = argumentOf(trimmed, 'nats');
  const urls = text.split(',').map((u) => u.trim());
  parse.nats = { line, urls };
  if (text === '') return err("a nats line is 'nats <url>[,<url>...]'");
  for (const url of urls.filter((u) => !isNatsUrl(u)))
    err(
      `nats URL '${url}' must be nats://host:port or tls://host:port with a port from 1 to 65535`,
    );
}

function credentialsLine(parse: Parse, line: number, trimmed: string, err: Report): void {
  if (parse.credentials) return err(`credentials is already set on line ${parse.credentials.line}`);
  const written = argumentOf(trimmed, 'credentials');
  if (written === '') return err("a credentials line is 'credentials <path>'");
  const path = isAbsolute(written) ? written : resolve(parse.root, written);
  parse.credentials = { line, path };
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    return err(
      `credentials file '${path}' cannot be checked: ` +
        `${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  if (stat === undefined) err(`credentials file '${path}' does not exist`);
  else if (!stat.isFile()) err(`credentials '${path}' is not a file`);
}

/** The replica counts a line may ask for: odd, so that a majority of the servers stays a quorum. */
const REPLICA_COUNTS = ['1', '3', '5'];

function replicasLine(parse: Parse, line: number, trimmed: string, err: Report): void {
  if (parse.replicas) return err(`replicas is already set on line ${parse.replicas.line}`);
  const fields = argumentOf(trimmed, 'replicas').split(/\s+/);
  if (fields.length !== 1 || fields[0] === '') return err("a replicas line is 'replicas <1|3|5>'");
  if (!REPLICA_COUNTS.includes(fields[0]!))
    return err(`replicas must be 1, 3 or 5, not '${fields[0]}'`);
  parse.replicas = { line, count: Number(fields[0]) };
}

/** Checks the roles of one node line and records the valid ones. */
function nodeRoles(parse: Parse, node: string, line: number, listed: string[], err: Report): void {
  const roles: string[] = [];
  if (listed.includes('')) err(`node ${node} lists an empty role (a comma too many)`);
  for (const role of listed.filter((r) => r !== '')) {
    parse.mentioned.add(role);
    const other = parse.nodeOfRole.get(role);
    if (!parse.configRoles.has(role))
      err(`unknown role ${role}: swarmforge.conf has no window for it`);
    else if (roles.includes(role)) err(`role ${role} is listed twice on node ${node}`);
    else if (other !== undefined)
      err(
        `role ${role} is on two nodes: ${other} (line ${parse.nodeLines.get(other)}) and ${node}`,
      );
    else {
      roles.push(role);
      parse.nodeOfRole.set(role, node);
    }
  }
  parse.nodes.set(node, roles);
  parse.nodeLines.set(node, line);
}

function nodeLine(parse: Parse, line: number, trimmed: string, err: Report): void {
  const [, node, rest] = /^node(?:\s+(\S+))?(?:\s+(.*))?$/.exec(trimmed) ?? [];
  if (node === undefined) return err("a node line is 'node <node-name> <role>[,<role>...]'");
  const listed = (rest ?? '').split(',').map((r) => r.trim());
  const earlier = parse.nodeLines.get(node);
  if (earlier !== undefined) {
    for (const role of listed) parse.mentioned.add(role);
    return err(`node ${node} is already defined on line ${earlier}`);
  }
  if (!NAME.test(node)) err(`node name '${node}' must match ${NAME.source}`);
  if (listed.every((r) => r === '')) {
    parse.nodeLines.set(node, line);
    return err(`node ${node} has no roles`);
  }
  nodeRoles(parse, node, line, listed, err);
}

const LINES: Record<string, (parse: Parse, line: number, trimmed: string, err: Report) => void> = {
  swarm: swarmLine,
  nats: natsLine,
  credentials: credentialsLine,
  replicas: replicasLine,
  node: nodeLine,
};

/**
 * The errors for what the file lacks (swarm, nats, a role on no node), at its last non-blank line.
 */
function missingParts(parse: Parse, lines: string[], name: string): void {
  const last = lines.reduce((found, l, index) => (l.trim() === '' ? found : index + 1), 1);
  const err = (rule: string) => void parse.errors.push(`${name}:${last}: ${rule}`);
  if (!parse.swarm) err("no swarm line; add 'swarm <name>'");
  if (!parse.nats) err("no nats line; add 'nats nats://host:port'");
  for (const role of parse.configRoles)
    if (!parse.mentioned.has(role)) err(`role ${role} is on no node`);
}

/**
 * Parses nodes.conf text; `file` is its absolute path (errors name its base name), `roles` those of
 * swarmforge.conf, `root` resolves a relative credentials path.
 */
export function parseRoster(
  text: string,
  file: string,
  roles: string[],
  root: string,
): { ok: true; roster: Roster } | { ok: false; errors: string[] } {
  const name = basename(file);
  const parse: Parse = {
    root,
    configRoles: new Set(roles),
    errors: [],
    nodeLines: new Map(),
    nodes: new Map(),
    nodeOfRole: new Map(),
    mentioned: new Set(),
  };
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const err = (rule: string) => void parse.errors.push(`${name}:${index + 1}: ${rule}`);
    const keyword = trimmed.split(/\s+/)[0]!;
    const read = Object.hasOwn(LINES, keyword) ? LINES[keyword] : undefined;
    if (read) read(parse, index + 1, trimmed, err);
    else err(`unknown directive '${keyword}'; ${DIRECTIVES}`);
  });
  missingParts(parse, lines, name);
  if (parse.errors.length > 0) return { ok: false, errors: parse.errors };
  const roster: Roster = {
    file,
    swarm: parse.swarm!.name,
    urls: parse.nats!.urls,
    replicas: parse.replicas?.count ?? 1,
    nodes: parse.nodes,
    nodeOfRole: parse.nodeOfRole,
  };
  if (parse.credentials) roster.credentials = parse.credentials.path;
  return { ok: true, roster };
}

/**
 * ROOT's roster, or undefined when swarmforge/nodes.conf does not exist; fail('environment',
 * ...errors) when invalid. Roles come from swarmforge.conf.
 */
export function readRoster(root: string): Roster | undefined {
  const file = bridgePathsOf(root).roster;
  const text = readTextIfPresent(file);
  if (text === undefined) return undefined;
  const parsed = parseRoster(
    text,
    file,
    readConfig(root).windows.map((w) => w.role),
    root,
  );
  if (!parsed.ok) fail('environment', ...parsed.errors);
  return parsed.roster;
}

/** The name in ROOT/.swarmforge/node, or undefined when the file is missing or empty. */
function recordedNodeOf(root: string): string | undefined {
  return readTextIfPresent(bridgePathsOf(root).node)?.trim() || undefined;
}

/**
 * The local node as localNodeOf finds it, or undefined where localNodeOf fails (for reports that
 * show it without requiring it).
 */
export function knownLocalNodeOf(
  root: string,
  roster: Roster,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const name = env.BATON_NODE || recordedNodeOf(root);
  return name !== undefined && roster.nodes.has(name) ? name : undefined;
}

/**
 * The local node: $BATON_NODE, else the name in ROOT/.swarmforge/node; neither, or a name not in
 * the roster: fail('environment', 'local node unknown: set BATON_NODE or run baton init --node
 * NAME').
 */
export function localNodeOf(
  root: string,
  roster: Roster,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return (
    knownLocalNodeOf(root, roster, env) ??
    fail('environment', 'local node unknown: set BATON_NODE or run baton init --node NAME')
  );
}

/** The roles on `node`. */
export function rolesOfNode(roster: Roster, node: string): string[] {
  return [...(roster.nodes.get(node) ?? [])];
}

/** The text of ROOT/.swarmforge/nodes.tsv: a `<role>\t<node>` line per role, in file order. */
export function formatNodesTable(roster: Roster): string {
  return [...roster.nodeOfRole].map(([role, node]) => `${role}\t${node}\n`).join('');
}
