'use strict';

const get = require('lodash/get');
const random = require('lodash/random');

// Templates as Artillery's HTTP engine renders them (its engine_util `template`), so that the
// lab's engines send what `artillery run` sends for the same script: checked request by
// request by test/conformance/. Its rules, some of them surprising:
// - a variable is `{{ name }}` or `{{{ name }}}` (the braces are stripped, never rendered: the
//   lab once sent `GET {/}` for `{{{ url }}}`), its name a path into the variables (`user.id`,
//   `items[0]`);
// - a string that is exactly one variable is the variable's value, typed: a number stays a
//   number in a JSON body; 0, false and null stay themselves, any other falsy value is '';
// - inside a longer string, a value is its text, an object its JSON, and a variable that does
//   not exist is the word "undefined";
// - `{{ $randomNumber(1, 10) }}`, `{{ $randomString(8) }}`: the first call of a known
//   function in the string is replaced by its result (as text) and the string rendered
//   again; a call of an unknown function renders the whole string as undefined;
// - objects and arrays are rendered deeply, their keys too.
// `ctx` is a virtual user's { vars, funcs }.

const VAR = /{{{?[\s$\w.[\]'"-]+}}}?/g;
const ONE_VAR = /{{{?[\s$\w.[\]'"-]+}}}?/;
const CALL = /{{\s*(\$[A-Za-z0-9_]+\s*\(\s*[A-Za-z0-9_,\s]*\s*\))\s*}}/;

const hasTemplate = (o) => {
  if (typeof o === 'string') return o.includes('{{');
  if (o && typeof o === 'object') return JSON.stringify(o).includes('{{');
  return false;
};

function template(o, ctx) {
  if (o === undefined) return undefined;
  if (o !== null && (o.constructor === Object || o.constructor === Array)) return deep(o, ctx);
  if (typeof o !== 'string' || !o.includes('{{')) return o;
  const call = CALL.exec(o);
  if (call) {
    const parsed = parseCall(call[1]);
    const fn = parsed && ctx.funcs && ctx.funcs[parsed.name];
    // (Artillery's own: an unknown function leaves the string unrendered, as undefined.)
    if (!fn) return undefined;
    return template(o.replace(CALL, String(fn(...parsed.args))), ctx);
  }
  return renderVariables(o, ctx.vars || {});
}

function renderVariables(str, vars) {
  const all = str.match(VAR);
  if (all && all.length === 1 && all[0] === str) return sanitise(get(vars, nameOf(str)));
  let out = str;
  // (Bounded: a value that is itself a template would render again and again.)
  for (let i = 0; i < 1000 && out.search(VAR) > -1; i++) {
    const t = out.match(ONE_VAR)[0];
    let value = get(vars, nameOf(t));
    if (typeof value === 'object') value = JSON.stringify(value);
    // (As Artillery replaces it: the value's text, with String.replace's $-patterns.)
    out = out.replace(t, value);
  }
  return out;
}

const nameOf = (t) => t.replace(/[{}]/g, '').trim();
const sanitise = (v) => (v === 0 || v === false || v === null || v === undefined ? v : v || '');

// Objects and arrays: a copy with every key and every value rendered.
function deep(o, ctx) {
  if (Array.isArray(o)) return o.map((v) => (isContainer(v) ? deep(v, ctx) : template(v, ctx)));
  const out = {};
  for (const [k, v] of Object.entries(o)) out[template(k, ctx)] = isContainer(v) ? deep(v, ctx) : template(v, ctx);
  return out;
}
const isContainer = (v) => v !== null && (v?.constructor === Object || v?.constructor === Array);

// `$name(1, 'a', b)`: the function's name and its literal arguments (a word that is not a
// literal is undefined, as Artillery's parser gives it).
function parseCall(text) {
  const m = /^\$([A-Za-z0-9_]+)\s*\(([^)]*)\)$/.exec(text.trim());
  if (!m) return null;
  const args = m[2].trim()
    ? m[2].split(',').map((a) => {
        const s = a.trim();
        if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
        if (s === 'true' || s === 'false') return s === 'true';
        if (s === 'null') return null;
        return undefined;
      })
    : [];
  return { name: `$${m[1]}`, args };
}

// Artillery's functions for templates: $randomNumber (lodash's random, as Artillery's),
// $randomString, and $template.
const randomNumber = (min, max) => random(min, max);

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function randomString(length = 10) {
  let s = '';
  while (s.length < length) s += ALPHABET.charAt((Math.random() * ALPHABET.length) | 0);
  return s;
}

function funcsFor(vars) {
  return { $randomNumber: randomNumber, $randomString: randomString, $template: (input) => template(input, { vars }) };
}

module.exports = { template, renderVariables, hasTemplate, funcsFor, parseCall };
