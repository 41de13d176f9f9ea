'use strict';

const path = require('node:path');
const parseCsv = require('csv-parse/lib/sync');
const { LIMITS, readBounded } = require('./limits');

// A CSV payload, as Artillery's `config.payload` reads it (with its own CSV parser,
// csv-parse, and its defaults): numbers cast (`-10` is -10; `cast: false` keeps text),
// empty lines skipped, `skipHeader`, `delimiter`, and csv-parse's own `options` on top.
// Each virtual user takes a row (at random, or in turn with order: sequence) and its fields
// as variables; `loadAll` with a `name` gives it every row instead. config.variables, read
// after, win over a payload's fields of the same name, as in Artillery.
//   read: { file, fields, order, rows, loadAll, name }
const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function readPayloads(r, payload, dir) {
  if (payload === undefined) return [];
  const list = Array.isArray(payload) ? payload : [payload];
  return list.map((p, i) => {
    const at = Array.isArray(payload) ? ['config', 'payload', i] : ['config', 'payload'];
    if (!isMap(p) || typeof p.path !== 'string') r.fail(at, 'a payload has a path to its CSV file');
    if (p.fields !== undefined && (!Array.isArray(p.fields) || p.fields.some((f) => typeof f !== 'string'))) {
      r.fail([...at, 'fields'], 'a list of the names of its columns');
    }
    if (p.order !== undefined && !['random', 'sequence'].includes(p.order))
      r.fail([...at, 'order'], 'random or sequence');
    if (p.options !== undefined && !isMap(p.options)) r.fail([...at, 'options'], "csv-parse's options, a mapping");
    const file = path.resolve(dir, p.path);
    const text = readBounded(file, LIMITS.payloadBytes, (why) => r.fail([...at, 'path'], `${file}: ${why}`));
    let rows;
    try {
      rows = parseCsv(text, {
        skip_empty_lines: p.skipEmptyLines ?? true,
        cast: p.cast ?? true,
        from_line: p.skipHeader === true ? 2 : 1,
        delimiter: p.delimiter || ',',
        ...(p.options || {}),
      });
    } catch (err) {
      return r.fail([...at, 'path'], `${file}: not CSV as Artillery reads it (${err.message})`);
    }
    return {
      file,
      fields: p.fields || [],
      order: p.order ?? null,
      rows,
      loadAll: p.loadAll === true,
      name: p.name ?? null,
    };
  });
}

// A picker of rows for one payload, as Artillery's readers: in turn (order: sequence), all
// of them (loadAll with a name and no order), else at random. Returns () => variables.
function rowPicker(payload, random = Math.random) {
  let next = 0;
  const fieldsOf = (row = []) => Object.fromEntries(payload.fields.map((f, i) => [f, row[i]]));
  const pick = () => {
    if (payload.order === 'sequence') {
      const row = payload.rows[next];
      next = next < payload.rows.length - 1 ? next + 1 : 0;
      return row;
    }
    return payload.rows[Math.max(0, Math.floor(random() * payload.rows.length))];
  };
  if (payload.loadAll) {
    // (Without a name Artillery only warns, and sets nothing.)
    if (payload.name === null) return () => ({});
    // No order: every row (as { field: value } when it has fields); an order: one row, as
    // Artillery's readers give it, set whole under the name.
    if (payload.order === null) {
      const all = payload.fields.length ? payload.rows.map((row) => fieldsOf(row)) : payload.rows;
      return () => ({ [payload.name]: all });
    }
    return () => ({ [payload.name]: pick() });
  }
  return () => fieldsOf(payload.rows.length ? pick() : []);
}

module.exports = { readPayloads, rowPicker };
