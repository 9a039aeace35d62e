// app.js: the page: a board to play against cformer or analyse with it.
// A thin client over the engine's UCI (engine.js, cformer-worker.js): the
// game lives here (chess.js), the engine gets `position fen ... moves ...`
// and `go` and answers with info lines and a bestmove. The page sends the
// next `go` only after the bestmove; an analysis of a position that has
// changed is stopped first (both builds read stop while they search).
import { Chessboard, COLOR, INPUT_EVENT_TYPE } from './vendor/cm-chessboard/src/Chessboard.js';
import { Arrows, ARROW_TYPE } from './vendor/cm-chessboard/src/extensions/arrows/Arrows.js';
import { Chess } from './vendor/chess.js/dist/esm/chess.js';
import { Engine } from './engine.js';

const $ = (id) => document.getElementById(id);
const BUILT_IN = '<autodiscover>';

const state = {
  game: new Chess(),
  startFen: new Chess().fen(),
  mode: 'play',
  ready: false,
  search: null,      // {kind: 'play'|'analyse', fen, lines: []} while a go runs
  analysePending: false,
  weights: BUILT_IN, // the WeightsFile the engine has loaded
  netLoad: null,     // {file, name, size, previous, error} while a user net loads
  userNets: new Map(), // stored name -> bytes, to store again after a restart
  log: [],           // the engine's lines, for the tests and for a bug report
};

const board = new Chessboard($('board'), {
  position: state.game.fen(),
  assetsUrl: 'vendor/cm-chessboard/assets/',
  style: { animationDuration: 150 },
  extensions: [{ class: Arrows }],
});

// The threaded engine when the page is cross-origin isolated (threads
// share memory only then) and the server has it; else the single-threaded
// one. ?engine=single forces that.
async function chooseEngine() {
  if (new URLSearchParams(location.search).get('engine') !== 'single' && self.crossOriginIsolated) {
    try {
      const r = await fetch('engine-mt/cformer-worker.js', { method: 'HEAD' });
      if (r.ok) return { url: 'engine-mt/cformer-worker.js', threads: true };
    } catch (e) { /* the single-threaded one */ }
  }
  return { url: 'engine/cformer-worker.js', threads: false };
}
const chosen = await chooseEngine();
state.threads = chosen.threads;
const engine = new Engine(chosen.url, { onLine, onRestart });
engine.send('uci');

function status(text, kind) {
  $('engine-status').textContent = text;
  $('engine-status').dataset.state = kind;
}

function onRestart(reason) {
  // The game stays as it is; the engine is set up again.
  status('engine restarted after a failure (' + reason + ')', 'error');
  state.ready = false;
  state.search = null;
  const w = state.weights;
  if (state.userNets.has(w)) {
    const bytes = state.userNets.get(w).slice(0);
    engine.send({ type: 'file', name: w.slice('/nets/'.length), data: bytes }, [bytes]);
  }
  engine.send('uci');
  if (w !== BUILT_IN) engine.send('setoption name WeightsFile value ' + w);
}

// ---- engine lines ----

function onLine(line) {
  state.log.push(line);
  if (line === 'uciok') {
    engine.send('setoption name UCI_ShowWDL value true');
    // Threaded: the batches split over two copies of the network.
    if (state.threads && (navigator.hardwareConcurrency || 1) >= 2)
      engine.send('setoption name Threads value 2');
    engine.send('isready');
  } else if (line === 'readyok') {
    onReady();
  } else if (line.startsWith('info string loaded network ')) {
    onNetLoaded(line.slice('info string loaded network '.length));
  } else if (line.startsWith('info string error: ')) {
    const msg = line.slice('info string error: '.length);
    if (state.netLoad) state.netLoad.error = msg;
    else console.warn('engine: ' + msg);
  } else if (line.startsWith('info ') && / pv /.test(line)) {
    onInfo(line);
  } else if (line.startsWith('bestmove')) {
    onBestmove(line.split(/\s+/)[1]);
  }
}

function onReady() {
  const load = state.netLoad;
  if (load && load.restoring) {
    state.netLoad = null;
  } else if (load) {
    if (load.error) {
      $('net-error').textContent = 'Could not load ' + load.name + ': ' + load.error +
        '\nThe previous network is kept.';
      // The engine has no network now: name the previous one again.
      load.restoring = true;
      engine.send('setoption name WeightsFile value ' + load.previous);
      engine.send('isready');
      return;
    }
    state.netLoad = null;
  }
  if (!state.ready) {
    state.ready = true;
    const restarted = engine.restarts ? ', restarted ' + engine.restarts + 'x after a failure' : '';
    status('engine ready (' + (state.threads ? 'threads' : 'single thread') + restarted + ')',
      'ready');
    afterChange();
  }
}

// "NAME (4 layers, d 64, 4 heads, 598307 parameters) on BACKEND (...)"
function onNetLoaded(text) {
  const m = /^(.*?) \((\d+ layers[^)]*)\) on (\S+)/.exec(text);
  const load = state.netLoad;
  if (load && !load.restoring) {
    state.weights = load.file;
    $('net-error').textContent = '';
  }
  const name = m ? m[1] : text;
  const shown = name === '<built in>' ? 'built-in network' : name.replace(/^\/nets\//, '');
  const size = load && !load.restoring ? ', ' + (load.size / 1048576).toFixed(2) + ' MB' : '';
  $('net-info').textContent = m ? shown + size + ': ' + m[2] + ', on ' + m[3] : text;
}

function parseInfo(line) {
  const t = line.split(/\s+/);
  const info = { multipv: 1 };
  for (let i = 1; i < t.length; i++) {
    switch (t[i]) {
      case 'multipv': info.multipv = Number(t[++i]); break;
      case 'nodes': info.nodes = Number(t[++i]); break;
      case 'nps': info.nps = Number(t[++i]); break;
      case 'score':
        info.kind = t[++i];
        info.value = Number(t[++i]);
        break;
      case 'wdl': info.wdl = [Number(t[++i]), Number(t[++i]), Number(t[++i])]; break;
      case 'pv': info.pv = t.slice(i + 1); i = t.length; break;
      default: break;
    }
  }
  return info;
}

function onInfo(line) {
  if (!state.search || state.search.kind !== 'analyse') return;
  const info = parseInfo(line);
  state.search.lines[info.multipv - 1] = info;
  renderAnalysis();
}

function onBestmove(uci) {
  const search = state.search;
  state.search = null;
  if (search && search.kind === 'play' && state.mode === 'play' && search.fen === state.game.fen()) {
    if (!uci || uci === '0000' || !playUci(uci)) {
      $('result').textContent = 'The engine gave no legal move (' + uci + ').';
    }
  }
  if (state.analysePending) {
    state.analysePending = false;
    startAnalysis();
  } else if (state.mode === 'play' && !resultText() &&
             state.game.turn() !== $('user-color').value) {
    engineMove(); // the mode changed, or a new game began, while it searched
  }
  updateInput();
}

// ---- the game ----

function playUci(uci) {
  try {
    state.game.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] || undefined });
  } catch (e) {
    return false;
  }
  board.setPosition(state.game.fen(), true);
  afterChange();
  return true;
}

function uciMoves() {
  return state.game.history({ verbose: true }).map((m) => m.from + m.to + (m.promotion || ''));
}

function positionCommand() {
  const moves = uciMoves();
  return 'position fen ' + state.startFen + (moves.length ? ' moves ' + moves.join(' ') : '');
}

function resultText() {
  const g = state.game;
  if (g.isCheckmate()) return (g.turn() === 'w' ? '0-1' : '1-0') + ': checkmate';
  if (g.isStalemate()) return '1/2-1/2: stalemate';
  if (g.isInsufficientMaterial()) return '1/2-1/2: insufficient material';
  if (g.isThreefoldRepetition()) return '1/2-1/2: threefold repetition';
  if (g.isDraw()) return '1/2-1/2: fifty-move rule';
  return '';
}

// Everything that follows a change of the position.
function afterChange() {
  $('fen').value = state.game.fen();
  const result = resultText();
  if (result) state.game.header('Result', result.split(':')[0]);
  $('pgn').value = state.game.pgn();
  $('result').textContent = result;
  board.removeArrows();
  if (!state.ready) return;
  if (state.mode === 'analyse') startAnalysis();
  else if (state.search) state.analysePending = false;
  else if (!result && state.game.turn() !== $('user-color').value) engineMove();
  updateInput();
}

function engineMove() {
  if (state.search) return; // its bestmove comes first; onBestmove checks the position
  state.search = { kind: 'play', fen: state.game.fen(), lines: [] };
  engine.send('setoption name MultiPV value 1');
  engine.send(positionCommand());
  engine.send('go movetime ' + $('movetime').value);
}

function startAnalysis() {
  if (state.search) {
    // The search reads stop (single-threaded, between its turns).
    if (state.search.kind === 'analyse' && !state.analysePending)
      engine.send('stop');
    state.analysePending = true;
    return;
  }
  if (resultText()) {
    renderAnalysis();
    return;
  }
  state.search = { kind: 'analyse', fen: state.game.fen(), lines: [] };
  engine.send('setoption name MultiPV value ' + $('multipv').value);
  engine.send(positionCommand());
  engine.send('go movetime ' + $('analysis-time').value);
}

// ---- analysis display ----

function scoreText(info, whiteToMove) {
  if (!info || !info.kind) return '–';
  if (info.kind === 'mate') return '#' + info.value;
  const cp = whiteToMove ? info.value : -info.value;
  return (cp >= 0 ? '+' : '') + (cp / 100).toFixed(2);
}

function sanLine(fen, pv) {
  const g = new Chess(fen);
  const out = [];
  for (const uci of pv || []) {
    try {
      const m = g.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] || undefined });
      out.push(m.san);
    } catch (e) {
      break;
    }
  }
  return out.join(' ');
}

function renderAnalysis() {
  const search = state.search;
  const lines = search && search.kind === 'analyse' ? search.lines : [];
  const fen = search ? search.fen : state.game.fen();
  const whiteToMove = fen.split(' ')[1] === 'w';
  const best = lines[0];
  $('score').textContent = best ? scoreText(best, true) : '–';
  $('wdl').textContent = best && best.wdl
    ? 'W ' + (best.wdl[0] / 10).toFixed(1) + '% D ' + (best.wdl[1] / 10).toFixed(1) + '% L ' +
      (best.wdl[2] / 10).toFixed(1) + '%' : '';
  $('nps').textContent = best && best.nps ? best.nodes + ' nodes, ' + best.nps + ' nodes/s' : '';
  // The bar: white's share, from the score as side to move.
  let white = 0.5;
  if (best && best.kind === 'mate') white = (best.value > 0) === whiteToMove ? 1 : 0;
  else if (best && best.kind === 'cp') {
    const cp = whiteToMove ? best.value : -best.value;
    white = 1 / (1 + Math.exp(-cp / 250));
  }
  $('eval-fill').style.height = (100 * white).toFixed(1) + '%';
  const ol = $('lines');
  ol.textContent = '';
  board.removeArrows();
  lines.forEach((info, k) => {
    if (!info) return;
    const li = document.createElement('li');
    li.textContent = scoreText(info, true) + '  ' + sanLine(fen, info.pv);
    ol.appendChild(li);
    const first = info.pv && info.pv[0];
    if (first) board.addArrow(k === 0 ? ARROW_TYPE.success : ARROW_TYPE.info, first.slice(0, 2),
      first.slice(2, 4));
  });
}

// ---- input ----

function updateInput() {
  board.disableMoveInput();
  if (resultText()) return;
  if (state.mode === 'play') {
    const user = $('user-color').value;
    if (state.game.turn() === user && !state.search)
      board.enableMoveInput(onBoardInput, user === 'w' ? COLOR.white : COLOR.black);
  } else {
    board.enableMoveInput(onBoardInput);
  }
}

function onBoardInput(event) {
  if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
    return state.game.moves({ square: event.squareFrom }).length > 0;
  }
  if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
    const legal = state.game.moves({ square: event.squareFrom, verbose: true })
      .filter((m) => m.to === event.squareTo);
    if (!legal.length) return false;
    const promo = legal.some((m) => m.promotion) ? 'q' : '';
    setTimeout(() => playUci(event.squareFrom + event.squareTo + promo));
    return true;
  }
  return true;
}

function undo() {
  if (state.search && state.search.kind === 'play') return; // the engine is thinking
  const g = state.game;
  if (!g.history().length) return;
  g.undo();
  if (state.mode === 'play' && g.turn() !== $('user-color').value && g.history().length) g.undo();
  g.removeHeader('Result');
  board.setPosition(g.fen());
  afterChange();
}

function load(game, startFen) {
  if (state.search && state.search.kind === 'play') return false;
  state.game = game;
  state.startFen = startFen;
  board.setPosition(game.fen());
  afterChange();
  return true;
}

function loadFen(fen) {
  let g;
  try {
    g = new Chess(fen.trim());
  } catch (e) {
    $('result').textContent = 'Not a valid FEN: ' + e.message;
    return false;
  }
  return load(g, g.fen());
}

function loadPgn(text) {
  const g = new Chess();
  try {
    g.loadPgn(text);
  } catch (e) {
    $('result').textContent = 'Not a valid PGN: ' + e.message;
    return false;
  }
  const start = g.header().FEN || new Chess().fen();
  return load(g, start);
}

// ---- networks ----

function loadNetBytes(name, bytes) {
  if (!state.ready || state.netLoad) {
    $('net-error').textContent = 'The engine is busy; try again when it is ready.';
    return;
  }
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  const file = '/nets/' + safe;
  state.userNets.set(file, bytes.slice(0));
  state.netLoad = { file, name, size: bytes.byteLength, previous: state.weights, error: null };
  $('net-error').textContent = '';
  $('net-info').textContent = 'loading ' + name + '…';
  engine.send({ type: 'file', name: safe, data: bytes }, [bytes]);
  engine.send('setoption name WeightsFile value ' + file);
  engine.send('isready');
}

$('net-file').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  if (f) loadNetBytes(f.name, await f.arrayBuffer());
});

$('net-url-load').addEventListener('click', async () => {
  const url = $('net-url').value.trim();
  if (!url) return;
  try {
    const r = await fetch(url);
    if (!r.ok) throw new Error('HTTP ' + r.status);
    loadNetBytes(decodeURIComponent(url.split('/').pop() || 'net.pb.gz'), await r.arrayBuffer());
  } catch (e) {
    $('net-error').textContent = 'Could not fetch ' + url + ': ' + e.message;
  }
});

// ---- controls ----

document.querySelectorAll('input[name=mode]').forEach((r) => r.addEventListener('change', () => {
  state.mode = document.querySelector('input[name=mode]:checked').value;
  board.removeArrows();
  afterChange();
}));
$('new-game').addEventListener('click', () => load(new Chess(), new Chess().fen()));
$('user-color').addEventListener('change', () => {
  board.setOrientation($('user-color').value === 'w' ? COLOR.white : COLOR.black);
  afterChange();
});
$('undo').addEventListener('click', undo);
$('flip').addEventListener('click', () => board.setOrientation(
  board.getOrientation() === COLOR.white ? COLOR.black : COLOR.white));
$('load-fen').addEventListener('click', () => loadFen($('fen').value));
$('load-pgn').addEventListener('click', () => loadPgn($('pgn').value));
for (const id of ['multipv', 'analysis-time'])
  $(id).addEventListener('change', () => state.mode === 'analyse' && afterChange());

// For the browser tests and the console: the state and the actions a user
// takes through the controls.
window.cformer = { state, board, engine, playUci, loadFen, loadPgn, undo };
