'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startProgram, freePort, get, until } = require('../../helper');
const { isAlive, parents } = require('../../../lab/ownership/procs');

// Your service as node:cluster workers (lab/app/primary.js): a small app of the test's own,
// never changed for it, run as 2 workers sharing one port; a worker that dies is replaced;
// SIGTERM stops them all.
const APP = `const http = require('node:http');
http.createServer((q, r) => r.end(String(process.pid))).listen(Number(process.env.PORT), '127.0.0.1', () =>
  process.stderr.write('listening ' + process.pid + ' ' + (process.env.LAB_WORKER || '-') + '\\n'));
`;
const listening = (err) => [...err.matchAll(/listening (\d+) 1/g)].map((m) => Number(m[1]));

test('two workers of an unchanged app share its port; one that dies is replaced; SIGTERM stops them all', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'primary-'));
  fs.writeFileSync(path.join(dir, 'app.js'), APP);
  const port = await freePort();
  const primary = await startProgram('lab/app/primary.js', [path.join(dir, 'app.js')], {
    env: { WORKERS: '2', PORT: String(port), LAB_STOP_MS: '3000' },
    ready: (err) => listening(err).length >= 2,
  });
  try {
    const first = listening(primary.output().stderr);
    // Both workers are the primary's own children, and both answer on the one port.
    expect(first.map((pid) => parents().get(pid))).toEqual([primary.pid, primary.pid]);
    const answered = new Set();
    for (let i = 0; i < 20 && answered.size < 2; i++)
      answered.add(Number((await get(`http://127.0.0.1:${port}/`)).body));
    expect([...answered].sort()).toEqual([...first].sort());

    // A worker killed (proven ours: its parent is the primary we started): another takes its place.
    process.kill(first[0], 'SIGKILL');
    expect(await until(() => listening(primary.output().stderr).length >= 3, 10000)).toBe(true);
    expect(primary.output().stderr).toMatch(new RegExp(`worker ${first[0]} exited \\(SIGKILL\\); replacing it`));
    const now = listening(primary.output().stderr).filter((pid) => pid !== first[0]);
    expect(now.every(isAlive)).toBe(true);

    const exit = await primary.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await until(() => !now.some(isAlive), 5000)).toBe(true);
  } finally {
    // (A failed check above: SIGTERM still, so the primary stops its workers before it goes.)
    await primary.stop('SIGTERM');
  }
}, 60000);
