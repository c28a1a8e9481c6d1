import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DaemonLog } from '../../lib/daemon/log.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { tempDir } from '../support/project.js';

describe('lib/daemon/log', () => {
  describe('DaemonLog', () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('appends one line per event (file mode 0600) and mirrors the same lines', () => {
      const path = join(dir, 'handoffd.log');
      fs.writeFileSync(path, 'earlier line\n', { mode: 0o600 });
      const mirrored: string[] = [];
      const log = new DaemonLog(path, (line) => mirrored.push(line));
      const before = Date.now();
      log.write('delivered', { id: 'x', to: 'a,b' });
      log.write('stopped');
      const lines = fs.readFileSync(path, 'utf8').split('\n');
      assert.deepEqual(lines.slice(1), [...mirrored, '']);
      assert.equal(lines[0], 'earlier line');
      const first = parseLogLine(mirrored[0]!)!;
      assert.deepEqual([first.event, first.details], ['delivered', { id: 'x', to: 'a,b' }]);
      assert.match(first.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Date.parse(first.at) >= before - 1 && Date.parse(first.at) <= Date.now());
      assert.deepEqual(parseLogLine(mirrored[1]!)!.event, 'stopped');
      log.close();
      fs.rmSync(path);
      const fresh = new DaemonLog(path);
      fresh.write('started', { pid: 1 });
      fresh.close();
      assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    });

    it('keeps writing to a log that is removed or rotated once refreshed', () => {
      const path = join(dir, 'handoffd.log');
      const log = new DaemonLog(path);
      log.write('started', { pid: 1 });
      fs.renameSync(path, `${path}.1`);
      log.refresh();
      log.write('delivered', { id: 'a' });
      fs.rmSync(path);
      log.refresh();
      log.write('delivered', { id: 'b' });
      log.close();
      assert.deepEqual(
        fs
          .readFileSync(`${path}.1`, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => parseLogLine(l)!.event),
        ['started'],
      );
      assert.deepEqual(
        fs
          .readFileSync(path, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => parseLogLine(l)!.details.id),
        ['b'],
      );
    });

    it('never throws when the log cannot be written; the mirror still gets the line', () => {
      const mirrored: string[] = [];
      const log = new DaemonLog(join(dir, 'missing-folder', 'handoffd.log'), (line) =>
        mirrored.push(line),
      );
      assert.doesNotThrow(() => log.write('error', { what: 'x' }));
      assert.equal(mirrored.length, 1);
      assert.match(mirrored[0]!, / error what=x$/);
    });
  });
});
