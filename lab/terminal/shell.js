'use strict';

// A command line as a POSIX shell reads it back: each word quoted when it holds anything the
// shell would take for itself (`p99<200` is a redirection, `{"a":1}` a brace, a space two
// words), so a plan's command pastes into a shell as it was meant. Single quotes, with a single
// quote written '\''.
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;
const shellWord = (w) => (PLAIN.test(String(w)) ? String(w) : `'${String(w).replaceAll("'", "'\\''")}'`);
const shellLine = (words) => words.map(shellWord).join(' ');

module.exports = { shellWord, shellLine };
