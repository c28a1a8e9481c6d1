// The record of a running `baton web` (docs/web.md §1): `.swarmforge/web.json`, `{pid, host,
// port, started_at}`, 0600, written when the page is served and removed when it stops. It
// never holds the token. status and monitor show the page's address from it while its
// process runs; a record whose process is gone (a killed server) shows nothing.
import * as fs from 'node:fs';
import { replaceJson } from '../fsx/records.js';
import { processRunning } from '../fsx/processIdentity.js';
import { webRecordPathOf } from './layout.js';

/** What web.json holds. */
export interface WebRecord {
  pid: number;
  host: string;
  port: number;
  started_at: string;
}

/** Writes the record of this process's page. */
export function writeWebRecord(root: string, record: WebRecord): void {
  replaceJson(webRecordPathOf(root), record);
}

/** Removes the record, when it is this process's. */
export function removeWebRecord(root: string, pid: number): void {
  if (readWebRecord(root)?.pid === pid) fs.rmSync(webRecordPathOf(root), { force: true });
}

/** The record, when there is one of ours. */
export function readWebRecord(root: string): WebRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(webRecordPathOf(root), 'utf8')) as Partial<WebRecord>;
    if (typeof r.pid !== 'number' || typeof r.port !== 'number' || typeof r.host !== 'string')
      return undefined;
    return { pid: r.pid, host: r.host, port: r.port, started_at: String(r.started_at ?? '') };
  } catch {
    return undefined;
  }
}

/** The running page's address without its token (`http://127.0.0.1:4680/`), or undefined. */
export function runningWebUrl(root: string): string | undefined {
  const r = readWebRecord(root);
  if (r === undefined || !processRunning(r.pid)) return undefined;
  const host = r.host.includes(':') ? `[${r.host}]` : r.host;
  return `http://${host}:${r.port}/`;
}
