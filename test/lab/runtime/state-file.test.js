'use strict';

const fs = require('node:fs');
const path = require('node:path');
const StateFile = require('../../../lab/runtime/state-file');
const { tmpStateDir } = require('../../helper');

describe('state.json', () => {
  test('written whole (temporary file renamed over it), read back; missing is null', () => {
    const dir = tmpStateDir();
    const s = new StateFile(dir);
    expect(s.inspect()).toEqual({ state: null, error: null });
    expect(s.read()).toBeNull();
    s.write({ deployment: { name: 'single' }, owned: {} });
    expect(s.read()).toEqual({ deployment: { name: 'single' }, owned: {} });
    expect(fs.readdirSync(dir)).toEqual(['state.json']);
  });

  test.each(['{"deployment": ', '[]', '{}', ''])(
    'unreadable %j: inspect says why, read throws LAB_ERR_STATE',
    (text) => {
      const dir = tmpStateDir();
      fs.writeFileSync(path.join(dir, 'state.json'), text);
      const s = new StateFile(dir);
      expect(s.inspect().state).toBeNull();
      expect(s.inspect().error).toEqual(expect.any(String));
      expect(() => s.read()).toThrow(expect.objectContaining({ code: 'LAB_ERR_STATE' }));
    },
  );
});
