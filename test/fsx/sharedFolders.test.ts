import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mkdirSynced, writeFileSynced } from '../../lib/fsx/durable.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { replaceJson } from '../../lib/fsx/records.js';
import {
  dropFolderModeIn,
  fileModeIn,
  folderModeIn,
  makeFolder,
} from '../../lib/fsx/sharedFolders.js';
import { tempDir } from '../support/project.js';

const modeOf = (path: string) => (fs.statSync(path).mode & 0o7777).toString(8);

describe('lib/fsx/sharedFolders (the folder rule)', () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = tempDir();
    // The strictest umask: the shared bits must survive it.
    umask = process.umask(0o077);
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a private folder: files 0600, folders 0700, as before', () => {
    fs.chmodSync(dir, 0o700);
    assert.deepEqual(
      [fileModeIn(dir), folderModeIn(dir), dropFolderModeIn(dir)],
      [0o600, 0o700, 0o700],
    );
    writeFileSynced(join(dir, 'f'), 'x', true);
    mkdirSynced(join(dir, 'a', 'b'));
    assert.deepEqual([modeOf(join(dir, 'f')), modeOf(join(dir, 'a', 'b'))], ['600', '700']);
  });

  it('a folder with group bits but no set-group-ID bit is not shared', () => {
    fs.chmodSync(dir, 0o770);
    assert.deepEqual([fileModeIn(dir), folderModeIn(dir)], [0o600, 0o700]);
  });

  it('a shared folder (2770): every way Baton writes gives files 0640 and folders 2770, whatever the umask', () => {
    fs.chmodSync(dir, 0o2770);
    writeFileSynced(join(dir, 'f'), 'x', true);
    replaceJson(join(dir, 'r.json'), { a: 1 });
    mkdirSynced(join(dir, 'a', 'b'));
    acquireLock(join(dir, 'lock'))();
    const lockFile = fs.readdirSync(join(dir, 'lock')).find((n) => /^lock\.\d+$/.test(n))!;
    assert.deepEqual(
      [
        modeOf(join(dir, 'f')),
        modeOf(join(dir, 'r.json')),
        modeOf(join(dir, 'a')),
        modeOf(join(dir, 'a', 'b')),
        modeOf(join(dir, 'lock', lockFile)),
      ],
      ['640', '640', '2770', '2770', '640'],
    );
  });

  it('a shared folder appears whole: a kill after its making leaves nothing at its name (only a hidden temp), and the rerun makes it 2770', () => {
    fs.chmodSync(dir, 0o2770);
    const box = join(dir, 'box');
    const make = (crashAt?: string) =>
      spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `import { mkdirSynced } from './lib/fsx/durable.ts'; process.umask(0o022); ` +
            `mkdirSynced(${JSON.stringify(box)});`,
        ],
        { env: { ...process.env, BATON_CRASH_AT: crashAt ?? '' } },
      );
    assert.equal(make('folder:shared-made').signal, 'SIGKILL');
    assert.equal(fs.existsSync(box), false, 'no folder the group cannot write');
    assert.deepEqual(
      fs.readdirSync(dir).map((n) => n.replace(/\d+/, 'PID')),
      ['.box.PID.new'],
    );
    assert.equal(make().status, 0);
    assert.equal(modeOf(box), '2770');
  });

  it('makeFolder: EEXIST for a name taken, whatever the mode, and no temp left', () => {
    fs.chmodSync(dir, 0o2770);
    fs.mkdirSync(join(dir, 'taken'));
    assert.throws(() => makeFolder(join(dir, 'taken'), 0o2770), { code: 'EEXIST' });
    assert.throws(() => makeFolder(join(dir, 'taken'), 0o700), { code: 'EEXIST' });
    assert.deepEqual(fs.readdirSync(dir), ['taken']);
  });

  it('a folder shared for reading (2750): its new folders 2750; a drop folder in it 3770', () => {
    fs.chmodSync(dir, 0o2750);
    mkdirSynced(join(dir, 'run'));
    assert.equal(modeOf(join(dir, 'run')), '2750');
    assert.equal(dropFolderModeIn(join(dir, 'run')), 0o3770);
    assert.equal(fileModeIn(join(dir, 'run')), 0o640);
  });
});
