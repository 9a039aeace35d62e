// The engine's Web Worker (web/cformer-worker.js) driven as a page drives
// it, through postMessage lines, here in node's worker_threads:
// uci/isready, legal bestmoves from `go nodes`, a mate in one found, an
// illegal move refused, a user's network loaded from a stored file, a
// broken one refused with a message naming it, one over the memory limit
// (WeightsMaxMb) refused with the reason.
// In both builds: go infinite ended by stop (isready answered meanwhile)
// and by the next command, a long go movetime ended by stop, ponderhit.
//   node worker_uci.js BUILD_WASM/web/cformer-worker.js DATA_DIR [threads|single]
'use strict';
const { Worker } = require('worker_threads');
const fs = require('fs');
const path = require('path');

const workerPath = path.resolve(process.argv[2]);
const dataDir = process.argv[3];
console.log('build: ' + (process.argv[4] === 'threads' ? 'threads' : 'single-threaded'));
let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}

const worker = new Worker(workerPath);
const lines = [];
let waiter = null;
worker.on('message', (m) => {
  lines.push(String(m));
  if (waiter) waiter();
});
worker.on('error', (e) => {
  console.log('FAIL worker error: ' + e);
  process.exit(1);
});

// Sends cmds, then collects lines until one matches `until` (a RegExp) or
// until(lines) is true (a function); returns them.
function send(cmds, until, timeoutMs = 60000) {
  const start = lines.length;
  for (const c of [].concat(cmds)) worker.postMessage(c);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for ' + until +
      '; got: ' + lines.slice(start).join(' | '))), timeoutMs);
    waiter = () => {
      const got = lines.slice(start);
      if (typeof until === 'function' ? until(got) : got.some((l) => until.test(l))) {
        clearTimeout(timer);
        waiter = null;
        resolve(got);
      }
    };
    waiter();
  });
}

const bestmove = (got) => {
  const l = got.find((x) => x.startsWith('bestmove '));
  return l ? l.split(' ')[1] : null;
};

// Black's twenty replies to 1. e4.
const afterE4 = ['a7a6', 'a7a5', 'b7b6', 'b7b5', 'c7c6', 'c7c5', 'd7d6', 'd7d5', 'e7e6', 'e7e5',
  'f7f6', 'f7f5', 'g7g6', 'g7g5', 'h7h6', 'h7h5', 'b8a6', 'b8c6', 'g8f6', 'g8h6'];

(async () => {
  let got = await send('uci', /^uciok$/);
  check(got.some((l) => /^id name cformer/.test(l)), 'uci: id name cformer');
  check(got.some((l) => /^option name WeightsFile /.test(l)), 'uci: the WeightsFile option');

  got = await send('isready', /^readyok$/);
  check(got.some((l) => /loaded network <built in>/.test(l)), 'isready: the built-in network loads');

  got = await send(['position startpos moves e2e4', 'go nodes 40'], /^bestmove /);
  check(afterE4.includes(bestmove(got)), 'go nodes 40 after 1. e4: a legal reply (' +
    bestmove(got) + ')');
  check(got.some((l) => /^info depth .* nodes \d+ .* pv /.test(l)), 'go: info lines with a pv');

  // Back-rank mate in one: Ra8#.
  got = await send(['position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1', 'go nodes 200'],
    /^bestmove /);
  check(bestmove(got) === 'a1a8', 'mate in one found (' + bestmove(got) + ')');
  check(got.some((l) => / score mate 1 /.test(l)), 'mate in one scored as mate 1');

  got = await send(['position startpos moves e2e5', 'isready'], /^readyok$/);
  check(got.some((l) => /^info string error: .*e2e5/.test(l)), 'an illegal move: info string error');

  // Lines read while a search runs: threaded, the search has its own
  // thread; single-threaded, it gives the worker's event loop turns.
  got = await send(['position startpos moves e2e4', 'go infinite'], /^info depth .* pv /);
  got = await send('isready', /^readyok$/);
  check(!got.some((l) => l.startsWith('bestmove ')), 'isready during go infinite: readyok, ' +
    'the search goes on');
  got = await send('stop', /^bestmove /);
  check(afterE4.includes(bestmove(got)), 'go infinite, then stop: a legal bestmove (' +
    bestmove(got) + ')');
  const long = Date.now();
  await send(['position startpos moves e2e4', 'go movetime 600000'], /^info depth .* pv /);
  got = await send('stop', /^bestmove /, 30000);
  check(afterE4.includes(bestmove(got)) && Date.now() - long < 30000,
    'go movetime 600000 ends at stop with a legal bestmove (' + bestmove(got) + ')');
  // Any other command ends a held search first.
  await send('go infinite', /^info depth .* pv /);
  const answers = (got) => got.filter((l) => l.startsWith('bestmove ')).map((l) => l.split(' ')[1]);
  got = answers(await send(['position startpos', 'go nodes 20'], (g) => answers(g).length === 2));
  check(afterE4.includes(got[0]) && /^[a-h][1-8][a-h][1-8]/.test(got[1]),
    'position during go infinite: its bestmove first, then the next go\'s (' + got.join(', ') + ')');
  // ponderhit ends go ponder with a legal move (threaded, on the clock).
  await send(['position startpos moves e2e4', 'go ponder wtime 2000 btime 2000'], /^info depth .* pv /);
  got = await send('ponderhit', /^bestmove /, 30000);
  check(afterE4.includes(bestmove(got)), 'go ponder, then ponderhit: a legal bestmove (' +
    bestmove(got) + ')');

  // A broken file: refused with a message; the previous network plays on.
  worker.postMessage({ type: 'file', name: 'broken.pb.gz', data: Buffer.from('not a network') });
  got = await send(['setoption name WeightsFile value /nets/broken.pb.gz', 'isready'],
    /^readyok$/);
  check(got.some((l) => /^info string file \/nets\/broken.pb.gz stored/.test(l)),
    'a file message is stored');
  check(got.some((l) => /^info string error: .*broken.pb.gz/.test(l)),
    'a broken network: info string error naming it');
  // The engine then has no network (a page puts the previous one back,
  // web/app.js): go says why, and the previous name loads again.
  got = await send(['position startpos moves e2e4', 'go nodes 20'], /^bestmove /);
  check(got.some((l) => /^info string error: go: no network loaded: .*broken.pb.gz/.test(l)),
    'go with the broken network selected says why');
  got = await send(['setoption name WeightsFile value <autodiscover>', 'isready'], /^readyok$/);
  check(got.some((l) => /loaded network <built in>/.test(l)), 'the previous network loads again');
  got = await send(['position startpos moves e2e4', 'go nodes 20'], /^bestmove /);
  check(afterE4.includes(bestmove(got)), 'and plays');

  // A user's network from a file.
  const net = fs.readFileSync(path.join(dataDir, 'parity', 'cf-rpe-rms.pb.gz'));
  worker.postMessage({ type: 'file', name: 'user net.pb.gz', data: net });
  got = await send(['setoption name WeightsFile value /nets/user_net.pb.gz', 'isready'],
    /^readyok$/);
  check(got.some((l) => /^info string loaded network \/nets\/user_net.pb.gz/.test(l)),
    'a user network loads from a stored file');
  got = await send(['position startpos moves e2e4', 'go nodes 20'], /^bestmove /);
  check(afterE4.includes(bestmove(got)), 'the user network plays a legal move');

  // A network larger than the memory it may take (WeightsMaxMb): refused
  // before it is inflated, with the reason and the way to allow it.
  worker.postMessage({ type: 'file', name: 'big.pb.gz', data: net });
  got = await send(['setoption name WeightsMaxMb value 1',
    'setoption name WeightsFile value /nets/big.pb.gz', 'isready'], /^readyok$/);
  check(got.some((l) => /^info string error: .*big.pb.gz: decompressed size exceeds the limit of 1048576 bytes.*WeightsMaxMb/.test(l)),
    'a network over the WeightsMaxMb limit: refused with the reason');

  worker.postMessage('quit');
  await worker.terminate();
  console.log(failures ? failures + ' failed' : 'all passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => {
  console.log('FAIL ' + e.message);
  process.exit(1);
});
