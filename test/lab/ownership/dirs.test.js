'use strict';

const { codeOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { claimDir, resetDir, removeOwnedDir, assertClaimable, MARKER } = require('../../../lab/ownership/dirs');

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dirs-'));

describe('folders the lab owns', () => {
  test('a new folder is created marked, with a token that stays', () => {
    const dir = path.join(tmp(), 'a', 'b');
    const m = claimDir(dir, '--x');
    expect(fs.existsSync(path.join(dir, MARKER))).toBe(true);
    expect(m.token).toMatch(/^[0-9a-f]{24}$/);
    expect(claimDir(dir, '--x').token).toBe(m.token);
  });

  test('an empty folder is adopted; a non-empty unmarked one, or a file, is refused and untouched', () => {
    const empty = tmp();
    expect(codeOf(() => claimDir(empty, '--x'))).toBe('accepted');
    const theirs = tmp();
    fs.writeFileSync(path.join(theirs, 'mine.txt'), 'x');
    expect(codeOf(() => claimDir(theirs, '--x'))).toBe('LAB_ERR_NOT_OURS');
    expect(codeOf(() => resetDir(theirs, '--x'))).toBe('LAB_ERR_NOT_OURS');
    expect(codeOf(() => assertClaimable(theirs, '--x'))).toBe('LAB_ERR_NOT_OURS');
    expect(removeOwnedDir(theirs)).toBe(false);
    expect(fs.readFileSync(path.join(theirs, 'mine.txt'), 'utf8')).toBe('x');
    const file = path.join(tmp(), 'f');
    fs.writeFileSync(file, 'x');
    expect(codeOf(() => claimDir(file, '--x'))).toBe('LAB_ERR_NOT_OURS');
    expect(codeOf(() => assertClaimable(path.join(tmp(), 'missing'), '--x'))).toBe('accepted');
  });

  test('reset empties an owned folder but keeps its marker; remove deletes it', () => {
    const dir = tmp();
    const m = claimDir(dir, '--x');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'f'), 'x');
    expect(resetDir(dir, '--x').token).toBe(m.token);
    expect(fs.readdirSync(dir)).toEqual([MARKER]);
    expect(removeOwnedDir(dir)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
