// The UserPromptSubmit hook (runtime.md §12.7, docs/agent-hooks.md): a prompt reached the
// agent, so it is working from now until its Stop hook lets it idle. It only reports that
// (the role's observation file, §11.6) and never adds to the prompt.
import { type HookInput } from './hookInput.js';
import { reportAgent, roleStateOf } from './roleState.js';

/** Reports the role `working`; prints nothing (throws when the project or role cannot be read). */
export function promptSubmitAnswer(input: HookInput, env: NodeJS.ProcessEnv): undefined {
  reportAgent(roleStateOf(input.cwd, env), input, 'working', 'UserPromptSubmit');
  return undefined;
}
