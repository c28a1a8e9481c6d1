// The runs pages (docs/web.md §2): the list, and a run's page with everything its owner
// needs to decide: the request and commits, the history, each review cycle's findings
// with their validation, resolution and marks, acceptance output, every artifact with its
// digest and whether it is intact now, the bounded diff of the last checkpoint, what the
// controller awaits; then the owner's forms (§3), each carrying the record's `updated_at`
// and the digests shown, so that a run that changed meanwhile is refused.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../proc/git.js';
import { readNoFollow } from '../fsx/records.js';
import { checkArtifacts } from '../run/gates/artifacts.js';
import { readPhase } from '../run/controller/controllerPhase.js';
import { redactSecrets } from '../run/gates/redact.js';
import { readWorkflow, runIdsOf } from '../run/record/runStore.js';
import { isTerminal, RUN_ID_PATTERN, type Workflow } from '../run/record/workflow.js';
import { runPathsOf, type RunPaths } from '../project/layout.js';
import { h, headRow, row, type Markup } from './html.js';

/** A diff is shown for at most this many files, each at most this many bytes. */
const DIFF_FILES = 200;
const DIFF_FILE_BYTES = 1024 * 1024;
/** An acceptance output is shown up to this many characters. */
const OUTPUT_CHARS = 20_000;

/** The list of runs, newest first. */
export function runsList(root: string): Markup {
  const runs = runIdsOf(root)
    .map((id) => readWorkflow(root, id).workflow)
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  const rows = runs.map(
    (wf) =>
      h`<tr><td><a href="/runs/${wf.run_id}">${wf.run_id}</a></td><td>${wf.request_id}</td>
<td class="status">${wf.status}</td><td>${wf.phase}</td><td>${wf.review_cycle}</td>
<td>${wf.blocking_findings}</td><td>${wf.created_at}</td></tr>`,
  );
  return h`<h1>Runs</h1>${
    runs.length === 0
      ? h`<p>No runs yet (baton run new).</p>`
      : h`<table><tr><th>run</th><th>request</th><th>status</th><th>phase</th><th>cycle</th>
<th>blocking</th><th>created</th></tr>${rows}</table>`
  }`;
}

/** The run of a URL's id, or undefined (no such id, or not a run id at all). */
export function runOfId(root: string, id: string): Workflow | undefined {
  if (!RUN_ID_PATTERN.test(id)) return undefined;
  try {
    return readWorkflow(root, id).workflow;
  } catch {
    return undefined;
  }
}

/** The digests a page shows, in manifest order (what the owner's forms carry). */
export function digestsOf(wf: Workflow): string {
  return wf.artifacts.map((a) => a.sha256).join(',');
}

/** A finding's validation in words ('' before the validator judged it). */
function validationOf(f: Workflow['findings'][number]): string {
  if (f.validation === null) return '';
  return `${f.validation.valid ? 'valid' : 'invalid'}: ${f.validation.reason}`;
}

function findingsSection(wf: Workflow): Markup {
  const cycles = [...new Set(wf.findings.map((f) => f.cycle))].sort((a, b) => a - b);
  if (cycles.length === 0) return h`<h2>Findings</h2><p>None recorded.</p>`;
  return h`<h2>Findings</h2>${cycles.map(
    (cycle) => h`<h3>Cycle ${cycle}</h3><table><tr><th>id</th><th>lane</th><th>severity</th>
<th>title</th><th>mark</th><th>validation</th><th>resolved</th></tr>${wf.findings
      .filter((f) => f.cycle === cycle)
      .map(
        (f) => h`<tr class="finding"><td>${f.id}</td><td>${f.lane}</td>
<td class="${f.blocking ? 'bad' : ''}">${f.severity}</td><td>${f.title}</td>
<td>${f.closed_in !== undefined ? `closed in cycle ${f.closed_in}` : (f.mark ?? '')}</td>
<td>${validationOf(f)}</td>
<td>${f.resolved ? 'yes' : ''}</td></tr>`,
      )}</table>`,
  )}`;
}

function artifactsSection(paths: RunPaths, wf: Workflow): Markup {
  const bad = new Map(checkArtifacts(paths, wf.artifacts).bad.map((b) => [b.path, b.problem]));
  return h`<h2>Artifacts</h2><table><tr><th>path</th><th>type</th><th>producer</th>
<th>sha256</th><th>intact</th></tr>${wf.artifacts.map(
    (a) => h`<tr><td>${a.path}</td><td>${a.type}</td><td>${a.producer}</td>
<td><code title="${a.sha256}">${a.sha256.slice(0, 12)}</code></td>${
      bad.has(a.path) ? h`<td class="bad">NO: ${bad.get(a.path)}</td>` : h`<td class="ok">yes</td>`
    }</tr>`,
  )}</table>`;
}

/** The acceptance artifacts' text, each bounded (already redacted when written). */
function acceptanceSection(paths: RunPaths, wf: Workflow): Markup {
  const runs = wf.artifacts.filter(
    (a) => a.type === 'acceptance' || a.type === 'validation-failure',
  );
  if (runs.length === 0) return h`<h2>Acceptance</h2><p>Not run yet.</p>`;
  return h`<h2>Acceptance</h2>${runs.map((a) => {
    let text: string;
    try {
      text = readNoFollow(join(paths.dir, a.path))?.toString('utf8') ?? '(missing)';
    } catch {
      text = '(unreadable: a symlink)';
    }
    const cut = text.length > OUTPUT_CHARS ? `${text.slice(0, OUTPUT_CHARS)}\n…` : text;
    return h`<h3>${a.path}</h3><pre>${redactSecrets(cut)}</pre>`;
  })}`;
}

/** Each file's diff between two commits: [path, its hunks], in git's order. */
type FileDiffs = [string, string][];

/** Diffs already made: two commits' diff never changes, and a live page renders again often. */
const diffCache = new Map<string, FileDiffs>();
const DIFF_CACHE_ENTRIES = 8;

/**
 * The diff of two commits per file (two git calls: the names, then the whole diff, split at
 * each `diff --git` in the same order), kept for the next render.
 */
function fileDiffsOf(repo: string, base: string, current: string): FileDiffs {
  const key = `${repo}\0${base}\0${current}`;
  const cached = diffCache.get(key);
  if (cached !== undefined) return cached;
  const names = runGit(repo, ['diff', '--name-only', '-z', base, current], { untrimmed: true })
    .split('\0')
    .filter(Boolean);
  const whole = runGit(repo, ['diff', '--no-color', '--no-ext-diff', base, current], {
    untrimmed: true,
  });
  const chunks = whole.split(/^diff --git /m).slice(1);
  const diffs: FileDiffs = names.map((name, i) => {
    // The hunks only: git's header lines (index, mode, ---, +++) are said by the title.
    const lines = (chunks[i] ?? '').split('\n');
    const first = lines.findIndex((l) => l.startsWith('@@'));
    return [name, first < 0 ? lines.slice(1).join('\n') : lines.slice(first).join('\n')];
  });
  if (diffCache.size >= DIFF_CACHE_ENTRIES) diffCache.delete(diffCache.keys().next().value!);
  diffCache.set(key, diffs);
  return diffs;
}

/** One file's diff, each line marked as added or removed. */
function fileDiff(file: string, text: string): Markup {
  if (Buffer.byteLength(text) > DIFF_FILE_BYTES)
    return h`<h3>${file}</h3><p>Larger than 1 MiB: not shown.</p>`;
  return h`<h3>${file}</h3><pre class="diff">${text
    .split('\n')
    .map((line) =>
      line.startsWith('+')
        ? h`<span class="diff-add">${line}</span>\n`
        : line.startsWith('-')
          ? h`<span class="diff-del">${line}</span>\n`
          : h`${line}\n`,
    )}</pre>`;
}

/** The diff of the last checkpoint (base..current), per file, bounded. */
function diffSection(wf: Workflow): Markup {
  if (wf.base_commit === wf.current_commit) return h`<h2>Diff</h2><p>No checkpoint yet.</p>`;
  const range = `${wf.base_commit.slice(0, 12)}..${wf.current_commit.slice(0, 12)}`;
  let diffs: FileDiffs;
  try {
    diffs = fileDiffsOf(wf.repo_root, wf.base_commit, wf.current_commit);
  } catch {
    return h`<h2>Diff</h2><p class="bad">git could not diff ${range}</p>`;
  }
  const listed = diffs.slice(DIFF_FILES);
  return h`<h2>Diff ${range}</h2>${diffs
    .slice(0, DIFF_FILES)
    .map(([file, text]) => fileDiff(file, text))}${
    listed.length > 0
      ? h`<p>Not shown (beyond ${DIFF_FILES} files):</p>
<ul>${listed.map(([f]) => h`<li>${f}</li>`)}</ul>`
      : ''
  }`;
}

function awaitingSection(paths: RunPaths): Markup {
  const awaiting = fs.existsSync(paths.phase) ? (readPhase(paths).awaiting ?? []) : [];
  if (awaiting.length === 0) return h`<h2>The controller awaits</h2><p>Nothing.</p>`;
  return h`<h2>The controller awaits</h2><ul>${awaiting.map(
    (a) =>
      h`<li>${a.role}: ${a.kind} for cycle ${a.cycle} since ${a.sent_at},
deadline ${a.deadline_at}</li>`,
  )}</ul>`;
}

/** The owner's forms for the run's status (web.md §3). */
function actionsSection(wf: Workflow, csrf: string): Markup {
  const hidden = h`<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="updated_at" value="${wf.updated_at}">
<input type="hidden" name="digests" value="${digestsOf(wf)}">`;
  const form = (action: string, label: string, field?: Markup) =>
    h`<form class="action" method="post" action="/runs/${wf.run_id}/${action}">${hidden}${field}
<button type="submit" id="${action}">${label}</button></form>`;
  const forms: Markup[] = [];
  if (wf.status === 'WAITING_FOR_HUMAN_APPROVAL') {
    forms.push(form('approve', 'Approve'));
    forms.push(
      form(
        'request-changes',
        'Request changes',
        h`<textarea name="note" required placeholder="what to change"></textarea>`,
      ),
    );
  }
  if (wf.status === 'ACTIVE') forms.push(form('pause', 'Pause'));
  if (wf.status === 'BLOCKED')
    forms.push(
      form('retry', 'Retry', h`<input type="number" name="add_cycles" min="0" value="0">`),
    );
  if (!isTerminal(wf.status))
    forms.push(
      form('cancel', 'Cancel', h`<input type="text" name="reason" required placeholder="why">`),
    );
  return forms.length === 0 ? h`` : h`<h2>Decide</h2>${forms}`;
}

/** The reason a BLOCKED run gives, as a row of its facts. */
function blockedRow(wf: Workflow): Markup {
  if (wf.block_reason === null) return h``;
  return h`<tr><th>blocked</th><td class="bad">${wf.block_reason}</td></tr>`;
}

/** A run's page (`notice`: an action's outcome or refusal, shown above it). */
export function runPage(root: string, wf: Workflow, csrf: string, notice?: string): Markup {
  const paths = runPathsOf(root, wf.run_id);
  return h`${notice === undefined ? '' : h`<p class="notice" id="notice">${notice}</p>`}
<h1>Run ${wf.run_id}</h1>
<table><tr><th>request</th><td>${wf.request_id}</td></tr>
<tr><th>status</th><td class="status" id="status">${wf.status}</td></tr>
<tr><th>phase</th><td>${wf.phase}</td></tr>
<tr><th>task</th><td>${redactSecrets(wf.task)}</td></tr>
<tr><th>owner</th><td>${wf.owner}</td></tr>
<tr><th>base</th><td>${wf.base_ref} <code>${wf.base_commit.slice(0, 12)}</code></td></tr>
<tr><th>current</th><td><code>${wf.current_commit.slice(0, 12)}</code></td></tr>
<tr><th>review cycle</th>
<td>${wf.review_cycle} of ${wf.max_review_cycles}, ${wf.blocking_findings} blocking</td></tr>
${blockedRow(wf)}
</table>
${actionsSection(wf, csrf)}
${findingsSection(wf)}
${acceptanceSection(paths, wf)}
${artifactsSection(paths, wf)}
${diffSection(wf)}
${awaitingSection(paths)}
<h2>Timeline</h2><table>${headRow('at', 'actor', 'action', 'from → to', 'detail')}
${wf.history.map((e) => row(e.at, e.actor, e.action, `${e.from} → ${e.to}`, e.detail))}</table>`;
}
