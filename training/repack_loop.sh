#!/bin/sh
# repack_loop.sh: re-packs the growing datagen shards every INTERVAL seconds,
# so a running train.py picks up new positions at its next checkpoint
# (pack-data renames complete files into place; the trainer reloads them).
#
#   nohup nice -n 10 training/repack_loop.sh CFORMER_BINARY SHARD_DIR PACK_DIR [INTERVAL] &
set -u
cformer=$1 shards=$2 out=$3 interval=${4:-1800}
while :; do
  date -u +"repack at %H:%M:%S UTC"
  "$cformer" pack-data --out "$out" --progress-every 0 "$shards"/shard-*.tsv || echo "repack failed"
  sleep "$interval"
done
