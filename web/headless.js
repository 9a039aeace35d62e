// headless.js: Debian's Chromium (package chromium), headless, through
// playwright-core (web/node_modules: npm ci --prefix web), as the page
// test (tests/web/page_test.js), the UCI bridge (web/uci-bridge.js) and
// the benchmark (scripts/bench_web.js) start it.
'use strict';
const path = require('path');
const { execFileSync } = require('child_process');

function findChromium() {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('sh', ['-c', 'command -v ' + name], { encoding: 'utf8' }).trim();
    } catch (e) { /* next */ }
  }
  return null;
}

// Resolves to the browser; rejects with an Error that says why it cannot
// start (no playwright-core, no Chromium, or Chromium's own reason).
async function launch() {
  let playwright;
  try {
    playwright = require(path.join(__dirname, 'node_modules', 'playwright-core'));
  } catch (e) {
    throw new Error('playwright-core is not installed (npm ci --prefix web; ' +
      'scripts/install-deps.sh)');
  }
  const exe = findChromium();
  if (!exe) throw new Error('cannot start Chromium: none on PATH (Debian package chromium; ' +
    'scripts/install-deps.sh installs it)');
  try {
    // (a new empty profile: playwright makes one per launch)
    return await playwright.chromium.launch({
      executablePath: exe,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (e) {
    throw new Error('cannot start Chromium (' + exe + '): ' + e.message.split('\n')[0]);
  }
}

module.exports = { findChromium, launch };
