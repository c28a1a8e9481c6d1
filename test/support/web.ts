// `baton web` for the tests: the built bin started on a free port (`--port 0 --json`), and
// raw HTTP exchanges with every header under the test's control (Host included, which
// fetch does not allow).
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import { join } from 'node:path';
import { BIN_DIR } from './project.js';

/** One HTTP exchange, every header under our control (Host included). */
export function request(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: { host: `127.0.0.1:${port}`, ...o.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A started `baton web`: its child, address and token. */
export interface Web {
  child: ChildProcess;
  port: number;
  url: string;
  token: string;
}

export async function startWeb(root: string, args: string[] = []): Promise<Web> {
  const child = spawn(process.execPath, [join(BIN_DIR, 'baton.js'), 'web', '--json', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`baton web exited ${code}`)));
  });
  const { url, port } = JSON.parse(out) as { url: string; port: number };
  return { child, port, url, token: new URL(url).searchParams.get('token')! };
}
