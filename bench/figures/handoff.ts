// Figure 3: swarm_handoff. In process, sendHandoff (validate, sequence, journal, publish,
// delete the draft) vs the raw durable publish of the same bytes; and the bin end to end
// vs `node -e 0`, for context on what an agent waits for. Under 3a, parts of a send, each
// one library call made as sendHandoff makes it (the sender's own mailbox, the envelope a
// send wrote) and timed alone, and the fsyncs of a real send counted. The bin is timed beside
// its floor (bench/support/durableFloor.ts): a bare Node process making a send's durable steps.
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { mailboxOf } from '../../lib/project/layout.js';
import { sendHandoff } from '../../lib/handoff/send.js';
import { takeSequence } from '../../lib/handoff/sequence.js';
import { parseEnvelope, serializeEnvelope, type Envelope } from '../../lib/queue/envelope.js';
import { withLock } from '../../lib/fsx/lock.js';
import {
  BIN_DIR,
  makeProject,
  noteDraft,
  tempDir,
  type Project,
} from '../../test/support/project.js';
import { rawFsyncDir, rawPublish } from '../support/baselines.js';
import { placeSynced } from '../support/fixtureWrites.js';
import { floorContender, sendFloor } from '../support/durableFloor.js';
import { countFsyncs } from '../support/fsyncCount.js';
import { interleave, medianAlone } from '../support/interleave.js';
import {
  atMost,
  figureOf,
  printFigure,
  printHeading,
  printPart,
  withFloor,
  type Figure,
} from '../support/report.js';
import { agentEnv, expectRun, nodeStartContender, timedNode } from '../support/spawnNode.js';
import { formatMs, summarize } from '../support/stats.js';

const WARMUP = 5;
const IN_PROCESS_RUNS = 60;
const BIN_RUNS = 20;
const PART_WARMUP = 3;
const PART_RUNS = 15;
const SENDER = 'coder';
const DRAFT = noteDraft('reviewer', 'benchmark note');

/** Writes the draft and syncs it (untimed), so a timed send does not pay to flush the agent's write. */
function placeDraft(path: string): void {
  placeSynced(path, DRAFT);
}

/** Removes a published handoff (untimed) so the outbox stays the same size. */
function removeQueued(path: string): void {
  fs.unlinkSync(path);
  rawFsyncDir(join(path, '..'));
}

function queuedPathOf(stdout: string): string {
  const match = /^HANDOFF QUEUED: (.+)\n$/.exec(stdout);
  if (!match) throw new Error(`unexpected swarm_handoff output ${JSON.stringify(stdout)}`);
  return match[1]!;
}

/** Times parts of a send by SENDER in `root`, each alone, and prints them with their share of `whole`. */
async function printSendParts(root: string, sample: Envelope, whole: number): Promise<void> {
  const box = mailboxOf(root, SENDER);
  const median = (run: () => Promise<void> | void) => medianAlone(run, PART_WARMUP, PART_RUNS);
  console.log('    where the time goes (each part timed alone, median, share of a send):');
  printPart(
    'outbox lock take + release ',
    await median(() => withLock(box.outboxLock, () => undefined)),
    whole,
  );
  printPart(
    'takeSequence (2 fsyncs) ',
    await median(async () => void (await takeSequence(box))),
    whole,
  );
  printPart(
    'serializeEnvelope ',
    await median(async () => void (await serializeEnvelope(sample.headers, sample.body))),
    whole,
  );
}

async function inProcessFigure(project: Project): Promise<Figure> {
  const env = agentEnv(SENDER);
  const draft = join(project.root, 'draft-bench.txt');
  const send = async () => queuedPathOf(await sendHandoff(draft, project.root, env));
  placeDraft(draft);
  const sample = await send();
  const bytes = fs.readFileSync(sample);
  const envelope = await parseEnvelope(bytes);
  removeQueued(sample);
  const rawDir = tempDir('baton-bench-raw-');
  const rawTmp = join(rawDir, 'outbox', 'tmp');
  fs.mkdirSync(rawTmp, { recursive: true, mode: 0o700 });
  try {
    let libQueued = '';
    let rawQueued = '';
    const [libMs, rawMs] = await interleave(
      [
        {
          name: 'sendHandoff',
          prepare: () => placeDraft(draft),
          run: async () => void (libQueued = await send()),
          reset: () => removeQueued(libQueued),
        },
        {
          name: 'raw publish',
          run: () =>
            void (rawQueued = rawPublish(rawTmp, join(rawDir, 'outbox'), basename(sample), bytes)),
          reset: () => removeQueued(rawQueued),
        },
      ],
      WARMUP,
      IN_PROCESS_RUNS,
    );
    const figure = figureOf(
      '3a',
      'swarm_handoff in process (sendHandoff)',
      summarize(libMs!),
      'write+fsync+rename+fsync dir',
      summarize(rawMs!),
      atMost(1.5, ' (assumed)'),
    );
    printFigure(figure);
    placeDraft(draft);
    const libFsyncs = await countFsyncs(async () => void (libQueued = await send()));
    removeQueued(libQueued);
    const rawFsyncs = await countFsyncs(
      () => void (rawQueued = rawPublish(rawTmp, join(rawDir, 'outbox'), basename(sample), bytes)),
    );
    removeQueued(rawQueued);
    await printSendParts(project.root, envelope, figure.subject.median);
    console.log(
      `      fsyncs per send: library ${libFsyncs}, raw ${rawFsyncs}` +
        " (library: sequence counter, temp file, journal record, their directories, the draft's removal)",
    );
    console.log(
      `    note: the raw publish is the protocol's minimum; the library adds the sequence counter and the crash journal (§6), each fsync'd.`,
    );
    return figure;
  } finally {
    fs.rmSync(rawDir, { recursive: true, force: true });
  }
}

async function binFigure(project: Project, scratch: string): Promise<Figure> {
  const env = agentEnv(SENDER);
  const draft = join(project.root, 'draft-bench-bin.txt');
  const bin = join(BIN_DIR, 'swarm_handoff.js');
  let queued = '';
  const floor = sendFloor(scratch, DRAFT);
  const [binMs, nodeMs, floorMs] = await interleave(
    [
      {
        name: 'swarm_handoff',
        prepare: () => placeDraft(draft),
        run: async () => {
          const run = await timedNode([bin, draft], project.root, env);
          expectRun('swarm_handoff', run, 'HANDOFF QUEUED: ');
          queued = queuedPathOf(run.stdout);
        },
        reset: () => removeQueued(queued),
      },
      nodeStartContender(project.root, env),
      floorContender(floor, project.root, env),
    ],
    WARMUP,
    BIN_RUNS,
  );
  const figure = figureOf(
    '3b',
    'swarm_handoff bin end to end',
    summarize(binMs!),
    'node -e 0',
    summarize(nodeMs!),
    atMost(1.2),
  );
  printFigure(figure);
  const floored = withFloor(figure, floor.name, summarize(floorMs!));
  console.log(
    `    context: the bin costs ${formatMs(figure.subject.median - figure.baseline.median)} more than a bare node start-up (its work in process is figure 3a).`,
  );
  return floored;
}

/** Measures sendHandoff in process vs a raw durable publish, and the bin vs `node -e 0`. */
export async function benchHandoff(): Promise<Figure[]> {
  printHeading('3. swarm_handoff: library send vs raw durable publish; bin vs node -e 0');
  const project = makeProject();
  const scratch = tempDir('baton-bench-floors-');
  try {
    return [await inProcessFigure(project), await binFigure(project, scratch)];
  } finally {
    project.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
