'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fillTemplate, quotedPath } = require('../../../../lab/kinds/common/template');

test("a template's fields filled; a field without a value is an error, never an empty string", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpl-')), 'x.conf.tpl');
  fs.writeFileSync(file, 'listen {{port}};\nworkers {{workers}};\n');
  expect(fillTemplate(file, { port: 8080, workers: 0 })).toBe('listen 8080;\nworkers 0;\n');
  expect(() => fillTemplate(file, { port: 8080 })).toThrow(/no value for \{\{workers\}\}/);
  expect(() => fillTemplate(file, { port: 8080, workers: undefined })).toThrow(/no value for \{\{workers\}\}/);
});

test('a path in double quotes, its backslashes and quotes escaped; what a balancer would read as syntax refused', () => {
  expect(quotedPath('/tmp/my state/nginx.pid')).toBe('"/tmp/my state/nginx.pid"');
  expect(quotedPath('/tmp/a"b\\c')).toBe('"/tmp/a\\"b\\\\c"');
  expect(quotedPath('stderr')).toBe('stderr');
  for (const p of ['/tmp/$HOME', '/tmp/{x}', '/tmp/a\nb']) {
    expect(() => quotedPath(p)).toThrow(expect.objectContaining({ code: 'LAB_ERR_PATH' }));
  }
});
