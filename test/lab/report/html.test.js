'use strict';

const { html, trusted, table } = require('../../../lab/report/html');

describe('html tagged template', () => {
  test('escapes every value, numbers and nested lists included; keeps its own markup', () => {
    const evil = '<img src=x onerror="alert(1)">';
    const out = String(html`<p title="${evil}">${evil} ${42} ${[evil, html`<b>${evil}</b>`]}</p>`);
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(out).toContain('<b>&lt;img');
    expect(out).toContain(' 42 ');
  });

  test('absent values render as nothing; 0 renders; trusted markup passes', () => {
    expect(String(html`${undefined}${null}${false}${0}${trusted('<svg/>')}`)).toBe('0<svg/>');
  });

  // The browser test (test/lab/report/pages.e2e.test.js) sees the page; this says why it broke:
  // every row sits between the table's own tags, none after a closed table.
  test('a table is one element: its header and rows inside it, cells escaped', () => {
    const out = String(
      table(
        ['a', 'b'],
        [
          [1, '<x>'],
          [2, 3],
        ],
        'wide',
      ),
    );
    expect(out).toMatch(/^<table class="wide"><thead><tr><th>a<\/th><th>b<\/th><\/tr><\/thead><tbody>/);
    expect(out.indexOf('</table>')).toBe(out.length - '</table>'.length);
    expect(out.match(/<tr>/g)).toHaveLength(3);
    expect(out).toContain('<td>&lt;x&gt;</td>');
    expect(String(table(['a'], [[1]]))).toMatch(/^<table><thead>/);
  });
});
