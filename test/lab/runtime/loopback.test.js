'use strict';

const http = require('node:http');
const { listenersOn, loopbackOnly } = require('../../../lab/runtime/loopback');
const { waitFor } = require('../../../lab/http');

// /proc/net/tcp and tcp6 as a container's kernel writes them: a service on 127.0.0.1:8080
// (1F90), another socket listening on every interface at 9125, one connection established.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 00000000:23A5 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F90 0100007F:D0A2 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0000000000000000 20 4 30 10 -1`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000
   1: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000`;

test("the addresses a port listens on, from the kernel's tables: 127.0.0.1 and ::1 alone are loopback only", () => {
  expect(listenersOn(`${TCP}\n${TCP6}`, 8080)).toEqual(['127.0.0.1', '::1']);
  expect(loopbackOnly(listenersOn(`${TCP}\n${TCP6}`, 8080))).toBe(true);
  // Every interface (0.0.0.0, ::): reachable from the entry's container.
  expect(listenersOn(TCP, 9125)).toEqual(['0.0.0.0']);
  expect(loopbackOnly(listenersOn(TCP, 9125))).toBe(false);
  expect(loopbackOnly(listenersOn(TCP6, 8081))).toBe(false);
  // Nothing listening yet (a service still starting): not known, so the wait goes on.
  expect(listenersOn(TCP, 3000)).toEqual([]);
  expect(loopbackOnly([])).toBe(false);
  // An established connection from the port is no listener.
  expect(listenersOn(TCP.split('\n').slice(0, 1).concat(TCP.split('\n')[3]).join('\n'), 8080)).toEqual([]);
});

test('a wait that answers 502 ends as soon as its check gives a reason, with that reason and the last answer', async () => {
  const server = http.createServer((req, res) => {
    res.statusCode = 502;
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  try {
    const seen = [];
    const err = await waitFor(url, {
      timeoutMs: 20000,
      check: {
        everyMs: 300,
        fn: async (last) => (seen.push(last), seen.length >= 2 ? 'it listens on 127.0.0.1 alone' : null),
      },
    }).catch((e) => e);
    expect({ message: err.message, why: err.why }).toEqual({
      message: 'HTTP 502',
      why: 'it listens on 127.0.0.1 alone',
    });
    expect(seen).toEqual(['HTTP 502', 'HTTP 502']);
    // No check: the wait runs to its end, and says the last answer.
    const plain = await waitFor(url, { timeoutMs: 500 }).catch((e) => e);
    expect({ message: plain.message, why: plain.why }).toEqual({ message: 'HTTP 502', why: undefined });
  } finally {
    server.close();
  }
});
