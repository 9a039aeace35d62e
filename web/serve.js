#!/usr/bin/env node
// serve.js: serves the page locally, with the headers that make it
// cross-origin isolated (COOP/COEP: what emscripten's threads need), gzip
// when the browser takes it, and prints the address.
//
//   node web/serve.js [--port 8080] [--host 127.0.0.1] [--build build-wasm]
//                     [--threads-build build-wasm-threads]
//   node web/serve.js --export DIR [--build ...]   # a static copy
//
// The site is put together from three places: the page (web/index.html,
// app.js, style.css), the engine (BUILD/web/cformer-*.js|wasm, from
// scripts/build-wasm.sh, at /engine/; the threaded build, when there is
// one, at /engine-mt/) and the board and rules (web/node_modules, from
// `npm ci --prefix web`). Nothing is fetched from elsewhere: once loaded the
// page works offline. Also a module: tests/web/page_test.js starts it with
// start({port: 0}).
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const zlib = require('zlib');

const webDir = __dirname;
const rootDir = path.dirname(webDir);

// URL prefix -> folder; each names what it holds.
function siteMap(buildDir, threadsDir) {
  const engine = ['cformer-worker.js', 'cformer-engine.js', 'cformer-engine.wasm'];
  const threaded = threadsDir && fs.existsSync(path.join(threadsDir, 'web', 'cformer-engine.wasm'))
    ? [{ url: '/engine-mt/', dir: path.join(threadsDir, 'web'),
      only: engine.concat(['cformer-engine.worker.js']) }] : [];
  return threaded.concat([
    { url: '/engine/', dir: path.join(buildDir, 'web'), only: engine },
    { url: '/vendor/cm-chessboard/', dir: path.join(webDir, 'node_modules', 'cm-chessboard') },
    { url: '/vendor/chess.js/', dir: path.join(webDir, 'node_modules', 'chess.js') },
    { url: '/', dir: webDir, only: ['index.html', 'app.js', 'engine.js', 'style.css'] },
  ]);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.json': 'application/json',
  '.gz': 'application/octet-stream', '.png': 'image/png',
};

// The file a URL path names, or null (outside the map, or a path that
// tries to climb out of its folder).
function resolve(map, urlPath) {
  let p;
  try {
    p = decodeURIComponent(urlPath.split('?')[0]);
  } catch (e) {
    return null;
  }
  if (p === '/') p = '/index.html';
  for (const m of map) {
    if (!p.startsWith(m.url)) continue;
    const rel = p.slice(m.url.length);
    if (m.only && !m.only.includes(rel)) continue;
    const file = path.resolve(m.dir, rel);
    if (!file.startsWith(path.resolve(m.dir) + path.sep)) return null;
    return file;
  }
  return null;
}

function missingParts(buildDir) {
  const need = [
    [path.join(buildDir, 'web', 'cformer-engine.wasm'), 'the engine: bash scripts/build-wasm.sh'],
    [path.join(webDir, 'node_modules', 'cm-chessboard'), 'the board: npm ci --prefix web'],
    [path.join(webDir, 'node_modules', 'chess.js'), 'the rules: npm ci --prefix web'],
  ];
  return need.filter(([p]) => !fs.existsSync(p)).map(([, why]) => why);
}

// The headers of every answer: cross-origin isolated, never cached.
const HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

// Starts the server; resolves to {server, url}. extra(req, res, headers),
// when given, answers first: true when it did (web/uci-bridge.js serves
// its own page so).
function start({ port = 8080, host = '127.0.0.1', build = path.join(rootDir, 'build-wasm'),
  threadsBuild = path.join(rootDir, 'build-wasm-threads'), extra = null } = {}) {
  const map = siteMap(path.resolve(build), threadsBuild && path.resolve(threadsBuild));
  const server = http.createServer((req, res) => {
    const headers = { ...HEADERS };
    if (extra && extra(req, res, headers)) return;
    const file = resolve(map, req.url);
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    headers['Content-Type'] = TYPES[path.extname(file)] || 'application/octet-stream';
    let body = fs.readFileSync(file);
    if (/\bgzip\b/.test(req.headers['accept-encoding'] || '') && !file.endsWith('.gz')) {
      body = zlib.gzipSync(body, { level: 9 });
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const a = server.address();
      resolvePromise({ server, url: `http://${host}:${a.port}/` });
    });
  });
}

// Copies the site into dir, laid out as served.
function exportSite(dir, build, threadsBuild) {
  const map = siteMap(path.resolve(build), threadsBuild && path.resolve(threadsBuild));
  for (const m of map) {
    const target = path.join(dir, m.url);
    fs.mkdirSync(target, { recursive: true });
    if (m.only) for (const f of m.only) fs.copyFileSync(path.join(m.dir, f), path.join(target, f));
    else fs.cpSync(m.dir, target, { recursive: true });
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf('--' + name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
  };
  const build = path.resolve(opt('build', path.join(rootDir, 'build-wasm')));
  const threadsBuild = path.resolve(opt('threads-build', path.join(rootDir, 'build-wasm-threads')));
  const missing = missingParts(build);
  if (missing.length) {
    console.error('serve: missing ' + missing.join('; '));
    process.exit(1);
  }
  if (opt('export')) {
    exportSite(path.resolve(opt('export')), build, threadsBuild);
    console.log('cformer web: exported to ' + path.resolve(opt('export')));
  } else {
    start({ port: Number(opt('port', 8080)), host: opt('host', '127.0.0.1'), build, threadsBuild })
      .then(
      ({ url }) => console.log('cformer web: ' + url + ' (Ctrl-C stops)'),
      (e) => {
        console.error('serve: ' + e.message);
        process.exit(1);
      });
  }
}

module.exports = { start, exportSite, missingParts };
