// Usage texts of the agent commands (printed for --help, wrong arguments and invalid drafts).

/** swarm_handoff's usage, with both draft formats. */
export const SWARM_HANDOFF_USAGE = `Usage: swarm_handoff <draft-file>

Queues a handoff for handoffd to deliver. Write a draft of headers only:

  type: git_handoff
  to: cleaner
  priority: 50
  task: task-1-cave-setup
  commit: a1b2c3d9e8

  type: note
  to: architect,QA
  priority: 70
  message: Waiting on QA result before merging.

to: comma-separated roles; priority: 00-99 (lower is sooner); commit: 10 hex
characters of a commit in your worktree; task and message: at most 80 characters.
The body is generated. On success the draft is deleted and the command prints
HANDOFF QUEUED: <path>.`;

/** ready_for_next's usage. */
export const READY_FOR_NEXT_USAGE = `Usage: ready_for_next

Hands you your current task (again) or claims the next one from your inbox.
Prints TASK/FROM/TYPE/PRIORITY/[TASK_NAME]/PAYLOAD, a BATCH for batch roles,
or NO_TASK. Uses $SWARMFORGE_ROLE and the project's .swarmforge/roles.tsv.`;

/** done_with_current's usage. */
export const DONE_WITH_CURRENT_USAGE = `Usage: done_with_current [ID]

Completes the task (or batch) in process, prints COMPLETED: <path>, then claims
the next one exactly as ready_for_next does. With ID (the handoff's id or file
name), refuses unless that is the item in process, so a repeated call cannot
complete work you have not seen; for work already completed it prints
ALREADY_COMPLETED: <path>, changes nothing, and then prints what ready_for_next
prints.`;
