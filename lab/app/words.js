'use strict';

// A command line as a shell would split it into words, for the simple lines a package.json
// `start` script or --app-cmd holds: words separated by blanks, '...' and "..." quoting, a
// backslash escaping the next character. Anything a shell would do more (a pipe, a
// redirection, `&&`, a variable) makes it a shell line, run by /bin/sh as npm runs scripts.
const SHELL = /[|&;<>()$`*?[\]{}~]/;

function splitWords(line) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      word = word ?? '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      if (SHELL.test(c)) return null;
      word = (word ?? '') + c;
    }
  }
  if (quote) return null;
  if (word !== null) words.push(word);
  return words;
}

// `node [node options] entry [args]` as { entry, execArgv, args, env }, or null when the line is
// not a plain Node command (then it runs through the shell, and only as one process).
// Leading NAME=value words set the environment, as in a shell.
function nodeCommand(line) {
  const all = splitWords(line);
  if (!all) return null;
  const env = {};
  let at = 0;
  for (; at < all.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(all[at]); at++) {
    const eq = all[at].indexOf('=');
    env[all[at].slice(0, eq)] = all[at].slice(eq + 1);
  }
  const words = all.slice(at);
  if (!words.length || !/^(node|nodejs)$/.test(words[0])) return null;
  const execArgv = [];
  let i = 1;
  // Node's options before the entry (--max-old-space-size=512, -r x, --require x).
  for (; i < words.length && words[i].startsWith('-'); i++) {
    if (['-e', '--eval', '-p', '--print', '-'].includes(words[i])) return null;
    execArgv.push(words[i]);
    if (['-r', '--require', '--import', '--loader'].includes(words[i]) && i + 1 < words.length)
      execArgv.push(words[++i]);
  }
  if (i >= words.length) return null;
  return { entry: words[i], execArgv, args: words.slice(i + 1), env };
}

module.exports = { splitWords, nodeCommand };
