'use strict';

const fs = require('node:fs');

// What the lab takes from a scenario, in one table: the sizes of the files it reads and the
// bounds of what a scenario asks. Past them a script is refused with the limit named, before
// anything starts; under them a run still ends by its plan's time plus a drain
// (lab/run/generation.js), whatever the script or the server does. Each figure is far above
// what this lab can send (its engines reach a few thousand arrivals a second a core:
// bench/results/generators.json) and far below what exhausts a machine: a 50 MB script took
// 4.3 GB to parse; arrivalRate 1e9 had the generator killed for memory; think 1e9 became
// about 1 ms in a timer; duration 1e9 was 13,888 hours.
const LIMITS = Object.freeze({
  scriptBytes: 2 ** 20, // an Artillery script (YAML or JSON)
  payloadBytes: 64 * 2 ** 20, // each CSV payload
  bodyBytes: 2 ** 20, // --body @file
  aliases: 1000, // YAML aliases expanded (an alias bomb grows exponentially)
  arrivalRate: 50000, // arrivals a second in any phase, after --rate-scale
  planS: 24 * 3600, // the phases' total
  loopCount: 100000, // one loop's count
  requestsPerFlow: 1000000, // one virtual user's requests, loops multiplied out
  thinkS: 3600, // one think step
  capturedBodyBytes: 16 * 2 ** 20, // an answer kept whole for a capture
  formFileBytes: 16 * 2 ** 20, // a formData's file (fromFile), sent from memory
});

// A rate a flag takes (arrivals a second: --rate, --start, --max-rate, --need...): above 0, at
// most what one phase may ask, whichever command reads it. Its one definition: three commands
// once bounded a rate at 50,000, 1,000,000 and 10,000,000, and the larger ones were refused
// only by the scenario a search or a choice started, after minutes of its run.
const RATE = Object.freeze({ type: 'number', above: 0, max: LIMITS.arrivalRate });

// A file's text, read only when it is a regular file of at most maxBytes (a device, a pipe
// or a folder would never end, or never be text). refuse(why) throws the caller's error.
function readBounded(file, maxBytes, refuse) {
  let fd;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return refuse(`cannot read it (${err.code || err.message})`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return refuse('not a regular file (a device, a pipe or a folder): give a file');
    if (st.size > maxBytes) return refuse(`${mib(st.size)} is over the limit of ${mib(maxBytes)}`);
    // Read to at most one byte past the limit: a file growing meanwhile is caught too.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (let r; n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, n)) > 0;) n += r;
    if (n > maxBytes) return refuse(`it grew past the limit of ${mib(maxBytes)} while read`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

// Why a file the run will load (a processor, a formData's file) cannot be, or null when it is
// a regular file this process may read. (Not read here: Node loads it, or the engine sends it.)
function fileProblem(file) {
  try {
    if (!fs.statSync(file).isFile()) return 'not a regular file';
    fs.accessSync(file, fs.constants.R_OK);
    return null;
  } catch (err) {
    return `cannot read it (${err.code || err.message})`;
  }
}

const mib = (b) => (b >= 2 ** 20 ? `${Math.round((b / 2 ** 20) * 10) / 10} MiB` : `${Math.round(b / 1024)} KiB`);

module.exports = { RATE, LIMITS, readBounded, fileProblem };
