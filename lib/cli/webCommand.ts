// `baton web [--port N] [--host 127.0.0.1|::1] [--open] [--json]` (docs/web.md §1): serves
// the owner's page of this project until SIGINT or SIGTERM. It refuses to start from an
// agent's pane (runtime.md §11.7: no agent may hold the page's token) and any address that
// is not loopback. It prints the address with its token once (`BATON WEB: <url>`, or
// `{url, port, pid}` with --json) and records pid, host and port (never the token) in
// .swarmforge/web.json for status and monitor. The server code is its own bundle
// (baton-web.js): no other command loads it.
import { spawn } from 'node:child_process';
import type { CommandModule } from 'yargs';
import { fail } from '../fsx/commandFailure.js';
import { isCode } from '../fsx/absent.js';
import { removeWebRecord, writeWebRecord } from '../project/webRecord.js';
import { findProgram } from '../swarm/agentPath.js';
import { flag, json } from './commandShapes.js';
import { isoOf } from '../fsx/timestamps.js';

/** The addresses the page may bind: loopback only. */
const LOOPBACK = ['127.0.0.1', '::1'];

/** `baton web`. */
export const WEB_COMMAND: CommandModule = {
  command: 'web',
  describe: "Serve the owner's page of this project on a loopback address (until Ctrl-C)",
  builder: (y) =>
    json(y)
      .option('port', { type: 'number', default: 4680, describe: 'Port (0: a free one)' })
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        describe: 'Loopback address to bind: 127.0.0.1 or ::1',
      })
      .option('open', flag('Open the page with xdg-open')),
  handler: async (args) => {
    const host = args.host as string;
    const port = args.port as number;
    if (!LOOPBACK.includes(host))
      fail('usage', `baton web: --host must be 127.0.0.1 or ::1 (loopback only), not ${host}`);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      fail('usage', `baton web: --port takes 0 to 65535, not ${String(port)}`);
    const { requireOwnerChannel } = await import('../run/owner/ownerFence.js');
    await requireOwnerChannel(process.cwd(), process.env, 'baton web');
    // ROOT as the run runtime finds it (runtime.md §1): a project of runs needs no swarm.
    const { runRootOf } = await import('../run/record/runRoot.js');
    const root = runRootOf(process.cwd(), process.env);
    const { startWeb } = await import('../web/webServer.js');
    let web;
    try {
      web = await startWeb({ root, host, port });
    } catch (err) {
      if (isCode(err, 'EADDRINUSE'))
        fail(
          'environment',
          `baton web: port ${port} on ${host} is in use (--port 0 picks a free one)`,
        );
      throw err;
    }
    writeWebRecord(root, {
      pid: process.pid,
      host,
      port: web.port,
      started_at: isoOf(new Date()),
    });
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ url: web.url, port: web.port, pid: process.pid })}\n`
        : `BATON WEB: ${web.url}\n`,
    );
    if (args.open) {
      const opener = findProgram('xdg-open');
      if (opener) spawn(opener, [web.url], { detached: true, stdio: 'ignore' }).unref();
      else process.stderr.write('baton web: no xdg-open here: open the address yourself\n');
    }
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await web.close();
    removeWebRecord(root, process.pid);
  },
};
