// The page (web/) in Debian's Chromium, headless, driven by playwright-core:
// it loads cross-origin isolated with the engine ready and the built-in
// network shown; the worker answers uci and isready; a complete game
// against a random mover ends with a result and only legal moves; the
// analysis of a mate in two shows the mate and its line in SAN, with
// arrows; a user's network loads from the file picker; a broken one gives a
// visible error, the previous network is kept and the page goes on
// working; a network loads from a URL; a worker that fails is replaced
// and the page says so, keeping the game and the user's network. With the threaded build beside this one (DIR-threads) the page
// runs that, and ?engine=single the other. Screenshots of the board and of
// the analysis panel are saved.
// Cannot start Chromium: fails with the reason (.ci/run installs it).
//   node page_test.js WASM_BUILD_DIR DATA_DIR ARTIFACT_DIR
'use strict';
const fs = require('fs');
const path = require('path');

const [buildDir, dataDir, artifactDir] = process.argv.slice(2).map((p) => path.resolve(p));
// The threaded build beside it (scripts/build-wasm.sh DIR-threads): the
// page takes it when served.
const threadsDir = buildDir + '-threads';
const haveThreads = fs.existsSync(path.join(threadsDir, 'web', 'cformer-engine.wasm'));
const webDir = path.resolve(__dirname, '..', '..', 'web');
const { start, missingParts } = require(path.join(webDir, 'serve.js'));
const { launch } = require(path.join(webDir, 'headless.js'));

let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}
function fatal(why) {
  console.log('FAIL ' + why);
  process.exit(1);
}

// A seeded random mover, so a failure can be replayed.
let seed = Number(process.env.CF_WEB_SEED || 12345);
function random(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}

(async () => {
  const missing = missingParts(buildDir);
  if (missing.length) fatal('the site is incomplete: ' + missing.join('; '));
  fs.mkdirSync(artifactDir, { recursive: true });

  const { server, url } = await start({ port: 0, build: buildDir,
    threadsBuild: haveThreads ? threadsDir : null });
  let browser;
  try {
    browser = await launch();
  } catch (e) {
    server.close();
    fatal(e.message);
  }
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  const text = (sel) => page.textContent(sel);

  try {
    // 1. The page loads; the engine is ready with the built-in network.
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForSelector('#engine-status[data-state="ready"]', { timeout: 60000 });
    console.log('     engine ready ' + (Date.now() - t0) + ' ms after navigation');
    check(await page.evaluate(() => self.crossOriginIsolated), 'the page is cross-origin isolated');
    const engineKind = await text('#engine-status');
    check(haveThreads ? /\(threads\)/.test(engineKind) : /\(single thread\)/.test(engineKind),
      'the ' + (haveThreads ? 'threaded' : 'single-threaded') + ' engine runs (' + engineKind + ')');
    const netInfo = await text('#net-info');
    check(/built-in network: 4 layers, d 64, 4 heads/.test(netInfo),
      'the built-in network is shown with its shape (' + netInfo + ')');

    // 2. The worker itself, as another GUI would use it.
    const lines = await page.evaluate(() => new Promise((resolve) => {
      const w = new Worker('engine/cformer-worker.js');
      const got = [];
      w.onmessage = (e) => {
        got.push(String(e.data));
        if (e.data === 'readyok') {
          w.terminate();
          resolve(got);
        }
      };
      w.postMessage('uci');
      w.postMessage('isready');
    }));
    check(lines.includes('uciok') && lines.includes('readyok'), 'the worker answers uci and isready');

    // 3. A complete game against a random mover: the user's first move by
    // clicks on the board, the rest through the page's own action.
    await page.selectOption('#movetime', '100');
    await page.click('[data-square="e2"]');
    await page.click('[data-square="e4"]');
    const waitUserTurn = () => page.waitForFunction(() => {
      const s = window.cformer.state;
      return document.getElementById('result').textContent !== '' ||
        (s.game.turn() === 'w' && !s.search);
    }, null, { timeout: 60000 });
    await page.waitForFunction(() => window.cformer.state.game.history().length > 0, null,
      { timeout: 10000 }).catch(() => {});
    await waitUserTurn();
    const first = await page.evaluate(() => window.cformer.state.game.history()[0]);
    check(first === 'e4', 'a move made by clicks on the board is played (' + first + ')');
    let plies = 0;
    for (; plies < 1000; plies++) {
      await waitUserTurn();
      if (await text('#result')) break;
      const moves = await page.evaluate(() => window.cformer.state.game.moves({ verbose: true })
        .map((m) => m.from + m.to + (m.promotion || '')));
      const mv = moves[random(moves.length)];
      await page.evaluate((m) => window.cformer.playUci(m), mv);
    }
    const result = await text('#result');
    const pgn = await page.inputValue('#pgn');
    console.log('     result: ' + result + ' after ' +
      (await page.evaluate(() => window.cformer.state.game.history().length)) + ' plies');
    check(/^(1-0|0-1|1\/2-1\/2): /.test(result), 'the game against a random mover ends (' + result + ')');
    check(!/no legal move/.test(result), 'every engine move was legal');
    check(pgn.includes(result.split(':')[0]), 'the PGN carries the result');
    const replayed = await page.evaluate((p) => {
      window.cformer.loadPgn(p);
      return window.cformer.state.game.history().length;
    }, pgn);
    check(replayed > 0, 'the PGN loads back (' + replayed + ' plies)');
    await page.screenshot({ path: path.join(artifactDir, 'board-game.png') });

    // 4. Analysis: a mate in two found and shown.
    await page.check('input[name=mode][value=analyse]');
    await page.fill('#fen', '3r2k1/5ppp/8/8/7q/8/4RPPP/4R1K1 w - - 0 1');
    await page.click('#load-fen');
    await page.waitForFunction(() => document.getElementById('score').textContent === '#2',
      null, { timeout: 60000 });
    const pv = await text('#lines li:first-child');
    check(/^#2\s+Re8\+ Rxe8 Rxe8#/.test(pv), 'the mate in two and its line in SAN (' + pv + ')');
    check(await page.$$eval('#board .arrow', (a) => a.length) > 0, 'the lines drawn as arrows');
    check(/nodes\/s/.test(await text('#nps')), 'nodes/s shown');
    // A quiet position: W/D/L shown.
    await page.fill('#fen', 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2');
    await page.click('#load-fen');
    await page.waitForFunction(() => /^W [\d.]+% D/.test(document.getElementById('wdl').textContent),
      null, { timeout: 60000 });
    check(true, 'W/D/L shown: ' + await text('#wdl'));
    await page.locator('#board-area').screenshot({ path: path.join(artifactDir, 'board.png') });
    await page.locator('#side').screenshot({ path: path.join(artifactDir, 'analysis.png') });

    // 5. A user's network from the file picker.
    await page.waitForFunction(() => !window.cformer.state.search, null, { timeout: 60000 });
    await page.setInputFiles('#net-file', path.join(dataDir, 'parity', 'cf-rpe-rms.pb.gz'));
    await page.waitForFunction(() => /^cf-rpe-rms\.pb\.gz, [\d.]+ MB: \d+ layers/.test(
      document.getElementById('net-info').textContent), null, { timeout: 60000 });
    check(true, 'a user network loads: ' + await text('#net-info'));

    // 6. A broken file: a visible error, the previous network kept, and
    // the page goes on working.
    await page.setInputFiles('#net-file', { name: 'broken.pb.gz', mimeType: 'application/gzip',
      buffer: Buffer.from('this is not a network') });
    await page.waitForFunction(() => /previous network is kept/.test(
      document.getElementById('net-error').textContent), null, { timeout: 60000 });
    const netError = await text('#net-error');
    check(/broken\.pb\.gz: .*not a gzip stream/.test(netError), 'a broken file: the reason shown (' +
      netError.split('\n')[0] + ')');
    await page.waitForFunction(() => /^cf-rpe-rms\.pb\.gz/.test(
      document.getElementById('net-info').textContent) && !window.cformer.state.netLoad, null,
    { timeout: 60000 });
    check(true, 'the previous network is back: ' + await text('#net-info'));
    await page.fill('#fen', '3r2k1/5ppp/8/8/7q/8/4RPPP/4R1K1 w - - 0 1');
    await page.click('#load-fen');
    await page.waitForFunction(() => document.querySelectorAll('#lines li').length > 0 &&
      !window.cformer.state.search, null, { timeout: 60000 });
    check(true, 'after the broken file the page still analyses: ' + await text('#lines li:first-child'));
    // 7. A network from a URL (answered here by the test).
    await page.route('**/test-nets/classic.pb.gz', (route) => route.fulfill({
      status: 200, contentType: 'application/octet-stream',
      body: fs.readFileSync(path.join(dataDir, 'parity', 'lc0-map-classic.pb.gz')) }));
    await page.fill('#net-url', url + 'test-nets/classic.pb.gz');
    await page.click('#net-url-load');
    await page.waitForFunction(() => /^classic\.pb\.gz, [\d.]+ MB: \d+ layers/.test(
      document.getElementById('net-info').textContent) && !window.cformer.state.netLoad, null,
    { timeout: 60000 });
    check(true, 'a network from a URL loads: ' + await text('#net-info'));

    // 8. The worker fails: a new one takes its place, the page says so,
    // the user's network is loaded again and the game stays as it was.
    const fenBefore = await page.inputValue('#fen');
    const loads = () => window.cformer.state.log.filter(
      (l) => l.startsWith('info string loaded network /nets/classic.pb.gz')).length;
    const loadsBefore = await page.evaluate(loads);
    await page.evaluate(() => window.cformer.engine.worker.dispatchEvent(
      new ErrorEvent('error', { message: 'simulated failure' })));
    await page.waitForFunction(() => /restarted 1x after a failure/.test(
      document.getElementById('engine-status').textContent), null, { timeout: 60000 });
    check(true, 'a failed worker is replaced and the page says so: ' + await text('#engine-status'));
    check(await page.inputValue('#fen') === fenBefore, 'the position is kept');
    await page.waitForFunction((before) => window.cformer.state.log.filter(
      (l) => l.startsWith('info string loaded network /nets/classic.pb.gz')).length > before,
    loadsBefore, { timeout: 60000 });
    check(/^classic\.pb\.gz/.test(await text('#net-info')),
      'the user network is loaded again in the new worker: ' + await text('#net-info'));

    // 9. With threads served, the single-threaded engine still works.
    if (haveThreads) {
      const single = await browser.newPage();
      single.on('pageerror', (e) => pageErrors.push(String(e)));
      await single.goto(url + '?engine=single');
      await single.waitForSelector('#engine-status[data-state="ready"]', { timeout: 60000 });
      check(/single thread/.test(await single.textContent('#engine-status')),
        '?engine=single: the single-threaded engine');
      await single.check('input[name=mode][value=analyse]');
      await single.fill('#fen', '3r2k1/5ppp/8/8/7q/8/4RPPP/4R1K1 w - - 0 1');
      await single.click('#load-fen');
      await single.waitForFunction(() => document.getElementById('score').textContent === '#2',
        null, { timeout: 60000 });
      check(true, 'the single-threaded engine finds the mate in two too');
      await single.close();
    }
    check(pageErrors.length === 0, 'no errors on the page' +
      (pageErrors.length ? ': ' + pageErrors.join('; ') : ''));
  } catch (e) {
    await page.screenshot({ path: path.join(artifactDir, 'failure.png') }).catch(() => {});
    console.log('FAIL ' + e.message.split('\n')[0]);
    console.log('     engine lines: ' + (await page.evaluate(() => window.cformer &&
      window.cformer.state.log.slice(-8).join(' | ')).catch(() => '?')));
    failures++;
  } finally {
    await browser.close();
    server.close();
  }
  console.log('screenshots in ' + artifactDir);
  console.log(failures ? failures + ' failed' : 'all passed');
  process.exit(failures ? 1 : 0);
})();
