'use strict';

// HTML built only through a tagged template that escapes every value it is given, numbers
// included: a report is a pure function of files a user can edit (summary.json,
// events.jsonl), so nothing read from them may reach the page as markup. Markup built by
// `html` (or marked with `trusted`, for the markup the chart functions build from numbers and
// escaped labels) passes through as it is.
class Html {
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (v) => String(v).replace(/[&<>"']/g, (c) => ESCAPES[c]);

function render(v) {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === undefined || v === null || v === false) return '';
  return esc(v);
}

function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

const trusted = (text) => new Html(String(text));

// A table: header texts and rows of cell values (each escaped like any other value). The
// whole element is one template, so that no tag is opened in one and closed in another: a
// formatter that reads `html` templates as HTML once "closed" a lone `<table>` here, and
// every table of every page rendered as run-on text (the rows fell out of the table).
// .prettierrc.json also keeps Prettier off embedded templates for that reason.
function table(heads, rows, cls) {
  const head = heads.map((h) => html`<th>${h}</th>`);
  const body = rows.map((cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`);
  return html`<table${cls ? html` class="${cls}"` : ''}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

module.exports = { html, trusted, esc, table, Html };
