// `npm run sample`: a guided run of Baton on a throw-away project, using only the built
// bins: baton init, swarm_handoff, baton status and doctor, then ready/done on a copy
// delivered by hand (handoffd, which delivers by itself, arrives with the daemon issue).
// Pass --keep to leave the project on disk for `ls` and `cat`.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bins = resolve('dist/bin');
const keep = process.argv.includes('--keep');
const root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-sample-')));
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'sample',
  GIT_AUTHOR_EMAIL: 's@example.com',
  GIT_COMMITTER_NAME: 'sample',
  GIT_COMMITTER_EMAIL: 's@example.com',
};

function run(bin, args, role) {
  const env = { ...process.env, ...(role ? { SWARMFORGE_ROLE: role } : {}) };
  const label = `${role ? `SWARMFORGE_ROLE=${role} ` : ''}${bin} ${args.join(' ')}`.trim();
  process.stdout.write(`\n$ ${label}\n`);
  try {
    process.stdout.write(
      execFileSync(process.execPath, [join(bins, `${bin}.js`), ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  } catch (err) {
    process.stdout.write(`${err.stdout ?? ''}${err.stderr ?? ''}(exit ${err.status})\n`);
  }
}

try {
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'start'], { cwd: root, env: gitEnv });
  const commit = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  mkdirSync(join(root, 'swarmforge'));
  writeFileSync(
    join(root, 'swarmforge', 'swarmforge.conf'),
    'window coder claude master\nwindow reviewer codex review\nwindow QA claude qa batch\n',
  );
  process.stdout.write(`Sample project: ${root}\n`);
  run('baton', ['init']);
  writeFileSync(
    join(root, 'draft.txt'),
    `type: git_handoff\nto: reviewer\npriority: 50\ntask: task-1-sample\ncommit: ${commit}\n`,
  );
  run('swarm_handoff', ['draft.txt'], 'coder');
  writeFileSync(join(root, 'bad-draft.txt'), 'type: note\nto: reviewer,ghost\npriority: 5\n');
  run('swarm_handoff', ['bad-draft.txt'], 'coder');
  run('baton', ['status']);
  const outbox = join(root, '.swarmforge/handoffs/coder/outbox');
  const [name] = readdirSync(outbox).filter((n) => n.endsWith('.handoff'));
  process.stdout.write(`\n(delivering ${name} to reviewer by hand: handoffd will do this)\n`);
  copyFileSync(join(outbox, name), join(root, '.swarmforge/handoffs/reviewer/inbox/new', name));
  run('ready_for_next', [], 'reviewer');
  run('done_with_current', [], 'reviewer');
  run('baton', ['status']);
  run('baton', ['doctor']);
  process.stdout.write(
    keep
      ? `\nKept ${root}: try ls -R ${root}/.swarmforge\n`
      : '\nSample done; project removed (use --keep to inspect it).\n',
  );
} finally {
  if (!keep) rmSync(root, { recursive: true, force: true });
}
