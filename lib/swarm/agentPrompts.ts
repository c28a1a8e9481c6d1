// The instructions each role's agent starts with, as the reference launcher gives them:
// `.swarmforge/prompts/<role>.md` tells the agent to read the pack's constitution
// (`swarmforge/constitution.prompt`) and its role prompt (`swarmforge/roles/<role>.prompt`),
// every file they refer to, and to obey them. Each path is the one the agent sees from its
// own worktree (as the reference writes it) when the file is there, else ROOT's copy.
//
// A project with neither a constitution nor a `swarmforge/roles/` folder is not a pack:
// its agents start without a prompt file. A pack needs the constitution; once a roles
// folder exists every role needs its prompt there (without the folder, role prompts are
// optional). Every missing file is reported at once, before anything starts.
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { type Role } from '../handoff/roles.js';
import { fail } from '../fsx/commandFailure.js';
import {
  agentPromptPathOf,
  constitutionPathOf,
  rolePromptPathOf,
  rolePromptsDirOf,
} from '../project/layout.js';
import { mkdirSynced, renameSynced, writeFileSynced } from '../fsx/durable.js';

/**
 * True when ROOT holds a SwarmForge pack (a constitution or a roles folder); fails naming every
 * missing prompt file.
 */
export function checkPackPrompts(root: string, roles: string[]): boolean {
  const hasConstitution = fs.existsSync(constitutionPathOf(root));
  const hasRolesDir = fs.existsSync(rolePromptsDirOf(root));
  if (!hasConstitution && !hasRolesDir) return false;
  const missing = [
    ...(hasConstitution ? [] : [constitutionPathOf(root)]),
    ...(hasRolesDir
      ? roles.map((role) => rolePromptPathOf(root, role)).filter((path) => !fs.existsSync(path))
      : []),
  ];
  if (missing.length > 0)
    fail(
      'environment',
      ...missing.map(
        (path) =>
          `baton: missing prompt file '${path}' (a SwarmForge pack ` +
          `needs the constitution and, with a swarmforge/roles/ folder, ` +
          `one prompt per role)`,
      ),
    );
  return true;
}

/**
 * The path of a pack file as the agent in `worktree` should read it: relative there if the worktree
 * has it, else ROOT's absolute path.
 */
function pathForAgent(root: string, worktree: string, file: string): string {
  const inWorktree = join(worktree, relative(root, file));
  return fs.existsSync(inWorktree) ? relative(worktree, inWorktree) : file;
}

/**
 * The text of a role's prompt file (the reference's two instructions; the second only when the role
 * has a prompt).
 */
export function agentPromptText(root: string, role: Role): string {
  const lines = [
    `Read ` +
      `${pathForAgent(root, role.worktreePath, constitutionPathOf(root))}, ` +
      `then read every file it refers to recursively, and obey all ` +
      `of those instructions.`,
  ];
  const rolePrompt = rolePromptPathOf(root, role.role);
  if (fs.existsSync(rolePrompt))
    lines.push(
      `Read ${pathForAgent(root, role.worktreePath, rolePrompt)}, ` +
        `then read every file it refers to recursively, and follow ` +
        `all of those instructions.`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Writes `.swarmforge/prompts/<role>.md` for every role (atomically, mode 0600); returns role →
 * prompt file.
 */
export function writeAgentPrompts(root: string, roles: Role[]): Map<string, string> {
  const written = new Map<string, string>();
  for (const role of roles) {
    const path = agentPromptPathOf(root, role.role);
    mkdirSynced(join(path, '..'));
    writeFileSynced(`${path}.tmp`, agentPromptText(root, role), false);
    renameSynced(`${path}.tmp`, path);
    written.set(role.role, path);
  }
  return written;
}
