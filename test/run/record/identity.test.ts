import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { currentOwner, hostName, machineId } from '../../../lib/run/record/identity.js';
import { tempDir } from '../../support/project.js';

describe('lib/run/record/identity', () => {
  it("the owner is the password database's user name, whatever $USER says", () => {
    assert.equal(currentOwner(), userInfo().username);
    assert.equal(currentOwner({ USER: 'someone-else' }), userInfo().username);
  });

  it('the owner falls back to $USER when the uid has no user name, and is empty with neither', () => {
    const noEntry = () => {
      throw new Error('ENOENT: no such file or directory, uv_os_get_passwd');
    };
    assert.equal(currentOwner({ USER: 'alice' }, noEntry), 'alice');
    assert.equal(
      currentOwner({ USER: 'alice' }, () => ({ username: '' })),
      'alice',
    );
    assert.equal(currentOwner({}, noEntry), '');
  });

  it("the machine id is the file's content trimmed, and empty when the file cannot be read", () => {
    const dir = tempDir();
    try {
      fs.writeFileSync(join(dir, 'machine-id'), '0123456789abcdef0123456789abcdef\n');
      assert.equal(machineId(join(dir, 'machine-id')), '0123456789abcdef0123456789abcdef');
      assert.equal(machineId(join(dir, 'missing')), '');
      assert.equal(machineId(dir), '', 'a folder is unreadable as a file');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads /etc/machine-id by default', () => {
    const expected = fs.existsSync('/etc/machine-id')
      ? fs.readFileSync('/etc/machine-id', 'utf8').trim()
      : '';
    assert.equal(machineId(), expected);
  });

  it("the host name is the operating system's", () => {
    assert.equal(hostName(), hostname());
    assert.ok(hostName().length > 0);
  });
});
