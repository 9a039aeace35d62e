// ort_run.js: runs an exported model in onnxruntime-node (CPU), for the
// runtime test and scripts/bench_vs_ort.py.
//
//   node ort_run.js eval MODEL PLANES N
//     PLANES: N x 112 x 64 little-endian float32 (the /input/planes tensor).
//     Prints one JSON object {output name: [N*width numbers]}.
//   node ort_run.js bench MODEL PLANES N --batch B --threads T --seconds S
//     Slot s of the batch holds position s % N (as `cformer bench` fills
//     its batches); one untimed warm-up call, then calls timed one by one
//     until S seconds and at least 3 calls; prints {"evals_per_s" (B / the
//     median call), "calls", "median_s"} as one JSON line.
//
// Exit status 77 with a reason when onnxruntime-node is not installed (the
// tests skip then), 1 on any other failure.
'use strict';

const fs = require('fs');

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error('onnxruntime-node is not installed (scripts/install-deps.sh installs it): ' +
                e.message.split('\n')[0]);
  process.exit(77);
}

function readPlanes(path, n) {
  const buf = fs.readFileSync(path);
  if (buf.length !== n * 112 * 64 * 4) throw new Error(`${path}: ${buf.length} bytes, expected ${n} x 112 x 64 floats`);
  return new Float32Array(buf.buffer, buf.byteOffset, n * 112 * 64);
}

function flag(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
}

async function main() {
  const [mode, model, planesPath, nText, ...rest] = process.argv.slice(2);
  const n = Number(nText);
  const planes = readPlanes(planesPath, n);
  const threads = flag(rest, '--threads', 1);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  if (mode === 'eval') {
    const input = new ort.Tensor('float32', planes, [n, 112, 8, 8]);
    const out = await session.run({'/input/planes': input});
    const json = {};
    for (const name of session.outputNames) json[name] = Array.from(out[name].data);
    process.stdout.write(JSON.stringify(json) + '\n');
    return;
  }
  if (mode !== 'bench') throw new Error(`unknown mode ${mode}`);
  const batch = flag(rest, '--batch', 1);
  const seconds = flag(rest, '--seconds', 2);
  const per = 112 * 64;
  const data = new Float32Array(batch * per);
  for (let i = 0; i < batch; i++) data.set(planes.subarray((i % n) * per, (i % n + 1) * per), i * per);
  const feeds = {'/input/planes': new ort.Tensor('float32', data, [batch, 112, 8, 8])};
  await session.run(feeds);
  const times = [];
  const t0 = process.hrtime.bigint();
  for (;;) {
    const c0 = process.hrtime.bigint();
    await session.run(feeds);
    const c1 = process.hrtime.bigint();
    times.push(Number(c1 - c0) / 1e9);
    if (times.length >= 3 && Number(c1 - t0) / 1e9 >= seconds) break;
  }
  times.sort((a, b) => a - b);
  const m = times.length >> 1;
  const median = times.length % 2 ? times[m] : (times[m - 1] + times[m]) / 2;
  process.stdout.write(JSON.stringify({evals_per_s: batch / median, calls: times.length, median_s: median}) + '\n');
}

main().catch((e) => {
  console.error(`ort_run: ${e.message}`);
  process.exit(1);
});
