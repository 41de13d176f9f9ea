'use strict';

const nodeModule = require('node:module');

// Node's compile cache for the lab's own processes: the code V8 compiled for a module, kept on
// disk, so that the next process loading it skips the compiling. A capacity search starts a
// lab process and a generator for every level, and those loads were most of the CPU a search
// spent outside the service (process accounting of the test suite: about 0.2 s a process). Set
// in the environment as well, so that what the lab starts (the generators, pm2, the service)
// finds the same cache. Node keys each entry by the file's content, so an edited file is
// compiled again; Node older than 22.1 has no such cache and runs as before. The folder is
// Node's own default (node-compile-cache under the temporary folder), or NODE_COMPILE_CACHE
// when the user set it; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
function enableCompileCache() {
  if (typeof nodeModule.enableCompileCache !== 'function') return null;
  const { directory } = nodeModule.enableCompileCache();
  if (directory && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = directory;
  return directory || null;
}

module.exports = { enableCompileCache };
