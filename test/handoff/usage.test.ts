import assert from 'node:assert/strict';
import { validateDraft } from '../../lib/handoff/draft.js';
import {
  DONE_WITH_CURRENT_USAGE,
  READY_FOR_NEXT_USAGE,
  SWARM_HANDOFF_USAGE,
} from '../../lib/handoff/usage.js';

/** The indented example blocks of a usage text, dedented. */
function examplesOf(usage: string): string[] {
  const blocks: string[][] = [[]];
  for (const line of usage.split('\n')) {
    if (line.startsWith('  ')) blocks[blocks.length - 1]!.push(line.slice(2));
    else if (blocks[blocks.length - 1]!.length > 0) blocks.push([]);
  }
  return blocks.filter((b) => b.length > 0).map((b) => `${b.join('\n')}\n`);
}

describe('lib/handoff/usage', () => {
  it('swarm_handoff: names the command and shows both draft formats (protocol §5)', () => {
    assert.ok(SWARM_HANDOFF_USAGE.startsWith('Usage: swarm_handoff <draft-file>\n'));
    const examples = examplesOf(SWARM_HANDOFF_USAGE);
    assert.deepEqual(examples, [
      'type: git_handoff\nto: cleaner\npriority: 50\ntask: task-1-cave-setup\ncommit: a1b2c3d9e8\n',
      'type: note\nto: architect,QA\npriority: 70\nmessage: Waiting on QA result before merging.\n',
    ]);
  });

  it('swarm_handoff: both examples are valid drafts', async () => {
    const roles = new Set(['cleaner', 'architect', 'QA']);
    for (const example of examplesOf(SWARM_HANDOFF_USAGE)) {
      const result = await validateDraft(example, roles, async (prefix) =>
        prefix === 'a1b2c3d9e8' ? { matches: 1, type: 'commit' } : { matches: 0 },
      );
      assert.ok(result.ok, `${example}: ${JSON.stringify(result)}`);
    }
  });

  it('swarm_handoff: states the rules and the success line', () => {
    assert.match(SWARM_HANDOFF_USAGE, /00-99/);
    assert.match(SWARM_HANDOFF_USAGE, /10 hex/);
    assert.match(SWARM_HANDOFF_USAGE, /80 characters/);
    assert.match(SWARM_HANDOFF_USAGE, /HANDOFF QUEUED: <path>/);
  });

  it('ready_for_next and done_with_current name their command and arguments', () => {
    assert.ok(READY_FOR_NEXT_USAGE.startsWith('Usage: ready_for_next\n'));
    assert.match(READY_FOR_NEXT_USAGE, /NO_TASK/);
    assert.ok(DONE_WITH_CURRENT_USAGE.startsWith('Usage: done_with_current [ID]\n'));
    assert.match(DONE_WITH_CURRENT_USAGE, /COMPLETED: <path>/);
    assert.match(DONE_WITH_CURRENT_USAGE, /ALREADY_COMPLETED: <path>/);
  });

  it('no usage text ends with a newline (the printer adds exactly one)', () => {
    for (const usage of [SWARM_HANDOFF_USAGE, READY_FOR_NEXT_USAGE, DONE_WITH_CURRENT_USAGE])
      assert.ok(!usage.endsWith('\n'));
  });
});
