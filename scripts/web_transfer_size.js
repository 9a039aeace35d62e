#!/usr/bin/env node
// web_transfer_size.js: what the page costs to load, in bytes on the wire:
// serves the site with web/serve.js (gzip -9 for every file), opens it in
// headless Chromium (playwright-core from web/node_modules) until the
// engine is ready, and lists every response's transferred size and the
// total. The page takes the threaded build when BUILD_WASM_DIR-threads
// exists; --single serves only the single-threaded one. docs/WEB.md
// records a run.
//   node scripts/web_transfer_size.js [--single] [BUILD_WASM_DIR]
'use strict';
const http = require('http');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const web = path.join(root, 'web');
const args = process.argv.slice(2);
const single = args.includes('--single');
const build = path.resolve(args.filter((a) => a !== '--single')[0] || path.join(root, 'build-wasm'));
const { start } = require(path.join(web, 'serve.js'));
const playwright = require(path.join(web, 'node_modules', 'playwright-core'));

const sizes = new Map();
const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function (code, headers) {
  sizes.set(this.req.url, code === 200 ? Number(headers['Content-Length']) : 0);
  return writeHead.call(this, code, headers);
};

(async () => {
  const exe = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  const { server, url } = await start({ port: 0, build, threadsBuild: single ? null : build + '-threads' });
  const browser = await playwright.chromium.launch({
    executablePath: exe,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector('#engine-status[data-state="ready"]', { timeout: 120000 });
  let total = 0;
  for (const [u, n] of sizes) {
    console.log(String(n).padStart(9) + '  ' + u);
    total += n;
  }
  console.log(String(total).padStart(9) + '  total bytes transferred, ' + sizes.size + ' requests');
  await browser.close();
  server.close();
})().catch((e) => {
  console.error('web_transfer_size: ' + e.message);
  process.exit(1);
});
