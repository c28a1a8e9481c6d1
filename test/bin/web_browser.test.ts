// The owner's page in a real headless Chromium (docs/web.md §5): Debian's `chromium`,
// driven by playwright-core with its executable path set (nothing downloaded). Open the
// printed address; the run waiting for approval shows its findings, diff and artifacts, and
// a finding carrying a script tag runs nothing (no dialog, no console error, the text
// shown); a change on disk appears without a reload; Approve completes the run (in the page
// and in `baton run status`, channel web); Request changes with a note reopens the first
// stage. A screenshot of the run page is left in test-output/ for a person to look at.
// `npm test` installs Chromium when it is missing (scripts/ensureTestTools.mjs).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
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
    await page.goto(web.url);
  });
  afterEach(() => page.close());

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

  it('a change on disk appears without a reload', async () => {
    await page.goto(new URL('/runs', web.url).href);
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const runId = await startRun(root, [], 'req-live');
    await page.getByText(runId).waitFor({ timeout: 10_000 });
    assert.equal(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
      true,
      'the same page, updated in place',
    );
    assert.deepEqual(errors, []);
  });
});
