import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import {
  agentCommandLine,
  displayNameOf,
  shellWord,
  type AgentLaunch,
} from '../../lib/swarm/agentLaunch.js';
import { knownAgentOf } from '../../lib/handoff/knownAgents.js';
import { standInAgents } from '../support/daemon.js';
import { tempDir } from '../support/project.js';

describe('lib/swarm/agentLaunch', () => {
  describe('shellWord', () => {
    it('leaves plain words alone', () => {
      for (const word of [
        'claude',
        '--next',
        'reviewer',
        '/usr/bin/x',
        'a=b',
        'user@host:8080',
        '50%',
        '1+1',
        'file.v2_x',
      ])
        assert.equal(shellWord(word), word);
    });

    it('quotes anything else so that a shell reads back exactly the word', () => {
      const tricky = [
        '',
        ' ',
        'two words',
        "it's",
        "''",
        "'\"'",
        '$HOME',
        '${PATH}',
        '$(id)',
        '`id`',
        '"dq"',
        'a\\b',
        '\\',
        '*',
        '?',
        '[a]',
        '~',
        '~/x',
        'a;b',
        'a|b',
        'a&b',
        'a>b',
        '<in',
        '(x)',
        '{a,b}',
        '#comment',
        '!bang',
        'new\nline',
        'tab\tx',
        'é ✓ 日本',
        '-n',
        '-e \\n',
      ];
      for (const word of tricky) {
        const read = execFileSync('bash', ['-c', `printf %s ${shellWord(word)}`], {
          encoding: 'utf8',
        });
        assert.equal(read, word, `${JSON.stringify(word)} quoted as ${shellWord(word)}`);
      }
    });

    it('quotes each word as one argument', () => {
      const words = ['a b', "c'd", '', 'e'];
      const read = execFileSync('bash', ['-c', `printf '<%s>' ${words.map(shellWord).join(' ')}`], {
        encoding: 'utf8',
      });
      assert.equal(read, "<a b><c'd><><e>");
    });
  });

  it('displayNameOf and knownAgentOf follow the reference launcher', () => {
    assert.deepEqual(['coder', 'code-reviewer', 'QA', 'a_b-c'].map(displayNameOf), [
      'Coder',
      'Code Reviewer',
      'Qa',
      'A B C',
    ]);
    assert.deepEqual(
      ['claude', 'Codex', '/opt/bin/copilot', 'grok', 'claude-x', 'echo'].map(knownAgentOf),
      ['claude', 'codex', 'copilot', 'grok', undefined, undefined],
    );
  });

  describe('agentCommandLine', () => {
    const base: AgentLaunch = {
      role: 'code-reviewer',
      agent: 'claude',
      extraArgs: '',
      worktreePath: '/p/.worktrees/rev',
      promptFile: '/p/.swarmforge/prompts/code-reviewer.md',
      commandDir: '/p/.swarmforge/bin',
    };
    const p = '/p/.swarmforge/prompts/code-reviewer.md';

    it("gives claude Baton's hook settings (--settings) and codex its hooks feature, with or without a prompt; other agents nothing", () => {
      const settings = '/p/.swarmforge/claude-hooks.json';
      assert.equal(
        agentCommandLine({ ...base, hooks: { claudeSettings: settings } }),
        `PATH=/p/.swarmforge/bin:"$PATH" claude --settings ${settings} --append-system-prompt-file ${p} --permission-mode acceptEdits -n 'SwarmForge Code Reviewer' "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({
          ...base,
          promptFile: undefined,
          extraArgs: '--model x',
          hooks: { claudeSettings: '/a b/s.json' },
        }),
        `PATH=/p/.swarmforge/bin:"$PATH" claude --settings '/a b/s.json' --model x`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'codex', hooks: { codexHooks: true } }),
        `PATH=/p/.swarmforge/bin:"$PATH" codex -c features.codex_hooks=true -C /p/.worktrees/rev "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'copilot', hooks: {} }),
        agentCommandLine({ ...base, agent: 'copilot' }),
      );
    });

    it('types each known agent as the reference launcher does, prompt file and first message included', () => {
      assert.equal(
        agentCommandLine(base),
        `PATH=/p/.swarmforge/bin:"$PATH" claude --append-system-prompt-file ${p} --permission-mode acceptEdits -n 'SwarmForge Code Reviewer' "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'codex', extraArgs: '--yolo' }),
        `PATH=/p/.swarmforge/bin:"$PATH" codex -C /p/.worktrees/rev --yolo "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'copilot' }),
        `PATH=/p/.swarmforge/bin:"$PATH" copilot -C /p/.worktrees/rev --name 'SwarmForge Code Reviewer' -i "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'grok' }),
        `PATH=/p/.swarmforge/bin:"$PATH" grok --cwd /p/.worktrees/rev --permission-mode acceptEdits --rules "$(cat ${p})" --verbatim "$(cat ${p})"`,
      );
      assert.equal(
        agentCommandLine({ ...base, agent: 'grok', extraArgs: '--yolo' }),
        `PATH=/p/.swarmforge/bin:"$PATH" grok --cwd /p/.worktrees/rev --permission-mode bypassPermissions --yolo --rules "$(cat ${p})" --verbatim "$(cat ${p})"`,
      );
    });

    it('gives any other program the prompt file in SWARMFORGE_PROMPT_FILE; without a pack, the program and its arguments only', () => {
      assert.equal(
        agentCommandLine({ ...base, agent: 'my agent', extraArgs: '--x "y z"' }),
        `PATH=/p/.swarmforge/bin:"$PATH" SWARMFORGE_PROMPT_FILE=${p} 'my agent' --x "y z"`,
      );
      assert.equal(
        agentCommandLine({ ...base, promptFile: undefined, extraArgs: '--model opus' }),
        'PATH=/p/.swarmforge/bin:"$PATH" claude --model opus',
      );
      assert.equal(
        agentCommandLine({ ...base, promptFile: undefined, agentDir: '/opt/agents' }),
        'PATH=/p/.swarmforge/bin:/opt/agents:"$PATH" claude',
      );
    });

    it('run by a shell, each program gets the argv the reference gives it, extra arguments split and expanded as written', () => {
      const dir = tempDir();
      try {
        const standIns = standInAgents(dir, ['claude', 'codex', 'copilot', 'grok', 'other']);
        const prompt = `${dir}/prompt file.md`;
        fs.writeFileSync(prompt, 'Read the constitution.\nThen obey.\n');
        const launch = {
          ...base,
          role: 'QA',
          promptFile: prompt,
          commandDir: standIns.bin,
          worktreePath: dir,
          extraArgs: '--flag "quoted  arg" $HOME',
        };
        for (const agent of ['claude', 'codex', 'copilot', 'grok', 'other']) {
          execFileSync('bash', ['-c', `${agentCommandLine({ ...launch, agent })} </dev/null`], {
            env: {
              ...process.env,
              BATON_STANDIN_DIR: standIns.records,
              SWARMFORGE_ROLE: 'QA',
              HOME: '/home/x',
            },
          });
        }
        const message = 'Read the constitution.\nThen obey.';
        const argvOf = (name: string) => standIns.recordOf(name, 'QA')!.argv;
        const extra = ['--flag', 'quoted  arg', '/home/x'];
        assert.deepEqual(argvOf('claude'), [
          '--append-system-prompt-file',
          prompt,
          '--permission-mode',
          'acceptEdits',
          '-n',
          'SwarmForge Qa',
          ...extra,
          message,
        ]);
        assert.deepEqual(argvOf('codex'), ['-C', dir, ...extra, message]);
        assert.deepEqual(argvOf('copilot'), [
          '-C',
          dir,
          '--name',
          'SwarmForge Qa',
          ...extra,
          '-i',
          message,
        ]);
        assert.deepEqual(argvOf('grok'), [
          '--cwd',
          dir,
          '--permission-mode',
          'acceptEdits',
          ...extra,
          '--rules',
          message,
          '--verbatim',
          message,
        ]);
        assert.deepEqual(argvOf('other'), extra);
        assert.equal(standIns.recordOf('other', 'QA')!.env.SWARMFORGE_PROMPT_FILE, prompt);
        assert.equal(standIns.recordOf('claude', 'QA')!.env.SWARMFORGE_PROMPT_FILE, undefined);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
