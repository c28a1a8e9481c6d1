// The owner's page in a real headless Chromium (docs/web.md §5): Debian's `chromium`,
// driven by playwright-core with its executable path set (nothing downloaded). Open the
// printed address; the run waiting for approval shows its findings, diff and artifacts, and
// a finding carrying a script tag runs nothing (no dialog, no console error, no violation of
// the page's CSP reported, the text shown); a change on disk (a new run, a run moving, a new
// handoff) appears without a reload, its delay printed (bench figure 14 holds it to 1 s);
// Approve completes the run (in the page and in `baton run status`, channel web); Request
// changes with a note reopens the first stage. A screenshot of the run page is left in
// test-output/ for a person to look at.
// `npm test` installs Chromium when it is missing (scripts/ensureTestTools.mjs).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import { mailboxOf } from '../../lib/project/layout.js';
import { runBin } from '../support/project.js';
import { makeRunRepo, runAtApproval, runDirOf, startRun } from '../support/runs.js';
import { startWeb, type Web } from '../support/web.js';

/** Debian's Chromium. */
const CHROMIUM = '/usr/bin/chromium';
/** What this machine's closed network needs (and root: no sandbox). */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TITLE = '<script>alert(1)</script> <img src=x onerror=alert(2)>';

describe('baton web in a real headless Chromium (built bin)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let root: string;
  let web: Web;
  let page: Page;
  const dialogs: string[] = [];
  const errors: string[] = [];

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is needed: apt-get install chromium`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    root = makeRunRepo();
    web = await startWeb(root, ['--port', '0']);
  });
  after(async () => {
    await browser?.close();
    web?.child.kill('SIGTERM');
    if (web) await once(web.child, 'exit');
    fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(async () => {
    dialogs.length = 0;
    errors.length = 0;
    page = await browser.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // What the CSP blocked, as the page itself hears it (an agent's script, were it rendered).
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => {
        seen.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    await page.goto(web.url);
  });
  afterEach(() => page.close());

  const cspViolations = () =>
    page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
  /** Marks the open page, so a reload (which drops the mark) can be told from an update. */
  const markPage = () =>
    page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
  const stillMarked = () =>
    page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded);
  /** Waits for `selector` on the open page, then prints how long after `since` it came. */
  async function shownAfter(what: string, since: number, wait: () => Promise<unknown>) {
    await wait();
    process.stdout.write(`      ${what}: on the open page ${Date.now() - since} ms later\n`);
    assert.equal(await stillMarked(), true, `${what}: the same page, updated in place`);
  }

  it('shows the run waiting for approval with its findings, diff and artifacts; the script in a title runs nothing; Approve completes it', async () => {
    const runId = await runAtApproval(root, TITLE);
    await page.goto(new URL(`/runs/${runId}`, web.url).href);
    assert.equal(await page.textContent('#status'), 'WAITING_FOR_HUMAN_APPROVAL');
    assert.equal(await page.locator('tr.finding').count(), 2);
    assert.equal(await page.getByText(TITLE).count(), 2, 'the title shown as text');
    assert.match((await page.textContent('pre.diff'))!, /\+<b>bold<\/b> line two/);
    assert.ok((await page.locator('td.ok').count()) >= 3, 'artifacts intact');
    fs.mkdirSync(resolve('test-output'), { recursive: true });
    await page.screenshot({ path: resolve('test-output', 'web-run-page.png'), fullPage: true });
    await page.click('#approve');
    await page.waitForURL(`**/runs/${runId}`);
    assert.equal(await page.textContent('#status'), 'COMPLETED');
    const status = runBin('baton', ['run', 'status', runId], { cwd: root });
    assert.equal(JSON.parse(status.stdout).status, 'COMPLETED');
    const wf = JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'));
    assert.match(wf.history.at(-1).detail, /channel=web/);
    assert.deepEqual(dialogs, [], 'no script of an agent ran');
    assert.deepEqual(errors, []);
    assert.deepEqual(await cspViolations(), [], 'nothing the CSP had to block');
  });

  it('Request changes with a note reopens the first stage', async () => {
    const runId = await runAtApproval(root, 'fine', 'req-changes');
    await page.goto(new URL(`/runs/${runId}`, web.url).href);
    await page.fill('textarea[name=note]', 'please also cover the empty case');
    await page.click('#request-changes');
    await page.waitForURL(`**/runs/${runId}`);
    assert.equal(await page.textContent('#status'), 'ACTIVE');
    const status = JSON.parse(runBin('baton', ['run', 'status', runId], { cwd: root }).stdout);
    assert.deepEqual([status.status, status.phase, status.review_cycle], ['ACTIVE', 'IDLE', 2]);
  });

  it('a change on disk appears without a reload: a new run, a run moving, a new handoff', async () => {
    await page.goto(new URL('/runs', web.url).href);
    await markPage();
    let since = Date.now();
    const runId = await startRun(root, [], 'req-live');
    await shownAfter('a new run', since, () => page.getByText(runId).waitFor({ timeout: 10_000 }));

    await page.goto(new URL(`/runs/${runId}`, web.url).href);
    assert.equal(await page.textContent('#status'), 'ACTIVE');
    await markPage();
    since = Date.now();
    assert.equal(runBin('baton', ['run', 'pause', runId], { cwd: root }).code, 0);
    await shownAfter('a run moving', since, () =>
      page.waitForFunction(() => document.querySelector('#status')?.textContent === 'PAUSED', {
        timeout: 10_000,
      }),
    );

    // A handoff to reviewer-a lands in its inbox (as handoffd's delivery would put it there).
    fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
    fs.writeFileSync(
      join(root, 'swarmforge', 'swarmforge.conf'),
      'window worker claude master\nwindow reviewer-a claude master\n',
    );
    assert.equal(runBin('baton', ['init'], { cwd: root }).code, 0);
    await page.goto(web.url);
    const newOf = (role: string) =>
      page
        .locator('tr', { has: page.locator(`td:text-is("${role}")`) })
        .locator('td')
        .nth(5);
    assert.equal(await newOf('reviewer-a').textContent(), '0');
    await markPage();
    since = Date.now();
    const sent = await queueSystemHandoff(root, 'worker', {
      to: ['reviewer-a'],
      priority: '50',
      type: 'note',
      headers: {},
      body: 'a live handoff\n',
    });
    const inbox = mailboxOf(root, 'reviewer-a').inboxNew;
    fs.mkdirSync(inbox, { recursive: true });
    fs.copyFileSync(sent, join(inbox, sent.split('/').at(-1)!));
    await shownAfter('a new handoff', since, () =>
      page.waitForFunction(
        () =>
          [...document.querySelectorAll('tr')].some(
            (tr) => tr.cells[0]?.textContent === 'reviewer-a' && tr.cells[5]?.textContent === '1',
          ),
        { timeout: 10_000 },
      ),
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(await cspViolations(), []);
  });
});
