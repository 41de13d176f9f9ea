'use strict';

const { readLimit, raiseOwnFdLimit, ensureFdsFor } = require('../../../lab/runtime/fd-limit');
const { codeOf } = require('../../helper');

describe('open-file limits for held connections', () => {
  test('reads this process limit from /proc', () => {
    const { soft, hard } = readLimit();
    expect(soft).toBeGreaterThan(0);
    expect(hard).toBeGreaterThanOrEqual(soft);
  });

  test('a limit already high enough is left as it is', () => {
    const before = readLimit();
    expect(raiseOwnFdLimit(10)).toEqual({ ...before, raised: false, note: null });
    expect(readLimit()).toEqual(before);
  });

  test('more connections than any limit allows stop with LAB_ERR_FD_LIMIT, naming what is needed', () => {
    // 1e9 is above fs.nr_open's ceiling on every Linux, root or not.
    expect(codeOf(() => ensureFdsFor(1e9))).toBe('LAB_ERR_FD_LIMIT');
    expect(() => ensureFdsFor(1e9)).toThrow(/1000001000 open files/);
  });
});
