// Black-box: `baton web` over HTTP (docs/web.md §1, §3, §4) on the built bin, a run waiting
// for its owner's approval: the session (token once, cookie after), the Host, Origin and
// CSRF checks, escaping of what agents wrote, paths that leave the project, an approve of a
// run that changed since the page was loaded, the approve itself (channel web), and the
// command's own edges (port 0 and in use, loopback only, refused from an agent's pane,
// SIGTERM, web.json for status). The same page in a real browser: web_browser.test.ts.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { reviewPathsOf } from '../../lib/project/layout.js';
import { itemNamesIn } from '../../lib/queue/index.js';
import { BEAD, bookbagIn, finding, makeReviewProject } from '../support/bookbags.js';
import { placeItem, runBin, type Project } from '../support/project.js';
import { request, startWeb, type Web } from '../support/web.js';
import { makeRunRepo, runAtApproval, runDirOf, snapshotOf } from '../support/runs.js';

describe('baton web over HTTP (built bin)', function () {
  this.timeout(60_000);
  let root: string;
  let runId: string;
  let web: Web;
  let cookie: string;
  const TITLE = '<script>alert(1)</script> <img src=x onerror=alert(2)> javascript:alert(3)';

  before(async () => {
    root = makeRunRepo();
    runId = await runAtApproval(root, TITLE);
    web = await startWeb(root, ['--port', '0']);
    const opened = await request(web.port, { path: `/runs/${runId}?token=${web.token}` });
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.location, `/runs/${runId}`, 'the token leaves the address');
    cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    assert.ok(!cookie.includes(web.token), 'the cookie holds a session id, never the token');
    assert.match(String(opened.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
  });
  after(async () => {
    web.child.kill('SIGTERM');
    await once(web.child, 'exit');
    fs.rmSync(root, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    request(web.port, { path, headers: { cookie, ...headers } });
  /** The hidden fields of the run page's forms, and a POST of one of them. */
  async function formOf(): Promise<Record<string, string>> {
    const body = (await get(`/runs/${runId}`)).body;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)![1]!;
    return { csrf: field('csrf'), updated_at: field('updated_at'), digests: field('digests') };
  }
  const post = (
    action: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    request(web.port, {
      method: 'POST',
      path: `/runs/${runId}/${action}`,
      headers: {
        cookie,
        origin: `http://127.0.0.1:${web.port}`,
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: new URLSearchParams(form).toString(),
    });

  it('no session, a wrong token or a foreign Host: refused with no data', async () => {
    for (const path of ['/', `/runs/${runId}`, '/events', '/assets/live.js']) {
      const r = await request(web.port, { path });
      assert.equal(r.status, 401, path);
      assert.ok(!r.body.includes(runId), `${path}: no data`);
    }
    const wrong = await request(web.port, { path: `/?token=${'0'.repeat(32)}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const rebound = await request(web.port, {
      path: `/runs/${runId}`,
      headers: { cookie, host: `evil.example:${web.port}` },
    });
    assert.equal(rebound.status, 421);
    assert.ok(!rebound.body.includes(runId));
  });

  it('every answer carries the strict headers; what agents wrote is shown as text', async () => {
    const r = await get(`/runs/${runId}`);
    assert.equal(r.status, 200);
    assert.match(
      String(r.headers['content-security-policy']),
      /default-src 'self'; script-src 'self'/,
    );
    assert.doesNotMatch(String(r.headers['content-security-policy']), /unsafe/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'same-origin');
    assert.ok(!r.body.includes('<script>alert'), 'no agent script in the page');
    assert.ok(!r.body.includes('<img src=x'));
    assert.ok(r.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(r.body.includes('javascript:alert(3)'), 'the javascript: text shown as text');
    assert.doesNotMatch(r.body, /(href|src|action)="\s*javascript:/i, 'never a javascript: link');
    assert.ok(r.body.includes('&lt;b&gt;bold&lt;/b&gt; line two'), 'the diff is text too');
    assert.equal((r.body.match(/<script /g) ?? []).length, 1, "only the page's own script");
    assert.match(r.body, /WAITING_FOR_HUMAN_APPROVAL/);
  });

  it('paths that leave the project, ids that are not ids, and symlinks: 404', async () => {
    fs.symlinkSync('/etc', join(root, '.swarmforge', 'runs', 'run-20260101T000000Z-aaaaaa'));
    for (const path of [
      '/runs/..%2F..%2Fetc',
      '/runs/run-20260101T000000Z-aaaaaa',
      '/runs/not-a-run',
      '/handoffs/..%2F..%2Fetc/passwd',
      '/handoffs/worker/20260101T000000Z_000001_from_x',
      '/nothing/here',
    ]) {
      const r = await get(path);
      assert.equal(r.status, 404, path);
    }
  });

  it('a POST without the CSRF token or from another Origin: 403, the run byte-identical', async () => {
    const before = snapshotOf(runDirOf(root, runId));
    const form = await formOf();
    const noToken = await post('approve', { ...form, csrf: '' });
    assert.equal(noToken.status, 403);
    const foreign = await post('approve', form, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    const noOrigin = await request(web.port, {
      method: 'POST',
      path: `/runs/${runId}/approve`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    assert.equal(noOrigin.status, 403);
    assert.deepEqual(snapshotOf(runDirOf(root, runId)), before);
  });

  it('approve of a run that changed since the page was loaded is refused with that message; then approve completes it with channel web', async () => {
    const form = await formOf();
    const before = snapshotOf(runDirOf(root, runId));
    const stale = await post('approve', { ...form, updated_at: '2026-01-01T00:00:00.000Z' });
    assert.equal(stale.status, 409);
    assert.match(stale.body, /the run changed since this page was loaded/);
    const digests = await post('approve', { ...form, digests: form.digests!.split(',')[0]! });
    assert.equal(digests.status, 409, 'a digest list that differs is a change too');
    assert.deepEqual(snapshotOf(runDirOf(root, runId)), before);
    const ok = await post('approve', form);
    assert.equal(ok.status, 303);
    const status = runBin('baton', ['run', 'status', runId], { cwd: root });
    assert.equal(JSON.parse(status.stdout).status, 'COMPLETED');
    const wf = JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'));
    assert.match(wf.history.at(-1).detail, /channel=web/);
    assert.match((await get(`/runs/${runId}`)).body, /id="status">COMPLETED</);
  });

  it('status and monitor show the address without the token while it runs; a change on disk reaches /events', async () => {
    fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
    fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), 'window worker x master\n');
    assert.equal(runBin('baton', ['init'], { cwd: root }).code, 0);
    const status = runBin('baton', ['status'], { cwd: root });
    assert.ok(status.stdout.includes(`WEB: http://127.0.0.1:${web.port}/\n`), status.stdout);
    assert.ok(!status.stdout.includes(web.token));
    const monitor = runBin('baton', ['monitor', '--once'], { cwd: root });
    assert.ok(monitor.stdout.includes(`web: http://127.0.0.1:${web.port}/\n`), monitor.stdout);
    const monitorJson = runBin('baton', ['monitor', '--once', '--json'], { cwd: root });
    assert.equal(JSON.parse(monitorJson.stdout).web, `http://127.0.0.1:${web.port}/`);
    assert.ok(!`${monitor.stdout}${monitorJson.stdout}`.includes(web.token));
    const events = await new Promise<string>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: web.port, path: '/events', headers: { cookie } },
        (res) => {
          let seen = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            seen += d;
            if (seen.includes('event: change')) {
              req.destroy();
              resolve(seen);
            }
          });
          setTimeout(() => fs.writeFileSync(join(root, '.swarmforge', 'touched'), 'x'), 200);
        },
      );
      req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    });
    assert.match(events, /event: change/);
  });
});

describe('baton web: the command (built bin)', function () {
  this.timeout(60_000);
  let root: string;
  before(() => {
    root = makeRunRepo();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a port in use: exit 1 naming it; a non-loopback host: exit 1; from an agent pane: exit 2 naming the role', async () => {
    const first = await startWeb(root, ['--port', '0']);
    try {
      const busy = runBin('baton', ['web', '--port', String(first.port)], { cwd: root });
      assert.deepEqual(
        [busy.code, busy.stdout, busy.stderr],
        [
          1,
          '',
          `baton web: port ${first.port} on 127.0.0.1 is in use (--port 0 picks a free one)\n`,
        ],
      );
    } finally {
      first.child.kill('SIGTERM');
      await once(first.child, 'exit');
    }
    const wide = runBin('baton', ['web', '--host', '0.0.0.0'], { cwd: root });
    assert.deepEqual(
      [wide.code, wide.stderr],
      [1, 'baton web: --host must be 127.0.0.1 or ::1 (loopback only), not 0.0.0.0\n'],
    );
    const agent = runBin('baton', ['web', '--port', '0'], { cwd: root, role: 'worker' });
    assert.equal(agent.code, 2);
    assert.match(agent.stderr, /baton web is the owner's decision .*\(role worker\)/);
  });

  it('SIGTERM ends it with exit 0, its open streams closed and web.json removed', async () => {
    const web = await startWeb(root, ['--port', '0']);
    const record = join(root, '.swarmforge', 'web.json');
    const saved = JSON.parse(fs.readFileSync(record, 'utf8'));
    assert.deepEqual(Object.keys(saved).sort(), ['host', 'pid', 'port', 'started_at']);
    assert.equal(fs.statSync(record).mode & 0o777, 0o600);
    const opened = await request(web.port, { path: `/?token=${web.token}` });
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const ended = new Promise<void>((resolve) => {
      http.get(
        { host: '127.0.0.1', port: web.port, path: '/events', headers: { cookie } },
        (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('close', resolve);
        },
      );
    });
    await new Promise((r) => setTimeout(r, 200));
    web.child.kill('SIGTERM');
    const [code] = (await once(web.child, 'exit')) as [number];
    await ended;
    assert.equal(code, 0);
    assert.equal(fs.existsSync(record), false);
  });
});

describe('baton web: the swarm, a bookbag and a handoff (built bin)', function () {
  this.timeout(60_000);
  const HOSTILE = '<script>alert(9)</script><img src=x onerror=alert(8)>';
  let project: Project;
  let web: Web;
  let cookie: string;
  before(async () => {
    project = makeReviewProject();
    const bag = bookbagIn('CTO_REVIEWED', { cto: [finding('HIGH', 'security', HOSTILE)] });
    const bags = reviewPathsOf(project.root).bookbags;
    fs.mkdirSync(bags, { recursive: true });
    fs.writeFileSync(join(bags, `${BEAD}.json`), JSON.stringify(bag));
    await placeItem(project.box('coder').inboxNew, { to: 'coder' }, `${HOSTILE}\n`);
    fs.writeFileSync(join(project.box('QA').inboxNew, '50_broken.handoff'), `${HOSTILE}\n`, {
      mode: 0o600,
    });
    web = await startWeb(project.root, ['--port', '0']);
    const opened = await request(web.port, { path: `/?token=${web.token}` });
    cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  });
  after(async () => {
    web.child.kill('SIGTERM');
    await once(web.child, 'exit');
    project.cleanup();
  });
  const get = (path: string) => request(web.port, { path, headers: { cookie } });

  it('the swarm page lists the roles and what baton doctor would report, with its remedy', async () => {
    const r = await get('/');
    assert.equal(r.status, 200);
    for (const role of ['coder', 'rev-cto', 'rev-coo', 'QA'])
      assert.ok(r.body.includes(`<td>${role}</td>`));
    assert.match(r.body, /<h2>Problems<\/h2>/);
    assert.match(r.body, /unusable item: unreadable header line/, 'doctor sees the broken item');
    assert.match(r.body, /readers skip it: give it a readable header/, 'with its remedy');
    assert.ok(!r.body.includes('<script>alert'), "the item's text is escaped there too");
  });

  it('a bookbag and a handoff show what agents wrote as text', async () => {
    const bag = await get(`/reviews/${BEAD}`);
    assert.equal(bag.status, 200);
    assert.ok(bag.body.includes('&lt;script&gt;alert(9)&lt;/script&gt;'));
    assert.ok(!bag.body.includes('<script>alert') && !bag.body.includes('<img src=x'));
    assert.match((await get('/reviews')).body, new RegExp(`href="/reviews/${BEAD}"`));
    const id = itemNamesIn(project.box('coder').inboxNew)[0]!.replace(/^\d+_|_to_.*$/g, '');
    const handoff = await get(`/handoffs/coder/${id}`);
    assert.equal(handoff.status, 200);
    assert.ok(handoff.body.includes('&lt;img src=x onerror=alert(8)&gt;'));
    assert.ok(!handoff.body.includes('<img src=x'));
    assert.equal((await get('/reviews/..%2F..%2Fetc%2Fpasswd')).status, 404);
    assert.equal((await get(`/handoffs/nobody/${id}`)).status, 404);
  });
});
