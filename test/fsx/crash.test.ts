import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

function runWith(crashAt: string | undefined): { signal: NodeJS.Signals | null; stdout: string } {
  const script =
    "import { crashPoint } from './lib/fsx/crash.ts'; for (let i = 1; i <= 3; i++) { process.stdout.write('before ' + i + '\\n'); crashPoint('step'); } process.stdout.write('end\\n');";
  const env = { ...process.env };
  if (crashAt === undefined) delete env.BATON_CRASH_AT;
  else env.BATON_CRASH_AT = crashAt;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env,
  });
  return { signal: r.signal, stdout: r.stdout.toString() };
}

describe('lib/fsx/crash', () => {
  it('does nothing without BATON_CRASH_AT or for another step', () => {
    assert.deepEqual(runWith(undefined), {
      signal: null,
      stdout: 'before 1\nbefore 2\nbefore 3\nend\n',
    });
    assert.equal(runWith('other').signal, null);
  });

  it('kills with SIGKILL at the first hit, or at the n-th with step#n', () => {
    assert.deepEqual(runWith('step'), { signal: 'SIGKILL', stdout: 'before 1\n' });
    assert.deepEqual(runWith('step#3'), {
      signal: 'SIGKILL',
      stdout: 'before 1\nbefore 2\nbefore 3\n',
    });
  });
});
