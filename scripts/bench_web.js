#!/usr/bin/env node
// bench_web.js: the browser engine's speed against the native one, for
// docs/WEB.md. Run it on a quiet machine (it prints the load average
// before and after). In headless Chromium (web/uci-bridge.js's openEngine):
//   a. nodes/s of the single-threaded wasm build against the native
//      engine (Threads 1), `go nodes N` from a new tree on each position
//      of the middlegame suite, the two interleaved; medians;
//   b. the threaded wasm build with Threads 2 against its Threads 1;
//   c. page load to the first bestmove of `go movetime T` (uci, isready,
//      position, go sent at once), fresh browser contexts, both builds;
//   d. with --match G: G games of cformer-match, the native engine against
//      the browser engine through the bridge at --match-movetime a move.
// Prints a markdown table, with the machine, the browser and the command.
//
//   node scripts/bench_web.js [--nodes 2000] [--positions 0 (all)] [--rounds 3]
//       [--loads 5] [--movetime 500] [--match 0] [--match-movetime 1000]
//       [--skip a,b,c] [--build build-wasm] [--threads-build build-wasm-threads]
//       [--native build/tools/cformer] [--cformer-match build/tools/match/cformer-match]
//       [--native-options NAME=VALUE,...]   (e.g. Backend=openblas: the native backend)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const { openEngine } = require(path.join(root, 'web', 'uci-bridge.js'));
const { launch } = require(path.join(root, 'web', 'headless.js'));
const { uciLines } = require(path.join(root, 'web', 'uci-lines.js'));

const DEFAULTS = { nodes: 2000, positions: 0, rounds: 3, loads: 5, movetime: 500, match: 0,
  'match-movetime': 1000, skip: '', build: 'build-wasm', 'threads-build': 'build-wasm-threads',
  native: 'build/tools/cformer', 'cformer-match': 'build/tools/match/cformer-match',
  'native-options': '' };

function parseArgs(args) {
  const opt = { ...DEFAULTS };
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, '');
    if (!(name in DEFAULTS) || i + 1 >= args.length) {
      console.error('bench_web: unknown or incomplete argument ' + args[i] +
        ' (flags: ' + Object.keys(DEFAULTS).map((k) => '--' + k).join(' ') + ')');
      process.exit(2);
    }
    const v = args[++i];
    opt[name] = typeof DEFAULTS[name] === 'number' ? Number(v) : v;
  }
  for (const k of ['build', 'threads-build', 'native', 'cformer-match']) opt[k] = path.resolve(root, opt[k]);
  opt.skip = new Set(opt.skip.split(',').filter(Boolean));
  return opt;
}

// {ask(cmds, re), lines, close()} over the native binary or the browser.
async function nativeEngine(exe) {
  const c = uciLines();
  const p = spawn(exe, [], { stdio: ['pipe', 'pipe', 'ignore'] });
  p.stdout.on('data', (d) => c.chunk(String(d)));
  const ask = (cmds, re) => c.ask(() => cmds.forEach((l) => p.stdin.write(l + '\n')), re);
  return { ask, lines: c.lines, close: async () => { p.stdin.write('quit\n'); p.stdin.end(); } };
}

async function browserEngine(browser, opt, threads) {
  const c = uciLines();
  const e = await openEngine({ threads, build: opt.build, threadsBuild: opt['threads-build'], browser,
    onLine: (l) => c.feed(l), onError: (w) => console.error('bench_web: ' + w) });
  const ask = (cmds, re) => c.ask(() => cmds.forEach((l) => e.send(l)), re);
  return { ask, lines: c.lines, close: () => e.close(), loadedAt: e.loadedAt };
}

// Sets the options, loads the built-in network; resolves to the engine.
async function prepare(engine, options) {
  const cmds = ['uci', 'setoption name WeightsFile value <built in>']
    .concat(Object.entries(options).map(([k, v]) => 'setoption name ' + k + ' value ' + v))
    .concat(['isready']);
  await engine.ask(cmds, /^readyok$/);
  return engine;
}

// The network and backend it ran (the native engine says so at its first go).
const loaded = (engine) =>
  (engine.lines.find((l) => /^info string loaded network /.test(l)) || '?').slice(27);

// The rate of one `go nodes N` from a new tree: nodes / time of the last
// info line (the engine's own count and clock).
async function rate(engine, pos, nodes) {
  const got = await engine.ask(['ucinewgame', 'position fen ' + pos.fen +
    (pos.moves ? ' moves ' + pos.moves : ''), 'go nodes ' + nodes], /^bestmove /);
  const info = got.filter((l) => / nodes \d+ /.test(l) && / time \d+ /.test(l)).pop();
  if (!info) throw new Error('no info line for ' + pos.id);
  const n = Number(info.match(/ nodes (\d+) /)[1]), ms = Number(info.match(/ time (\d+) /)[1]);
  return ms > 0 ? (1000 * n) / ms : NaN;
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Interleaved rates of engines (in turn, the order swapped each round).
async function compare(engines, positions, opt) {
  const rates = engines.map(() => []);
  for (let r = 0; r < opt.rounds; r++)
    for (const pos of positions) {
      const order = r % 2 ? engines.map((_, i) => engines.length - 1 - i) : engines.map((_, i) => i);
      for (const i of order) rates[i].push(await rate(engines[i], pos, opt.nodes));
    }
  return rates.map(median);
}

// Page load to the first bestmove of go movetime T, fresh contexts.
async function firstMove(browser, opt, threads) {
  const times = [];
  for (let i = 0; i < opt.loads; i++) {
    const e = await browserEngine(browser, opt, threads);
    await e.ask(['uci', 'isready', 'position startpos', 'go movetime ' + opt.movetime], /^bestmove /);
    times.push(Date.now() - e.loadedAt);
    await e.close();
  }
  return times;
}

function readPositions(n) {
  const file = path.join(root, 'data', 'bench', 'middlegames.txt');
  const all = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [id, fen, moves] = l.split('|');
      return { id, fen, moves: (moves || '').trim() };
    });
  return n > 0 ? all.slice(0, n) : all;
}

const fmt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) : 'n/a');

(async () => {
  const opt = parseArgs(process.argv.slice(2));
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m) || [])[1] ||
    os.cpus()[0].model;
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log('cpu: ' + cpu + ' (' + os.cpus().length + ' logical cores)');
  console.log('load average at start: ' + load());
  const positions = readPositions(opt.positions);
  const browser = await launch();
  const chromium = browser.version();
  console.log('browser: Chromium ' + chromium + ', node ' + process.version);
  const rows = [];
  try {
    if (!opt.skip.has('a')) {
      const nativeOptions = Object.fromEntries(opt['native-options'].split(',').filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      const native = await prepare(await nativeEngine(opt.native), { ...nativeOptions, Threads: 1 });
      const wasm = await prepare(await browserEngine(browser, opt, false), {});
      const [n, w] = await compare([native, wasm], positions, opt);
      console.log('native: ' + loaded(native) + '\nwasm: ' + loaded(wasm));
      rows.push(['nodes/s, one thread: wasm (single-threaded build) / native (Threads 1), go nodes ' +
        opt.nodes + ', ' + positions.length + ' positions x ' + opt.rounds + ' rounds, medians',
      fmt(w) + ' / ' + fmt(n), ratio(w, n)]);
      await native.close();
      await wasm.close();
    }
    if (!opt.skip.has('b')) {
      const one = await prepare(await browserEngine(browser, opt, true), { Threads: 1 });
      const two = await prepare(await browserEngine(browser, opt, true), { Threads: 2 });
      const [r1, r2] = await compare([one, two], positions, opt);
      rows.push(['nodes/s, threaded build: Threads 2 / Threads 1, same positions and nodes, medians',
        fmt(r2) + ' / ' + fmt(r1), ratio(r2, r1)]);
      await one.close();
      await two.close();
    }
    if (!opt.skip.has('c'))
      for (const threads of [false, true]) {
        const t = await firstMove(browser, opt, threads);
        rows.push(['page load to the first bestmove of go movetime ' + opt.movetime + ', ' +
          (threads ? 'threaded' : 'single-threaded') + ' build, median of ' + t.length +
          ' fresh loads (ms; min-max ' + Math.min(...t) + '-' + Math.max(...t) + ')', fmt(median(t)), '']);
      }
  } finally {
    await browser.close();
  }
  if (opt.match > 0) {
    const bridge = process.execPath + ' ' + path.join(root, 'web', 'uci-bridge.js') + ' --build ' + opt.build;
    const r = spawnSync(opt['cformer-match'], ['--games', String(opt.match), '--movetime',
      String(opt['match-movetime']), '--quiet', '--opponent', bridge], { encoding: 'utf8' });
    const out = (r.stdout || '') + (r.stderr || '');
    const line = out.split('\n').find((l) => / games: W \d+ D \d+ L \d+/.test(l)) || out.trim();
    rows.push(['cformer-match, native (cformer) against the wasm engine through the bridge, ' +
      opt.match + ' games at ' + opt['match-movetime'] + ' ms a move', line.replace(/^.*?: (\d+ games)/, '$1'), '']);
  }
  console.log('load average at the end: ' + load() + '\n');
  console.log('| measurement | result | ratio |\n|---|---|---|');
  for (const r of rows) console.log('| ' + r.join(' | ') + ' |');
  console.log('\n(' + new Date().toISOString().slice(0, 10) + ', ' + cpu + ', Chromium ' +
    chromium + '; node scripts/bench_web.js ' + process.argv.slice(2).join(' ') + ')');
})().catch((e) => {
  console.error('bench_web: ' + e.message);
  process.exit(1);
});
