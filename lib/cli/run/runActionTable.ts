// The actions of `baton run` (docs/runtime.md §4): for each, its usage line, what it does,
// its options (node:util parseArgs specs), its positionals and its handler. Handlers import
// the runtime when they run, so `baton run status` loads only what it needs.
import { fail } from '../../fsx/commandFailure.js';
import { type ActionReport, type RunContext } from '../../run/record/runContext.js';

/** Parsed option values. */
export type RunValues = Record<string, string | boolean | string[] | undefined>;

/** One action of `baton run`. */
export interface RunAction {
  usage: string;
  describe: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  positionals: string[];
  run: (
    ctx: RunContext,
    v: RunValues,
    p: string[],
  ) => Promise<ActionReport | ActionReport['status'][] | void>;
}

const str = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
const lease = { lease: str };

/** A required string option. */
export function required(v: RunValues, name: string, action: string): string {
  const value = v[name];
  if (typeof value !== 'string') fail('usage', `${action}: --${name} is required`);
  if (value.trim() === '') fail('usage', `${action}: --${name} must not be empty`);
  return value;
}

/** A whole-number option that must be given. */
export function requiredWholeNumber(
  v: RunValues,
  name: string,
  action: string,
  min: number,
): number {
  required(v, name, action);
  return wholeNumber(v, name, action, min, min);
}

/** A whole-number option (with its default when absent). */
export function wholeNumber(
  v: RunValues,
  name: string,
  action: string,
  fallback: number,
  min = 0,
): number {
  const value = v[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value) || Number(value) < min)
    fail(
      'usage',
      `${action}: --${name} takes a whole number of at least ${min}, not '${String(value)}'`,
    );
  return Number(value);
}

const owner = () => import('../../run/owner/ownerSteps.js');
const controller = () => import('../../run/gates/controllerActions.js');
const gates = () => import('../../run/gates/gateSteps.js');

const reasonOf = (v: RunValues, action: string) => required(v, 'reason', action);

/** The options of `start` (and of `new`, which answers start's questions with them). */
const START_OPTIONS = {
  request: str,
  task: str,
  spec: str,
  acceptance: str,
  repo: str,
  base: str,
  stages: str,
  'max-cycles': str,
  'acceptance-timeout': str,
  'retry-attempts': str,
  'retry-base-ms': str,
  worker: str,
  reviewers: str,
  validator: str,
  controller: str,
};

/** The actions, by name. */
export const RUN_ACTIONS: Record<string, RunAction> = {
  start: {
    usage:
      'start --request R --task T --spec PATH --acceptance CMD ' +
      '[--repo DIR] [--base REF] [--stages a,b] [--max-cycles N] ' +
      '[--acceptance-timeout S] [--retry-attempts N] ' +
      '[--retry-base-ms N] [--worker R --reviewers A,B --validator ' +
      'R --controller R]',
    describe: 'Start a run for a request (one non-terminal run per request)',
    options: START_OPTIONS,
    positionals: [],
    run: async (ctx, v) => (await import('./runStartOptions.js')).startFromValues(ctx, v),
  },
  new: {
    usage:
      'new [--request R] [--task T] [--repo DIR] [--spec PATH] [--acceptance CMD] ' +
      '[--base REF] [--worker R] [--reviewers A,B] [--validator R] [--controller R] ' +
      "[start's other options] [--ready-timeout S] [--agents-user USER] [--yes]",
    describe:
      'Ask for a run (last answers offered), show its start command, then run start and up; ' +
      '--yes asks nothing',
    options: { ...START_OPTIONS, 'ready-timeout': str, 'agents-user': str, yes: flag },
    positionals: [],
    run: async (ctx, v) => (await import('./runNew.js')).runNew(ctx, v),
  },
  status: {
    usage: 'status [RUN-ID] [--watch]',
    describe: "Print a run's status (JSON); without RUN-ID, every run; --watch redraws on change",
    options: { watch: flag },
    positionals: ['run-id?'],
    run: async (ctx, v, p) =>
      (await import('../../run/record/runListing.js')).statusOrList(ctx, p[0]),
  },
  list: {
    usage: 'list',
    describe: 'Print the status of every run (a JSON array)',
    options: {},
    positionals: [],
    run: async (ctx) =>
      (await import('../../run/record/runListing.js')).statusOrList(ctx, undefined),
  },
  pause: {
    usage: 'pause RUN-ID',
    describe: 'Pause now (no active stage) or at the next checkpoint',
    options: {},
    positionals: ['run-id'],
    run: async (ctx, _v, p) => (await owner()).pauseStep(ctx, p[0]!),
  },
  resume: {
    usage: 'resume RUN-ID [--reclaim-stale]',
    describe: 'Resume a PAUSED run after verifying it (docs: resume verification)',
    options: { 'reclaim-stale': flag },
    positionals: ['run-id'],
    run: async (ctx, v, p) => (await owner()).resumeStep(ctx, p[0]!, v['reclaim-stale'] === true),
  },
  retry: {
    usage: 'retry RUN-ID [--add-cycles N] [--reclaim-stale]',
    describe: 'Retry a BLOCKED run after verifying it; --add-cycles past a review cycle limit',
    options: { 'add-cycles': str, 'reclaim-stale': flag },
    positionals: ['run-id'],
    run: async (ctx, v, p) =>
      (await owner()).retryStep(
        ctx,
        p[0]!,
        wholeNumber(v, 'add-cycles', 'retry', 0),
        v['reclaim-stale'] === true,
      ),
  },
  'request-changes': {
    usage: 'request-changes RUN-ID --note TEXT [--note TEXT...]',
    describe: 'Send the run back to its first stage (next review cycle), keeping the notes',
    options: { note: { type: 'string', multiple: true } },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const notes = (v.note as string[] | undefined) ?? [];
      if (notes.length === 0 || notes.some((n) => n.trim() === ''))
        fail('usage', 'request-changes: give at least one non-empty --note');
      return (await owner()).requestChangesStep(ctx, p[0]!, notes);
    },
  },
  approve: {
    usage: 'approve RUN-ID',
    describe: 'Approve a run waiting for human approval (COMPLETED)',
    options: {},
    positionals: ['run-id'],
    run: async (ctx, _v, p) => (await owner()).approveStep(ctx, p[0]!),
  },
  cancel: {
    usage: 'cancel RUN-ID --reason TEXT',
    describe: 'Cancel a run (CANCELLED, terminal)',
    options: { reason: str },
    positionals: ['run-id'],
    run: async (ctx, v, p) => (await owner()).endStep(ctx, p[0]!, 'cancel', reasonOf(v, 'cancel')),
  },
  fail: {
    usage: 'fail RUN-ID --reason TEXT',
    describe: 'Fail a run (FAILED, terminal)',
    options: { reason: str },
    positionals: ['run-id'],
    run: async (ctx, v, p) => (await owner()).endStep(ctx, p[0]!, 'fail', reasonOf(v, 'fail')),
  },
  lease: {
    usage:
      'lease RUN-ID acquire [--pid PID] [--ttl S] [--reclaim-stale] ' +
      '| lease RUN-ID heartbeat|release --lease TOKEN',
    describe: "Take, renew or give back the run's mutation lease (controllers)",
    options: { pid: str, ttl: str, 'reclaim-stale': flag, ...lease },
    positionals: ['run-id', 'acquire|heartbeat|release'],
    run: async (ctx, v, p) => {
      const c = await controller();
      if (p[1] === 'acquire')
        return c.leaseAcquireStep(ctx, p[0]!, {
          pid: wholeNumber(v, 'pid', 'lease acquire', process.ppid, 1),
          ttlS: v.ttl === undefined ? undefined : wholeNumber(v, 'ttl', 'lease acquire', 60, 1),
          reclaimStale: v['reclaim-stale'] === true,
        });
      if (p[1] === 'heartbeat' || p[1] === 'release')
        return c.leaseTokenStep(ctx, p[0]!, p[1], required(v, 'lease', `lease ${p[1]}`));
      fail('usage', `lease: the second argument is acquire, heartbeat or release, not '${p[1]}'`);
    },
  },
  'stage-start': {
    usage: 'stage-start RUN-ID STAGE --lease TOKEN',
    describe: 'Start the next stage',
    options: lease,
    positionals: ['run-id', 'stage'],
    run: async (ctx, v, p) =>
      (await controller()).stageStartStep(ctx, p[0]!, required(v, 'lease', 'stage-start'), p[1]!),
  },
  acceptance: {
    usage: 'acceptance RUN-ID --lease TOKEN [--command CMD]',
    describe: 'Run the configured acceptance command (no shell) and record its evidence',
    options: { command: str, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) =>
      (await gates()).acceptanceStep(
        ctx,
        p[0]!,
        required(v, 'lease', 'acceptance'),
        v.command as string | undefined,
      ),
  },
  checkpoint: {
    usage: 'checkpoint RUN-ID STAGE --artifact PATH:TYPE [--artifact ...] --lease TOKEN',
    describe: 'Record the active stage as done at HEAD, with its artifacts',
    options: { artifact: { type: 'string', multiple: true }, ...lease },
    positionals: ['run-id', 'stage'],
    run: async (ctx, v, p) =>
      (await controller()).checkpointStep(
        ctx,
        p[0]!,
        required(v, 'lease', 'checkpoint'),
        p[1]!,
        (v.artifact as string[] | undefined) ?? [],
      ),
  },
  artifact: {
    usage: 'artifact RUN-ID PATH --type T --producer P --lease TOKEN',
    describe: 'Register a file as an artifact of the run',
    options: { type: str, producer: str, ...lease },
    positionals: ['run-id', 'path'],
    run: async (ctx, v, p) =>
      (await controller()).artifactStep(ctx, p[0]!, required(v, 'lease', 'artifact'), {
        path: p[1]!,
        type: required(v, 'type', 'artifact'),
        producer: required(v, 'producer', 'artifact'),
      }),
  },
  review: {
    usage: 'review RUN-ID --cycle N --lane structured=FILE --lane independent=FILE --lease TOKEN',
    describe: 'Record both review lanes of the current cycle',
    options: { cycle: str, lane: { type: 'string', multiple: true }, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) =>
      (await gates()).reviewStep(
        ctx,
        p[0]!,
        required(v, 'lease', 'review'),
        requiredWholeNumber(v, 'cycle', 'review', 1),
        (v.lane as string[] | undefined) ?? [],
      ),
  },
  'resolve-review': {
    usage: 'resolve-review RUN-ID --cycle N --validation FILE --resolution FILE --lease TOKEN',
    describe: 'Record the validation and resolution of the blocking findings',
    options: { cycle: str, validation: str, resolution: str, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) =>
      (await gates()).resolveReviewStep(
        ctx,
        p[0]!,
        required(v, 'lease', 'resolve-review'),
        requiredWholeNumber(v, 'cycle', 'resolve-review', 1),
        {
          validation: v.validation as string | undefined,
          resolution: required(v, 'resolution', 'resolve-review'),
        },
      ),
  },
  provider: {
    usage: 'provider RUN-ID --name P (--failed REASON | --succeeded) --lease TOKEN',
    describe: 'Record a provider failure (backoff, then BLOCKED) or success',
    options: { name: str, failed: str, succeeded: flag, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      if ((v.failed === undefined) === (v.succeeded !== true))
        fail('usage', 'provider: give exactly one of --failed REASON and --succeeded');
      return (await controller()).providerStep(ctx, p[0]!, required(v, 'lease', 'provider'), {
        name: required(v, 'name', 'provider'),
        failed: v.failed === undefined ? undefined : required(v, 'failed', 'provider'),
      });
    },
  },
  observe: {
    usage: 'observe RUN-ID --role R --state working|idle|waiting|dead|unknown [--pane P] --lease T',
    describe: "Record a role's observed agent state (controllers; only a change is written)",
    options: { role: str, state: str, pane: str, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const { AGENT_STATES } = await import('../../project/agentObservation.js');
      const state = required(v, 'state', 'observe');
      if (!(AGENT_STATES as readonly string[]).includes(state))
        fail('usage', `observe: --state is one of ${AGENT_STATES.join(', ')}, not '${state}'`);
      return (await controller()).observeStep(ctx, p[0]!, required(v, 'lease', 'observe'), {
        role: required(v, 'role', 'observe'),
        state: state as (typeof AGENT_STATES)[number],
        pane: (v.pane as string | undefined) ?? '',
      });
    },
  },
  reply: {
    usage:
      'reply RUN-ID --kind ' +
      'work|review|validation|resolution|question --stage S --cycle ' +
      'N --file F [--lane structured|independent] | reply RUN-ID --key KEY --file F',
    describe:
      'Answer the controller (agents): the file is kept as an ' +
      'immutable artifact and a run_result is queued',
    options: { kind: str, stage: str, cycle: str, file: str, lane: str, key: str },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const role = ctx.env.SWARMFORGE_ROLE;
      if (!role) fail('usage', 'reply: Set SWARMFORGE_ROLE (the role that replies).');
      const { REPLY_KINDS, replyOfKey, replyToRun } =
        await import('../../run/controller/runReply.js');
      const cycle = v.cycle === undefined ? undefined : requiredWholeNumber(v, 'cycle', 'reply', 1);
      const given = {
        kind: v.kind as (typeof REPLY_KINDS)[number] | undefined,
        stage: v.stage as string | undefined,
        cycle,
        lane: v.lane as string | undefined,
      };
      const named = typeof v.key === 'string' ? replyOfKey(v.key, given) : undefined;
      if (named && named.runId !== p[0])
        fail('usage', `reply: --key names run ${named.runId}, not ${p[0]}`);
      const kind = named?.kind ?? required(v, 'kind', 'reply');
      if (!(REPLY_KINDS as readonly string[]).includes(kind))
        fail('usage', `reply: --kind is one of ${REPLY_KINDS.join(', ')}, not '${kind}'`);
      const queued = await replyToRun(
        ctx.root,
        ctx.cwd,
        {
          runId: p[0]!,
          kind: kind as (typeof REPLY_KINDS)[number],
          stage: named?.stage ?? required(v, 'stage', 'reply'),
          cycle: named?.cycle ?? requiredWholeNumber(v, 'cycle', 'reply', 1),
          lane: named ? named.lane : given.lane,
          file: required(v, 'file', 'reply'),
          role,
        },
        ctx.now,
      );
      const { reportOf } = await import('../../run/record/runContext.js');
      return reportOf({ ...queued, extra: { reply: queued.artifact } }, ctx.now());
    },
  },
  drive: {
    usage:
      'drive RUN-ID [--reclaim-stale] [--poll-interval S] [--reply-attempts N] ' +
      '[--reply-timeout KIND=DURATION]... [--rotate-reviewers | --no-rotate-reviewers] ' +
      '[--restart-dead]',
    describe: "Run the controller: move the run's work between agents over the queue until it ends",
    options: {
      'reclaim-stale': flag,
      'poll-interval': str,
      'reply-attempts': str,
      'reply-timeout': { type: 'string', multiple: true },
      'rotate-reviewers': flag,
      'no-rotate-reviewers': flag,
      'restart-dead': flag,
      'agents-user': str,
    },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const { replyTimeoutsOf } = await import('../../run/controller/replyDeadlines.js');
      const timeouts = replyTimeoutsOf((v['reply-timeout'] as string[] | undefined) ?? []);
      if (typeof timeouts === 'string') fail('usage', `drive: ${timeouts}`);
      if (v['rotate-reviewers'] === true && v['no-rotate-reviewers'] === true)
        fail('usage', 'drive: --rotate-reviewers and --no-rotate-reviewers contradict each other');
      return (await import('./runDrive.js')).driveFromCli(ctx, p[0]!, {
        reclaimStale: v['reclaim-stale'] === true,
        pollInterval: v['poll-interval'] as string | undefined,
        replyAttempts:
          v['reply-attempts'] === undefined
            ? undefined
            : wholeNumber(v, 'reply-attempts', 'drive', 1, 1),
        replyTimeouts: timeouts,
        rotateReviewers:
          v['rotate-reviewers'] === true
            ? true
            : v['no-rotate-reviewers'] === true
              ? false
              : undefined,
        restartDead: v['restart-dead'] === true,
      });
    },
  },
  ack: {
    usage: 'ack RUN-ID --nonce N',
    describe:
      "Acknowledge a rotated reviewer's new session (agents; the nonce is in its run_rotate)",
    options: { nonce: str },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const role = ctx.env.SWARMFORGE_ROLE;
      if (!role) fail('usage', 'ack: Set SWARMFORGE_ROLE (the role that acknowledges).');
      const nonce = required(v, 'nonce', 'ack');
      const { ackRotation } = await import('../../run/controller/rotation.js');
      const key = await ackRotation(ctx.root, p[0]!, role, nonce, ctx.now());
      return (await import('../../run/record/runListing.js')).withExtra(ctx, p[0]!, {
        ack: { role, key },
      });
    },
  },
  up: {
    usage:
      'up RUN-ID [--request R] [--ready-timeout S] [--reply-attempts N] ' +
      '[--reply-timeout KIND=DURATION]... [--rotate-reviewers | --no-rotate-reviewers] ' +
      '[--restart-dead] [--agents-user USER]',
    describe:
      'Start the swarm for an ACTIVE run, with its controller (baton run drive, given the ' +
      '--reply-*, rotation and --restart-dead options) and the monitor; waits up to ' +
      '--ready-timeout S (120) for each agent; --agents-user as baton up',
    options: {
      request: str,
      'ready-timeout': str,
      'reply-attempts': str,
      'reply-timeout': { type: 'string', multiple: true },
      'rotate-reviewers': flag,
      'no-rotate-reviewers': flag,
      'restart-dead': flag,
      'agents-user': str,
    },
    positionals: ['run-id'],
    run: async (ctx, v, p) => {
      const { replyTimeoutsOf } = await import('../../run/controller/replyDeadlines.js');
      const timeouts = (v['reply-timeout'] as string[] | undefined) ?? [];
      const problem = replyTimeoutsOf(timeouts);
      if (typeof problem === 'string') fail('usage', `up: ${problem}`);
      const attempts = v['reply-attempts'] === undefined ? [] : ['--reply-attempts'];
      if (attempts.length > 0) attempts.push(String(wholeNumber(v, 'reply-attempts', 'up', 1, 1)));
      if (v['rotate-reviewers'] === true && v['no-rotate-reviewers'] === true)
        fail('usage', 'up: --rotate-reviewers and --no-rotate-reviewers contradict each other');
      const flags = ['rotate-reviewers', 'no-rotate-reviewers', 'restart-dead'].filter(
        (f) => v[f] === true,
      );
      const driveArgs = [
        ...attempts,
        ...timeouts.flatMap((t) => ['--reply-timeout', t]),
        ...flags.map((f) => `--${f}`),
      ];
      const readyTimeoutMs = wholeNumber(v, 'ready-timeout', 'up', 120) * 1000;
      return (await import('./runSwarm.js')).runUp(
        ctx,
        p[0]!,
        v.request as string | undefined,
        driveArgs,
        readyTimeoutMs,
        v['agents-user'] as string | undefined,
      );
    },
  },
  down: {
    usage: 'down RUN-ID',
    describe: "Stop the run's swarm and controller (the run is untouched)",
    options: {},
    positionals: ['run-id'],
    run: async (ctx, _v, p) => (await import('./runSwarm.js')).runDown(ctx, p[0]!),
  },
  answer: {
    usage: 'answer RUN-ID TEXT',
    describe: "Answer a worker's question (the controller forwards it to the same worker)",
    options: {},
    positionals: ['run-id', 'text'],
    run: async (ctx, _v, p) => {
      if (p[1]!.trim() === '') fail('usage', 'answer: the answer must not be empty');
      const { answerQuestion } = await import('../../run/owner/runAnswer.js');
      await answerQuestion(ctx.root, p[0]!, p[1]!, ctx.now(), ctx.channel);
      return (await import('../../run/record/runListing.js')).withExtra(ctx, p[0]!, {
        answered: true,
      });
    },
  },
  block: {
    usage: 'block RUN-ID --reason TEXT --lease TOKEN',
    describe: 'Block the run (exit 0: the block is what was asked)',
    options: { reason: str, ...lease },
    positionals: ['run-id'],
    run: async (ctx, v, p) =>
      (await controller()).blockStep(
        ctx,
        p[0]!,
        required(v, 'lease', 'block'),
        reasonOf(v, 'block'),
      ),
  },
};
