// cformer-worker.js: the engine in a Web Worker, with the message protocol
// of stockfish.js: the page posts UCI lines (strings) and receives the
// engine's lines, one message each.
//
//   const engine = new Worker('cformer-worker.js');
//   engine.onmessage = (e) => console.log(e.data);   // "uciok", "bestmove e2e4", ...
//   engine.postMessage('uci');
//
// Besides UCI lines it takes one object message, for a user's network:
//   {type: 'file', name: 'my-net.pb.gz', data: ArrayBuffer}
// writes the bytes to the module's memory file system under /nets/<name>
// and answers "info string file /nets/<name> stored (<n> bytes)"; then
// `setoption name WeightsFile value /nets/<name>` and `isready` load it
// (a broken file gives the engine's usual `info string error: ...` and the
// previous network stays).
//
// The same file runs under node's worker_threads (the tests drive it so).
// Lines that arrive while the module is still loading wait, in order.
'use strict';

(function () {
  const isNode = typeof process === 'object' && process.versions && process.versions.node &&
    typeof importScripts !== 'function';
  let post, factory, wasmBinary;
  if (isNode) {
    const { parentPort } = require('worker_threads');
    const path = require('path');
    const fs = require('fs');
    post = (msg) => parentPort.postMessage(msg);
    parentPort.on('message', (msg) => receive(msg));
    factory = require(path.join(__dirname, 'cformer-engine.js'));
    // node's fetch cannot read a file path: give the module its bytes.
    wasmBinary = fs.readFileSync(path.join(__dirname, 'cformer-engine.wasm'));
  } else {
    post = (msg) => self.postMessage(msg);
    self.onmessage = (e) => receive(e.data);
    importScripts('cformer-engine.js');
    factory = self.CformerEngine;
  }

  let module = null;
  const pending = [];
  let threads = false;

  function feed(line) {
    const text = String(line);
    // A single-threaded build runs `go` inside this call: a search with no
    // end of its own would never return, and `stop` could never be read.
    if (!threads && /^\s*go\b/.test(text) && /\b(infinite|ponder)\b/.test(text) &&
        !/\b(nodes|depth|movetime|wtime|btime|mate)\b/.test(text)) {
      post('info string error: go infinite and go ponder need a limit in this single-threaded ' +
        'build (add nodes, depth or movetime)');
      return;
    }
    module.ccall('cf_web_feed', 'number', ['string'], [text]);
  }

  function storeFile(msg) {
    const name = String(msg.name || '').replace(/[^A-Za-z0-9._-]/g, '_');
    if (!name || !msg.data) {
      post('info string error: file message without a name or data');
      return;
    }
    try {
      module.FS.mkdirTree('/nets');
      const bytes = new Uint8Array(msg.data);
      module.FS.writeFile('/nets/' + name, bytes);
      post('info string file /nets/' + name + ' stored (' + bytes.length + ' bytes)');
    } catch (e) {
      post('info string error: cannot store /nets/' + name + ': ' + e);
    }
  }

  function receive(msg) {
    if (!module) {
      pending.push(msg);
      return;
    }
    if (msg && typeof msg === 'object' && msg.type === 'file') storeFile(msg);
    else
      for (const line of String(msg).split('\n'))
        if (line.trim()) feed(line);
  }

  const options = {
    onLine: (line) => post(line),
    print: (text) => post('info string ' + text),
    printErr: (text) => post('info string ' + text),
  };
  if (wasmBinary) options.wasmBinary = wasmBinary;
  // A threaded build starts its threads as workers that load the module's
  // script again: from a worker it cannot tell its own address.
  if (!isNode) options.mainScriptUrlOrBlob = new URL('cformer-engine.js', self.location.href).href;
  factory(options).then((m) => {
    module = m;
    threads = m.ccall('cf_web_threads', 'number', [], []) === 1;
    m.ccall('cf_web_start', 'number', [], []);
    while (pending.length) receive(pending.shift());
  }, (e) => post('info string error: the engine could not start: ' + e));
})();
