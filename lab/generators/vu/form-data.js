'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../../common/errors');
const { LIMITS } = require('../../scenario/limits');

// A request's formData as Artillery's HTTP engine sends it: a multipart body made by the same
// library (form-data, whose parts, headers and boundary Artillery's client sends), each field
// a value, a { value, contentType } or a file ({ fromFile, contentType }, read from the
// script's folder). A file is read once and kept (LIMITS.formFileBytes at most: the whole
// body is built in memory, where Artillery streams it). -> { body: Buffer, contentType }
let FormData = null;
const FILE_BYTES = LIMITS.formFileBytes;
const files = new Map();

function fileOf(scriptDir, name) {
  const abs = path.resolve(scriptDir, String(name));
  if (!files.has(abs)) {
    let size;
    try {
      size = fs.statSync(abs).size;
    } catch (err) {
      throw labError('LAB_ERR_SCENARIO_FILE', `formData fromFile ${name}`, `cannot be read (${err.code})`);
    }
    if (size > FILE_BYTES)
      throw labError(
        'LAB_ERR_SCENARIO_FILE',
        `formData fromFile ${name}`,
        `${size} bytes: at most ${FILE_BYTES} (the lab's limit)`,
      );
    files.set(abs, fs.readFileSync(abs));
  }
  return { abs, bytes: files.get(abs) };
}

// formData: the request's own (its templates rendered by t); scriptDir: where fromFile is read.
function multipart(formData, t, scriptDir) {
  FormData ??= require('form-data');
  const form = new FormData();
  for (const [k, raw] of Object.entries(formData)) {
    let v = t(raw);
    let options;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (v.contentType) options = { contentType: v.contentType };
      if (v.fromFile) {
        const { abs, bytes } = fileOf(scriptDir, v.fromFile);
        // (Artillery appends a file's stream: its name and type come from the path.)
        options = { ...options, filename: path.basename(abs) };
        v = bytes;
      } else if (v.value) v = v.value;
    }
    form.append(k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v, options);
  }
  return { body: form.getBuffer(), contentType: form.getHeaders()['content-type'] };
}

module.exports = { multipart };
