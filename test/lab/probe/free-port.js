'use strict';

const dgram = require('node:dgram');

// A UDP port nobody holds on 127.0.0.1 (the kernel's pick, released at once).
function udpFree() {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

module.exports = { udpFree };
