'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pidFileFor, readPm2Pid } = require('../../../lab/runtime/pm2-pid');

describe("pm2's pid files", () => {
  test("each app's pid is found under the name pm2 rewrites it to, never another app's", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-pid-'));
    try {
      // What pm2 does with the path it is given (pm2/lib/God.js), for pm_ids 2 and 3.
      const asPm2 = (file, id) => file.replace(/-[0-9]+\.pid$|\.pid$/g, `-${id}.pid`);
      fs.writeFileSync(asPm2(pidFileFor(home, 'replica-1'), 2), '111\n');
      fs.writeFileSync(asPm2(pidFileFor(home, 'replica-2'), 3), '222\n');
      fs.writeFileSync(asPm2(pidFileFor(home, 'replica-12'), 4), '333\n');
      expect(readPm2Pid(home, 'replica-1')).toBe(111);
      expect(readPm2Pid(home, 'replica-2')).toBe(222);
      expect(readPm2Pid(home, 'replica-12')).toBe(333);
      expect(readPm2Pid(home, 'replica-3')).toBeNull();
      expect(readPm2Pid(path.join(home, 'absent'), 'replica-1')).toBeNull();
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
