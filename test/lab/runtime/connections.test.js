'use strict';

const { parseTable } = require('../../../lab/runtime/connections');

// /proc/net/tcp as the kernel writes it: local and remote address:port in hex, state 01 =
// ESTABLISHED, 0A = LISTEN.
const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:5208 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:5208 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:5208 0100007F:C351 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:C350 0100007F:5208 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0000000000000000 20 4 30 10 -1
   4: 0100007F:5208 0100007F:C352 06 00000000:00000000 00:00000000 00000000     0        0 0 3 0000000000000000`;

test("a port's established connections: the server's side only, never its listener nor a closing one", () => {
  // 0x5208 = 21000
  expect(parseTable(TABLE, 21000)).toBe(2);
  expect(parseTable(TABLE, 50000)).toBe(1);
  expect(parseTable(TABLE, 9)).toBe(0);
});
