// The UCI bridge (web/uci-bridge.js) as a UCI tool runs it: a process
// whose stdin and stdout are the browser engine's (headless Chromium):
// uci, isready, a legal bestmove for `go nodes 50`, stop ending a
// `go infinite`, quit ending the process with status 0; with the threaded
// build beside this one, --threads plays a legal move too. With the native
// build named by CF_NATIVE_BUILD (tests/web/run_wasm_suite.sh sets it),
// a 2-game cformer-match against the bridge: both games played to a result
// with no fault (nothing is timed), and scripts/bench_web.js at its
// smallest sizes fills its table. Cannot start Chromium: fails with the
// reason.
//   node bridge_test.js WASM_BUILD_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const buildDir = path.resolve(process.argv[2]);
const bridge = path.resolve(__dirname, '..', '..', 'web', 'uci-bridge.js');
const { uciLines } = require(path.resolve(__dirname, '..', '..', 'web', 'uci-lines.js'));
let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}

// Black's twenty replies to 1. e4.
const afterE4 = ['a7a6', 'a7a5', 'b7b6', 'b7b5', 'c7c6', 'c7c5', 'd7d6', 'd7d5', 'e7e6', 'e7e5',
  'f7f6', 'f7f5', 'g7g6', 'g7g5', 'h7h6', 'h7h5', 'b8a6', 'b8c6', 'g8f6', 'g8h6'];

function session(args) {
  const p = spawn(process.execPath, [bridge, '--build', buildDir].concat(args),
    { stdio: ['pipe', 'pipe', 'pipe'] });
  const out = uciLines();
  let stderr = '';
  p.stdout.on('data', (d) => out.chunk(String(d)));
  p.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => p.on('exit', (code) => resolve(code)));
  // Sends cmds, then collects lines until one matches `until`.
  const send = (cmds, until) => out.ask(() => [].concat(cmds).forEach((c) => p.stdin.write(c + '\n')),
    until, 120000, () => (stderr ? '; stderr: ' + stderr : ''));
  return { p, send, exited, stderr: () => stderr };
}

const bestmove = (got) => {
  const l = got.find((x) => x.startsWith('bestmove '));
  return l ? l.split(' ')[1] : null;
};

(async () => {
  const s = session([]);
  try {
    let got = await s.send('uci', /^uciok$/);
    check(got.some((l) => /^id name cformer/.test(l)), 'uci: id name cformer, uciok');
    got = await s.send('isready', /^readyok$/);
    check(got.some((l) => /loaded network <built in>/.test(l)), 'isready: the built-in network');
    got = await s.send(['position startpos moves e2e4', 'go nodes 50'], /^bestmove /);
    check(afterE4.includes(bestmove(got)), 'go nodes 50 after 1. e4: a legal bestmove (' +
      bestmove(got) + ')');
    await s.send('go infinite', /^info depth .* pv /);
    got = await s.send('stop', /^bestmove /);
    check(afterE4.includes(bestmove(got)), 'go infinite, then stop: a legal bestmove (' +
      bestmove(got) + ')');
    s.p.stdin.write('quit\n');
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('hung'), 30000))]);
    check(code === 0, 'quit: the bridge exits with status 0 (' + code + ')');
  } catch (e) {
    check(false, e.message);
    s.p.kill();
  }

  // The threaded build beside this one (scripts/build-wasm.sh DIR-threads).
  const threadsDir = buildDir + '-threads';
  if (fs.existsSync(path.join(threadsDir, 'web', 'cformer-engine.wasm'))) {
    const t = session(['--threads', '--threads-build', threadsDir]);
    try {
      await t.send(['uci', 'isready'], /^readyok$/);
      const got = await t.send(['position startpos moves e2e4', 'go nodes 50'], /^bestmove /);
      check(afterE4.includes(bestmove(got)), '--threads: go nodes 50, a legal bestmove (' +
        bestmove(got) + ')');
      t.p.stdin.write('quit\n');
      check((await t.exited) === 0, '--threads: quit, status 0');
    } catch (e) {
      check(false, '--threads: ' + e.message);
      t.p.kill();
    }
  }

  const native = process.env.CF_NATIVE_BUILD;
  const match = native && path.join(native, 'tools', 'match', 'cformer-match');
  if (match && fs.existsSync(match)) {
    // The opponent command is split at spaces (tools/match/cf_engine_proc.c).
    const r = spawnSync(match, ['--games', '2', '--nodes', '30', '--opponent-nodes', '30',
      '--max-plies', '60', '--quiet', '--opponent',
      process.execPath + ' ' + bridge + ' --build ' + buildDir],
    { encoding: 'utf8', timeout: 600000 });
    const out = (r.stdout || '') + (r.stderr || '');
    console.log(out.trim().split('\n').map((l) => '     ' + l).join('\n'));
    check(r.status === 0, 'cformer-match, 2 games against the bridge: exit status 0 (' + r.status + ')');
    check(/: 2 games: W \d+ D \d+ L \d+/.test(out) &&
      /faults \(illegal move, crash, timeout\): cformer 0, opponent 0/.test(out),
      'both games played to a result, no fault on either side');
    // scripts/bench_web.js at the smallest sizes: it runs and fills its
    // table (the figures themselves are not checked: this is no benchmark).
    const bench = spawnSync(process.execPath, [path.resolve(__dirname, '..', '..', 'scripts', 'bench_web.js'),
      '--nodes', '20', '--positions', '1', '--rounds', '1', '--loads', '1', '--movetime', '100',
      '--build', buildDir, '--threads-build', threadsDir, '--native', path.join(native, 'tools', 'cformer'),
      '--skip', fs.existsSync(path.join(threadsDir, 'web', 'cformer-engine.wasm')) ? '' : 'b,c'],
    { encoding: 'utf8', timeout: 600000 });
    const table = bench.stdout || '';
    console.log(table.trim().split('\n').map((l) => '     ' + l).join('\n') + (bench.stderr || ''));
    check(bench.status === 0 && /^\| nodes\/s, one thread: .* \| [\d,]+ \/ [\d,]+ \| \d+\.\d\d \|$/m.test(table) &&
      /^cpu: .+/m.test(table) && /^load average at start: [\d.]+ [\d.]+ [\d.]+$/m.test(table),
    'scripts/bench_web.js at the smallest sizes: the machine, the load and the nodes/s row');
  } else {
    console.log('     (no CF_NATIVE_BUILD with cformer-match: the match and the benchmark are not run)');
  }
  console.log(failures ? failures + ' failed' : 'all passed');
  process.exit(failures ? 1 : 0);
})();
