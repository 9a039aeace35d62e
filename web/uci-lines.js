// uci-lines.js: a UCI engine's lines as they come, for the scripts that
// drive one (scripts/bench_web.js, tests/web/bridge_test.js): feed(line)
// or chunk(text from a pipe) add them; ask(send, until) runs send() and
// resolves to the lines written since, once one matches until (a RegExp)
// or until(lines) is true (a function).
'use strict';

function uciLines() {
  const lines = [];
  let waiter = null, partial = '';
  const feed = (line) => {
    lines.push(line);
    if (waiter) waiter();
  };
  return {
    lines,
    feed,
    chunk(text) {
      const parts = (partial + text).split('\n');
      partial = parts.pop();
      parts.forEach(feed);
    },
    ask(send, until, timeoutMs = 600000, context = () => '') {
      const from = lines.length;
      const done = typeof until === 'function' ? until : (got) => got.some((l) => until.test(l));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timed out waiting for ' + until +
          '; got: ' + lines.slice(from).join(' | ') + context())), timeoutMs);
        waiter = () => {
          const got = lines.slice(from);
          if (done(got)) {
            clearTimeout(timer);
            waiter = null;
            resolve(got);
          }
        };
        send();
        waiter();
      });
    },
  };
}

module.exports = { uciLines };
