'use strict';

const zlib = require('node:zlib');
const { decoded } = require('../../../../lab/generators/keepalive/response-parser');

// A body's text as Artillery's client gives it to captures: decompressed by what the server
// said it used, every encoding the lab asks for (gzip, deflate, br, and zstd on Node 24).
const text = JSON.stringify({ id: 7, name: 'ann' });
test.each([
  ['gzip', zlib.gzipSync],
  ['deflate', zlib.deflateSync],
  ['br', zlib.brotliCompressSync],
  ...(zlib.zstdCompressSync ? [['zstd', zlib.zstdCompressSync]] : []),
])('a %s body comes back as its text', (encoding, compress) => {
  expect(decoded(compress(Buffer.from(text)), encoding)).toBe(text);
});

test('the lab asks for zstd exactly when its Node decompresses it', () => {
  const { ACCEPT_ENCODING } = require('../../../../lab/generators/vu/flow');
  expect(ACCEPT_ENCODING.split(', ').includes('zstd')).toBe(Boolean(zlib.zstdDecompressSync));
});
