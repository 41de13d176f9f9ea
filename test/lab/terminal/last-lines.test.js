'use strict';

const { lastLines, LINES, WIDTH } = require('../../../lab/terminal/last-lines');

test("a program's last lines, indented, its trailing blanks and carriage returns gone", () => {
  const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\r`).join('\n') + '\n\n';
  const out = lastLines(text).split('\n');
  expect(out.length).toBe(LINES);
  expect(out[0]).toBe('  line 13');
  expect(out.at(-1)).toBe('  line 20');
});

test('a line too long is cut, saying how much more there was; a silent program is said to be', () => {
  const out = lastLines('x'.repeat(WIDTH + 50));
  expect(out).toBe(`  ${'x'.repeat(WIDTH)}... (50 more characters)`);
  expect(lastLines('  \n\n')).toBe('  (it wrote nothing)');
  expect(lastLines('a\nb\nc', { lines: 2, indent: '> ' })).toBe('> b\n> c');
});
