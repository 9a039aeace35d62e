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
//
// Single-threaded, a `go` runs in this worker's thread and gives the event
// loop a turn every few milliseconds (web/cf_web_uci.c): the lines that
// come meanwhile wait in order and run once the search has returned, but
// `stop` and `quit` end it first, as does any line during `go infinite` or
// `go ponder` (a `ponderhit` there answers at once with the move found),
// and `isready` with nothing waiting is answered at once.
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
  let threads = false;
  const waiting = []; // messages not yet run, in order
  let busy = false;    // single-threaded: a go is running (it yields)
  let held = false;    // ... and it is go infinite or go ponder
  let endSearch = false; // a line came that ends it

  // One turn of the event loop, so the messages that came are received.
  const channel = typeof setImmediate === 'function' ? null : new MessageChannel();
  const turns = [];
  if (channel) channel.port1.onmessage = () => turns.shift()();
  function turn(fn) {
    if (!channel) return setImmediate(fn);
    turns.push(fn);
    channel.port2.postMessage(0);
  }

  function feed(line) {
    const text = String(line);
    if (threads || !/^\s*go\b/.test(text)) {
      module.ccall('cf_web_feed', 'number', ['string'], [text]);
      return null;
    }
    held = /\b(infinite|ponder)\b/.test(text);
    return module.ccall('cf_web_feed', 'number', ['string'], [text], { async: true });
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

  // Runs the waiting messages in order until a search yields.
  function pump() {
    while (module && !busy && waiting.length) {
      const msg = waiting.shift();
      if (typeof msg === 'object') {
        storeFile(msg);
        continue;
      }
      const running = feed(msg);
      if (!running) continue;
      busy = true;
      endSearch = false;
      const done = () => {
        busy = held = endSearch = false;
        pump();
      };
      running.then(done, (e) => {
        post('info string error: the search failed: ' + e);
        done();
      });
    }
  }

  // A line that came while a single-threaded search runs.
  function duringSearch(line) {
    const command = line.trim().split(/\s+/)[0];
    if (command === 'isready' && !waiting.length) {
      post('readyok'); // the engine is searching: it is ready
      return;
    }
    waiting.push(line);
    if (command === 'stop' || command === 'quit' || (held && command !== 'isready')) endSearch = true;
  }

  function receive(msg) {
    if (msg && typeof msg === 'object' && msg.type === 'file') waiting.push(msg);
    else
      for (const line of String(msg).split('\n'))
        if (line.trim()) {
          if (busy) duringSearch(line);
          else waiting.push(line);
        }
    pump();
  }

  const options = {
    onLine: (line) => post(line),
    // The single-threaded search's turn (cf_web_yield): 1 ends it.
    onYield: () => new Promise((resolve) => turn(() => resolve(endSearch ? 1 : 0))),
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
    pump();
  }, (e) => post('info string error: the engine could not start: ' + e));
})();
