// The exact stdout of ready_for_next and done_with_current (protocol §7): agents and their
// prompts parse these lines, so they are byte-for-byte the reference's.
import { type Item } from '../queue/index.js';

/** TASK/FROM/TYPE/PRIORITY/[TASK_NAME]/PAYLOAD block; the body verbatim, newline-terminated. */
export function taskText(item: Item): Buffer {
  const h = item.headers;
  const lines = [
    `TASK: ${item.path}`,
    `FROM: ${h.from || 'unknown'}`,
    `TYPE: ${h.type || 'unknown'}`,
    `PRIORITY: ${h.priority || '50'}`,
    ...(h.task ? [`TASK_NAME: ${h.task}`] : []),
    'PAYLOAD:',
  ];
  const body = item.body;
  const newline = body.length > 0 && body[body.length - 1] === 0x0a ? '' : '\n';
  return Buffer.concat([Buffer.from(lines.join('\n') + '\n'), body, Buffer.from(newline)]);
}

/** BATCH/COUNT/PRIORITY then one BATCH_ITEM block per item, separated by blank lines. */
export function batchText(dir: string, priority: string, items: Item[]): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`BATCH: ${dir}\nCOUNT: ${items.length}\nPRIORITY: ${priority}\n`),
  ];
  items.forEach((item, i) => {
    parts.push(Buffer.from(`\nBATCH_ITEM: ${i + 1}\n`), taskText(item));
  });
  return Buffer.concat(parts);
}

/** The priority an item counts as: its header, or 50. */
export function priorityOf(item: Item): string {
  return item.headers.priority || '50';
}
