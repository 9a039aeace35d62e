// engine.js: the page's side of the engine worker (cformer-worker.js): UCI
// lines out through postMessage, the engine's lines back to a listener, and
// a worker that dies (a crash, memory exhausted) replaced by a new one,
// with the listener told why so the page can say so and set it up again.
export class Engine {
  constructor(url, { onLine, onRestart }) {
    this.url = url;
    this.onLine = onLine;
    this.onRestart = onRestart;
    this.restarts = 0;
    this.start();
  }

  start() {
    this.worker = new Worker(this.url);
    this.worker.onmessage = (e) => this.onLine(String(e.data));
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.restart(e.message || 'the worker failed');
    };
  }

  restart(reason) {
    this.worker.terminate();
    this.restarts++;
    this.start();
    this.onRestart(reason);
  }

  // A UCI line, or a {type: 'file'} message (transfer: the buffers to move).
  send(msg, transfer) {
    if (transfer) this.worker.postMessage(msg, transfer);
    else this.worker.postMessage(msg);
  }
}
