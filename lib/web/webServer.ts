// `baton web` (docs/web.md): the owner's page for one project, on a loopback address. Hono
// routes the requests (docs/decisions.md says why), on Node's http server through
// @hono/node-server. The security model of web.md §4, in the order a request meets it:
// 1. `Host` must name the bound address (or localhost) and port: anything else is 421
//    (a DNS-rebinding page cannot reach it);
// 2. a session: `?token=` (compared in constant time) sets an HttpOnly, SameSite=Strict
//    cookie holding a session id, never the token, and redirects (303) to the URL without
//    it; no valid session: 401 and no data;
// 3. a POST also needs `Origin` equal to the page's own and the session's CSRF token in the
//    form: else 403 and nothing changes;
// 4. every answer carries a strict Content-Security-Policy (no inline script or style),
//    nosniff, referrers only to itself, no frames; every value shown is escaped
//    (lib/web/html.ts).
// Owner actions call the runtime's own steps with channel `web` and the record the page
// showed (`seen`), so a run that changed since the page was loaded is refused in its lock.
// Live updates: /events streams `change` events while a file under .swarmforge/ changes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import { type AddressInfo } from 'node:net';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { createAdaptorServer } from '@hono/node-server';
import { CommandFailure } from '../fsx/commandFailure.js';
import { swarmDirOf } from '../project/layout.js';
import { currentOwner } from '../run/record/identity.js';
import { type ActionReport, type RunContext } from '../run/record/runContext.js';
import {
  approveStep,
  endStep,
  pauseStep,
  requestChangesStep,
  retryStep,
} from '../run/owner/ownerSteps.js';
import { LIVE_JS, STYLE_CSS } from './assets.js';
import { h, page, type Markup } from './html.js';
import { runOfId, runPage, runsList } from './runPages.js';
import { bookbagPage, handoffPage, reviewsPage, swarmPage } from './swarmPages.js';

/** What `baton web` serves and where. */
export interface WebOptions {
  root: string;
  host: string;
  port: number;
}

/** A running page. */
export interface WebServer {
  /** The address with the token (printed once). */
  url: string;
  port: number;
  close: () => Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with a form's POST, which the
  // Origin check must refuse. same-origin still sends nothing to any other site.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

const COOKIE = 'baton_session';

/** True when `given` is the token, in a time that does not depend on where they differ. */
function tokenMatches(token: string, given: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(token), digest(given));
}

/** The owner actions of web.md §3: each calls the runtime's step as the CLI does. */
const ACTIONS: Record<
  string,
  (ctx: RunContext, runId: string, form: Record<string, string>) => Promise<ActionReport>
> = {
  approve: (ctx, id) => approveStep(ctx, id),
  'request-changes': (ctx, id, f) => {
    const note = (f.note ?? '').trim();
    if (note === '') throw new CommandFailure('usage', ['request-changes: a note is needed']);
    return requestChangesStep(ctx, id, [note]);
  },
  pause: (ctx, id) => pauseStep(ctx, id),
  cancel: (ctx, id, f) => {
    const reason = (f.reason ?? '').trim();
    if (reason === '') throw new CommandFailure('usage', ['cancel: a reason is needed']);
    return endStep(ctx, id, 'cancel', reason);
  },
  retry: (ctx, id, f) => {
    const add = f.add_cycles ?? '0';
    if (!/^[0-9]{1,3}$/.test(add))
      throw new CommandFailure('usage', ['retry: add cycles is a whole number']);
    return retryStep(ctx, id, Number(add), false);
  },
};

/** What the requests share: the token, the sessions, the open event streams, the port. */
interface WebState {
  root: string;
  token: string;
  sessions: Map<string, { csrf: string }>;
  streams: Set<() => void>;
  /** `host:port` as a browser sends it (the port known once listening). */
  hostPart: string;
  port: number;
}

/** web.md §4 in order: Host, the session (set from ?token=), then a POST's Origin and CSRF. */
function guard(state: WebState) {
  return async (c: Context, next: () => Promise<void>) => {
    const host = c.req.header('host') ?? '';
    if (host !== `${state.hostPart}:${state.port}` && host !== `localhost:${state.port}`)
      return c.text('misdirected request: this page answers only its own address\n', 421);
    const given = c.req.query('token');
    if (given !== undefined && c.req.method === 'GET') {
      if (!tokenMatches(state.token, given)) return c.text('wrong token\n', 401);
      const sid = randomBytes(16).toString('hex');
      state.sessions.set(sid, { csrf: randomBytes(16).toString('hex') });
      setCookie(c, COOKIE, sid, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect(new URL(c.req.url).pathname, 303);
    }
    const session = state.sessions.get(getCookie(c, COOKIE) ?? '');
    if (session === undefined)
      return c.text('no session: open the address baton web printed\n', 401);
    c.set('csrf' as never, session.csrf as never);
    if (c.req.method === 'POST') {
      if (c.req.header('origin') !== `http://${host}`)
        return c.text('refused: not from this page\n', 403);
      const form = await c.req.parseBody();
      if (form.csrf !== session.csrf) return c.text('refused: no valid form token\n', 403);
    }
    return next();
  };
}

const csrfOf = (c: Context) => c.get('csrf' as never) as unknown as string;
const html = (c: Context, title: string, body: Markup, status = 200) =>
  c.html(page(title, body), status as 200);
const notFound = (c: Context) => html(c, 'Not found', pageNotFound(), 404);

/** The pages and assets (GET). */
function addPages(app: Hono, root: string): void {
  const asset = (body: string, type: string) => (c: Context) =>
    c.body(body, 200, { 'Content-Type': `${type}; charset=utf-8` });
  app.get('/assets/live.js', asset(LIVE_JS, 'text/javascript'));
  app.get('/assets/style.css', asset(STYLE_CSS, 'text/css'));
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/', async (c) => html(c, 'Swarm', await swarmPage(root)));
  app.get('/runs', (c) => html(c, 'Runs', runsList(root)));
  app.get('/runs/:id', (c) => {
    const wf = runOfId(root, c.req.param('id'));
    return wf === undefined ? notFound(c) : html(c, wf.run_id, runPage(root, wf, csrfOf(c)));
  });
  app.get('/reviews', (c) => html(c, 'Reviews', reviewsPage(root)));
  app.get('/reviews/:bead', (c) => {
    const body = bookbagPage(root, c.req.param('bead'));
    return body === undefined ? notFound(c) : html(c, 'Bookbag', body);
  });
  app.get('/handoffs/:role/:id', async (c) => {
    const body = await handoffPage(root, c.req.param('role'), c.req.param('id'));
    return body === undefined ? notFound(c) : html(c, 'Handoff', body);
  });
}

/** The owner's actions (POST, past the guard): the runtime's step, or its refusal (409). */
function addActions(app: Hono, root: string): void {
  app.post('/runs/:id/:action', async (c) => {
    const id = c.req.param('id');
    const act = ACTIONS[c.req.param('action')];
    if (runOfId(root, id) === undefined || act === undefined) return notFound(c);
    const form = Object.fromEntries(
      Object.entries(await c.req.parseBody()).map(([k, v]) => [k, String(v)]),
    );
    const ctx: RunContext = {
      root,
      cwd: root,
      env: process.env,
      user: currentOwner(),
      now: () => new Date(),
      channel: 'web',
      seen: {
        updatedAt: form.updated_at ?? '',
        digests: (form.digests ?? '').split(',').filter(Boolean),
      },
    };
    try {
      await act(ctx, id, form);
    } catch (err) {
      if (!(err instanceof CommandFailure)) throw err;
      const now = runOfId(root, id)!;
      return html(c, now.run_id, runPage(root, now, csrfOf(c), err.lines.join(' ')), 409);
    }
    return c.redirect(`/runs/${id}`, 303);
  });
}

/** /events: a `change` event (at most one per 100 ms) while a file under .swarmforge/ changes. */
function addEvents(app: Hono, state: WebState): void {
  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      let pending: NodeJS.Timeout | undefined;
      let n = 0;
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(swarmDirOf(state.root), { recursive: true }, () => {
          pending ??= setTimeout(() => {
            pending = undefined;
            void stream.writeSSE({ event: 'change', data: String(++n) });
          }, 100);
        });
      } catch (err) {
        // No .swarmforge/ to watch (yet): the stream ends; pages still work without it.
        await stream.writeSSE({ event: 'unwatched', data: (err as Error).message });
        return;
      }
      await new Promise<void>((done) => {
        const end = () => {
          state.streams.delete(end);
          clearTimeout(pending);
          watcher.close();
          done();
        };
        state.streams.add(end);
        stream.onAbort(end);
      });
    }),
  );
}

/** Starts the page; resolves once it listens (rejects with the listen error, EADDRINUSE…). */
export async function startWeb(options: WebOptions): Promise<WebServer> {
  const state: WebState = {
    root: options.root,
    token: randomBytes(16).toString('hex'),
    sessions: new Map(),
    streams: new Set(),
    hostPart: options.host.includes(':') ? `[${options.host}]` : options.host,
    port: options.port,
  };
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
  });
  app.use('*', guard(state));
  addPages(app, options.root);
  addActions(app, options.root);
  addEvents(app, state);
  app.notFound(notFound);
  const server = createAdaptorServer({ fetch: app.fetch, hostname: options.host });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  state.port = (server.address() as AddressInfo).port;
  return {
    url: `http://${state.hostPart}:${state.port}/?token=${state.token}`,
    port: state.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const end of [...state.streams]) end();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

function pageNotFound(): Markup {
  return h`<h1>Not found</h1><p>Nothing here (or not something this page may show).</p>`;
}
