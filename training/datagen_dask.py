"""datagen.py's Dask path: the same games, played and labelled on a Dask
cluster (Debian: python3-distributed) instead of forked local processes.

    training/datagen.py --out DIR --games 10000 --workers 8 --scheduler tcp://HOST:8786
    training/datagen.py --out DIR --games 100 --workers 2 --dask-local 2

The games are numbered as datagen's: worker slot i of --workers plays games
i*10^7 + g, each seeded by (seed, i, g) and started from empty Stockfish hash
tables (ucinewgame), so a game is the same on any machine and whatever the
chunking (the forked path keeps the tables from game to game, so its games
differ). They are cut into chunks of --chunk-games games of one slot; a Dask task plays a
chunk with its own Stockfish processes and returns its lines, which the
driver writes to DIR/shard-<slot>-<first game>.tsv through a temporary file
and a rename. A worker killed mid-chunk leaves nothing (Dask plays the chunk
again elsewhere), no chunk is written twice, and a rerun skips the chunks
already written (resume). Positions are deduplicated within a chunk (the
forked path deduplicates within a slot's whole shard). Every worker machine
needs Stockfish at /usr/games/stockfish (and cformer for
--agent-child-rate); this file and the two it imports are shipped to the
workers by the driver.
"""

import io
import os
import random
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))


def _play_chunk(args, index, g0, g1):
    """The task: games g0..g1-1 of slot index, as datagen's shard lines."""
    import datagen
    out = io.StringIO()
    player = datagen.Engine(datagen.STOCKFISH, {"Threads": 1, "Hash": 16})
    labeller = datagen.Engine(datagen.STOCKFISH, {"Threads": 1, "Hash": 32,
                                                  "MultiPV": args.multipv, "UCI_ShowWDL": "true"})
    agent = None
    if args.agent_child_rate > 0:
        agent = datagen.Engine(args.cformer, datagen.cformer_cli.engine_options(args))
    seen, written = set(), 0
    try:
        for g in range(g0, g1):
            # each game from empty hash tables, so a game does not depend on
            # which games the same processes played before (the chunking)
            for engine in (player, labeller):
                engine.send("ucinewgame")
                engine.send("isready")
                engine.wait_for("readyok")
            rng = random.Random(f"{args.seed}/{index}/{g}")
            child_rng = random.Random(f"{args.seed}/{index}/{g}/children")
            written += datagen.play_game(rng, child_rng, player, labeller, agent, args, seen, out,
                                         index * 10_000_000 + g)
    finally:
        player.close()
        labeller.close()
        if agent is not None:
            agent.close()
    return out.getvalue(), written


def _write_atomic(path, text):
    tmp = "%s.tmp-%d-%s" % (path, os.getpid(), uuid.uuid4().hex[:8])
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def chunks(args):
    """(slot, first game, end) of every chunk, slot by slot."""
    for index in range(args.workers):
        for g0 in range(0, args.games_per_worker, args.chunk_games):
            yield index, g0, min(g0 + args.chunk_games, args.games_per_worker)


def chunk_path(args, index, g0):
    return os.path.join(args.out, f"shard-{index}-{g0:07d}.tsv")


def run(args, client):
    """Plays every chunk not written yet on client's cluster. Returns the
    positions written."""
    from distributed import as_completed
    for name in ("cformer_cli.py", "datagen.py", "datagen_dask.py"):
        client.upload_file(os.path.join(HERE, name))
    todo = [c for c in chunks(args) if not os.path.exists(chunk_path(args, c[0], c[1]))]
    futures = {client.submit(_play_chunk, args, i, g0, g1, pure=False): (i, g0) for i, g0, g1 in todo}
    t0, written, done = time.monotonic(), 0, 0
    for f in as_completed(futures):
        text, n = f.result()  # a task's error stops the run here
        i, g0 = futures[f]
        _write_atomic(chunk_path(args, i, g0), text)
        written += n
        done += 1
        elapsed = time.monotonic() - t0
        left = elapsed / done * (len(todo) - done)
        print(f"dask: chunk {done}/{len(todo)}, {written} positions, "
              f"{written / elapsed * 3600:.0f} positions/hour, ETA {left / 60:.0f}m", flush=True)
    return written


def main(args):
    """datagen.py's entry when --scheduler or --dask-local is given."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        sys.exit(f"datagen: Dask is not installed (Debian: python3-distributed): {e}")
    cluster = None
    try:
        if args.scheduler:
            try:
                client = Client(args.scheduler, timeout=5)
            except (OSError, TimeoutError) as e:
                sys.exit(f"datagen: cannot reach the Dask scheduler at {args.scheduler}: {e}")
        else:
            cluster = LocalCluster(n_workers=args.dask_local, threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
        with client:
            run(args, client)
    finally:
        if cluster is not None:
            cluster.close()
