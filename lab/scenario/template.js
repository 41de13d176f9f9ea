'use strict';

// `{{ name }}` in a URL, a header or a body, as Artillery writes it: the virtual user's
// variable of that name (a capture, a CSV column, a config variable), rendered when the step
// runs. A few of Artillery's functions are known too; any other `{{ $f() }}` is a feature
// the lab's engines do not have, named when the script is read (lab/scenario/from-artillery.js).
const PART = /\{\{\s*([^{}]+?)\s*\}\}/g;
const FUNCTIONS = {
  // $randomNumber(min, max): an integer in [min, max].
  randomNumber: (min = 0, max = 1e6) => {
    const lo = Number(min);
    const hi = Number(max);
    return String(Math.floor(lo + Math.random() * (hi - lo + 1)));
  },
  // $randomString(length): letters and digits.
  randomString: (length = 10) => {
    const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let out = '';
    for (let i = 0; i < Number(length); i++) out += chars[Math.floor(Math.random() * chars.length)];
    return out;
  },
};

// The names a template reads: variables, and the functions it calls ('$name').
function namesIn(text) {
  const out = [];
  for (const m of String(text).matchAll(PART)) {
    const f = /^\$(\w+)\s*\(/.exec(m[1]);
    out.push(f ? `$${f[1]}` : m[1]);
  }
  return out;
}

const hasTemplate = (text) => typeof text === 'string' && text.includes('{{');

// Renders `text` with `vars`; an unknown variable renders as the empty string, as Artillery does.
function render(text, vars) {
  if (!hasTemplate(text)) return text;
  return text.replace(PART, (_, expr) => {
    const f = /^\$(\w+)\s*\(([^)]*)\)$/.exec(expr);
    if (f && FUNCTIONS[f[1]]) {
      const args = f[2].trim() ? f[2].split(',').map((a) => a.trim()) : [];
      return FUNCTIONS[f[1]](...args);
    }
    const v = vars[expr];
    return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
}

// A JSON value with every string in it rendered (a `json:` body).
function renderDeep(value, vars) {
  if (typeof value === 'string') {
    // A string that is exactly one variable keeps the variable's type (a number stays one).
    const whole = /^\{\{\s*([\w.-]+)\s*\}\}$/.exec(value);
    if (whole && vars[whole[1]] !== undefined) return vars[whole[1]];
    return render(value, vars);
  }
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderDeep(v, vars);
    return out;
  }
  return value;
}

module.exports = { render, renderDeep, namesIn, hasTemplate, FUNCTIONS };
