// Lone-handoff delivery latency, as figure 4 samples it: a lane is one deliverer under test
// (where handoffs go in, where their copies come out, how to tell the deliverer is idle);
// its contender renames one fsync'd handoff into the sender's outbox/ and waits for the
// copy in the recipient's inbox/new/ (Arrivals: fs.watch with a 2 ms poll behind it), then,
// untimed, waits until the deliverer is done with it and removes the copy. The sender and
// the recipient may live in different ROOTs (figure 13, across two nodes).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ensureMailbox, type Mailbox } from '../../lib/queue/mailbox.js';
import { Arrivals } from './arrivals.js';
import { handoffFile, stageHandoff } from './handoffFiles.js';
import { type Contender } from './interleave.js';

/** One deliverer under test: where handoffs go in, where copies come out, how to tell it is idle. */
export interface Lane {
  name: string;
  /** The sending role (its mailbox is `sender`) and the recipient. */
  from: string;
  to: string;
  sender: Mailbox;
  arrivals: Arrivals;
  /** Resolves once the deliverer has finished with `name`, the `count`th handoff of this lane. */
  finished: (name: string, count: number) => Promise<void>;
  sent: number;
  seq: number;
  /** Name of the handoff in flight. */
  current: string;
}

/** A lane from role `from` (mailbox `sender`) to role `to` (mailbox `recipient`); makes both mailboxes. */
export function laneOf(
  name: string,
  from: string,
  sender: Mailbox,
  to: string,
  recipient: Mailbox,
  finished: Lane['finished'],
): Lane {
  ensureMailbox(sender);
  ensureMailbox(recipient);
  return {
    name,
    from,
    to,
    sender,
    arrivals: new Arrivals(recipient.inboxNew),
    finished,
    sent: 0,
    seq: 0,
    current: '',
  };
}

/** A contender that publishes one handoff on `lane` and waits for its copy. */
export function sender(lane: Lane): Contender {
  let publish: () => void = () => undefined;
  let arrived: Promise<void> = Promise.resolve();
  return {
    name: lane.name,
    prepare: async () => {
      const file = await handoffFile(++lane.seq, lane.from, [lane.to]);
      publish = stageHandoff(lane.sender, file);
      arrived = lane.arrivals.expect(file.name);
      // keep a rejected arrival from being unhandled before run() awaits it
      arrived.catch(() => undefined);
      lane.current = file.name;
      lane.sent += 1;
    },
    run: async () => {
      publish();
      await arrived;
    },
    reset: async () => {
      await lane.finished(lane.current, lane.sent);
      fs.unlinkSync(join(lane.arrivals.dir, lane.current));
    },
  };
}
