'use strict';

// A CSV payload, as Artillery's `config.payload`: rows of a file, each virtual user taking
// one (at random, or in turn with order: sequence) and its fields as variables. Read once,
// when the script is read; quoted fields ("a, b", "say ""hi""") as RFC 4180 has them.
function parseCsv(text, delimiter = ',') {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// A picker of rows for one payload: random, or in turn (order: sequence) across a worker's
// virtual users. Returns () => { field: value }.
function rowPicker(payload, random = Math.random) {
  let next = 0;
  return () => {
    if (!payload.rows.length) return {};
    const row =
      payload.order === 'sequence'
        ? payload.rows[next++ % payload.rows.length]
        : payload.rows[Math.floor(random() * payload.rows.length)];
    const vars = {};
    payload.fields.forEach((f, i) => (vars[f] = row[i]));
    return vars;
  };
}

module.exports = { parseCsv, rowPicker };
