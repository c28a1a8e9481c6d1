import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { findProgram } from '../../lib/swarm/agentPath.js';
import { tempDir } from '../support/project.js';

describe('lib/swarm/agentPath', () => {
  let dir: string;
  const file = (path: string, mode: number) => {
    fs.mkdirSync(join(path, '..'), { recursive: true });
    fs.writeFileSync(path, '#!/bin/sh\n', { mode });
    fs.chmodSync(path, mode);
    return path;
  };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('searches PATH in order and returns the first executable regular file', () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    const c = join(dir, 'c');
    file(join(a, 'agent'), 0o644);
    fs.mkdirSync(join(b, 'agent'), { recursive: true });
    const inC = file(join(c, 'agent'), 0o755);
    file(join(dir, 'd', 'agent'), 0o755);
    assert.equal(
      findProgram('agent', [a, b, c, join(dir, 'd')].join(':')),
      inC,
      'skips a non-executable file and a directory',
    );
    assert.equal(findProgram('agent', `::${join(dir, 'd')}:`), join(dir, 'd', 'agent'));
  });

  it('is undefined when no PATH entry has it, or only a non-executable one', () => {
    file(join(dir, 'a', 'agent'), 0o600);
    assert.equal(findProgram('agent', join(dir, 'a')), undefined);
    assert.equal(findProgram('agent', join(dir, 'missing')), undefined);
    assert.equal(findProgram('agent', ''), undefined);
  });

  it('takes a name with "/" as a path (absolute or relative to the cwd), never searched on PATH', () => {
    const exe = file(join(dir, 'bin', 'tool'), 0o755);
    assert.equal(findProgram(exe, ''), exe);
    assert.equal(findProgram(relative(process.cwd(), exe), ''), exe);
    assert.equal(findProgram('bin/tool', dir), undefined, 'not looked up under PATH entries');
    assert.equal(findProgram(file(join(dir, 'bin', 'plain'), 0o644), ''), undefined);
    assert.equal(findProgram(join(dir, 'bin'), ''), undefined, 'a directory is not a program');
  });

  it('uses $PATH by default', () => {
    const sh = findProgram('sh');
    assert.ok(sh && sh.startsWith('/') && sh.endsWith('/sh'), sh);
  });
});
