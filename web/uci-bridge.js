#!/usr/bin/env node
// uci-bridge.js: the browser engine as a UCI engine on stdin and stdout,
// so that any UCI tool (a GUI, cformer-match) can play it: headless
// Chromium (web/headless.js) loads a blank page from a local server
// (web/serve.js, cross-origin isolated), starts the engine's Web Worker
// there (web/cformer-worker.js) and the lines are relayed: stdin to the
// worker, the worker's lines to stdout. `quit` (or the end of stdin) ends
// the worker, the browser and the server.
//
//   node web/uci-bridge.js [--threads] [--build build-wasm]
//                          [--threads-build build-wasm-threads]
//
// The single-threaded build by default (scripts/build-wasm.sh); --threads
// the threaded one (build-wasm-threads/, -Dweb_threads=true). A failure to
// start is written to stderr and the exit status is 1. Also a module:
// scripts/bench_web.js opens engines with openEngine.
'use strict';
const path = require('path');
const readline = require('readline');
const { start, missingParts } = require('./serve.js');
const { launch } = require('./headless.js');

const rootDir = path.dirname(__dirname);
const PAGE = '/uci-bridge.html';

// The bridge's own page: nothing but the headers of the site, so the
// worker's cost is all that loading costs.
function servePage(req, res, headers) {
  if (req.url.split('?')[0] !== PAGE) return false;
  const body = Buffer.from('<!doctype html><meta charset="utf-8"><title>cformer UCI bridge</title>\n');
  res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

// Starts the server (and a browser, unless one is given) and a worker in a
// fresh browser context. Resolves to {send(line), close(), loadedAt}:
// onLine(line) receives each engine line; loadedAt is Date.now() when the
// navigation started. Rejects with the reason when something cannot start.
async function openEngine({ threads = false, build = path.join(rootDir, 'build-wasm'),
  threadsBuild = path.join(rootDir, 'build-wasm-threads'), browser = null, onLine,
  onError = () => {} } = {}) {
  const missing = missingParts(path.resolve(build));
  if (missing.length) throw new Error('the site is incomplete: ' + missing.join('; '));
  const { server, url } = await start({ port: 0, build, threadsBuild: threads ? threadsBuild : null,
    extra: servePage });
  const ownBrowser = !browser;
  let context = null;
  const closeAll = async () => {
    if (context) await context.close().catch(() => {});
    if (ownBrowser && browser) await browser.close().catch(() => {});
    server.close();
  };
  try {
    if (ownBrowser) browser = await launch();
    context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (e) => onError('page error: ' + e));
    page.on('crash', () => onError('the page crashed'));
    await page.exposeFunction('cformerLine', (line) => onLine(line));
    const loadedAt = Date.now();
    await page.goto(url + PAGE.slice(1));
    const workerUrl = threads ? 'engine-mt/cformer-worker.js' : 'engine/cformer-worker.js';
    if (threads) {
      if (!(await page.evaluate(() => self.crossOriginIsolated)))
        throw new Error('the page is not cross-origin isolated: the threaded engine cannot run');
      const r = await context.request.fetch(url + workerUrl, { method: 'HEAD' });
      if (!r.ok()) throw new Error('no threaded build in ' + path.resolve(threadsBuild) +
        ' (bash scripts/build-wasm.sh build-wasm-threads -Dweb_threads=true)');
    }
    await page.evaluate((u) => {
      self.engine = new Worker(u);
      self.engine.onmessage = (e) => self.cformerLine(String(e.data));
      self.engine.onerror = (e) =>
        self.cformerLine('info string error: the engine worker failed: ' + (e.message || e));
    }, workerUrl);
    // One line at a time, in order.
    let chain = Promise.resolve();
    const send = (line) => {
      chain = chain.then(() => page.evaluate((l) => self.engine.postMessage(l), line))
        .catch((e) => onError('cannot send ' + JSON.stringify(line) + ': ' + e.message));
      return chain;
    };
    return { send, close: closeAll, loadedAt };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

function parseArgs(args) {
  const opt = { threads: false, build: path.join(rootDir, 'build-wasm'),
    threadsBuild: path.join(rootDir, 'build-wasm-threads') };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--threads') opt.threads = true;
    else if (a === '--single') opt.threads = false;
    else if ((a === '--build' || a === '--threads-build') && i + 1 < args.length)
      opt[a === '--build' ? 'build' : 'threadsBuild'] = path.resolve(args[++i]);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node web/uci-bridge.js [--threads] [--build DIR] [--threads-build DIR]');
      process.exit(0);
    } else {
      console.error('uci-bridge: unknown argument ' + a + ' (--help)');
      process.exit(2);
    }
  }
  return opt;
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  // Lines read before the engine is up wait, in order.
  const early = [];
  let engine = null, quitting = false;
  const input = readline.createInterface({ input: process.stdin });
  const quit = async () => {
    if (quitting) return;
    quitting = true;
    if (engine) {
      await engine.send('quit');
      // The worker's last lines (a stopped search's bestmove) come first.
      await new Promise((r) => setTimeout(r, 300));
      await engine.close();
    }
    process.exit(0);
  };
  input.on('line', (line) => {
    if (quitting) return;
    if (!engine) early.push(line);
    else engine.send(line);
    if (line.trim() === 'quit') quit();
  });
  input.on('close', () => quit());
  try {
    engine = await openEngine({
      ...opt,
      onLine: (line) => process.stdout.write(line + '\n'),
      onError: (why) => process.stderr.write('uci-bridge: ' + why + '\n'),
    });
  } catch (e) {
    process.stderr.write('uci-bridge: ' + e.message + '\n');
    process.exit(1);
  }
  for (const line of early.splice(0)) engine.send(line);
  if (quitting) {
    quitting = false;
    quit();
  }
}

if (require.main === module) main();

module.exports = { openEngine };
