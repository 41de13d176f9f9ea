'use strict';

const { html, trusted } = require('../../../lab/report/html');

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
});
