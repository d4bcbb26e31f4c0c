#!/usr/bin/env bash
# One sweep run five ways must write the same bytes: with 1 thread, with 2, as 4 shards joined
# by `rentsim merge` (shards given out of order), and interrupted by SIGINT then finished with
# --resume. Compares the JSON, CSV, Markdown and the printed table; prints each run's wall time.
#   sweep_identity_test.sh RENTSIM SCENARIO WORKDIR
set -u
rentsim=$1 scenario=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
same() {  # same PREFIX: PREFIX.{json,csv,md,txt} equal ref's
  for ext in json csv md txt; do cmp -s "ref.$ext" "$1.$ext" || fail "$1.$ext differs from the 1-thread run's"; done
}

start=$(now_ms)
"$rentsim" sweep "$scenario" -j 1 --out ref.json --csv ref.csv --markdown ref.md >ref.txt 2>/dev/null ||
  { echo "FAIL: the 1-thread run"; exit 1; }
duration=$(($(now_ms) - start))
points=$(($(wc -l <ref.csv) - 1))
echo "-j 1: $points points in $duration ms"

start=$(now_ms)
"$rentsim" sweep "$scenario" -j 2 --out j2.json --csv j2.csv --markdown j2.md >j2.txt 2>/dev/null || fail "the 2-thread run"
echo "-j 2: $(($(now_ms) - start)) ms"
same j2

start=$(now_ms)
for i in 1 2 3 4; do
  "$rentsim" sweep "$scenario" -j 1 --shard "$i/4" --out "shard$i.json" >/dev/null 2>&1 || fail "shard $i/4"
done
"$rentsim" merge shard3.json shard1.json shard4.json shard2.json --out merged.json --csv merged.csv --markdown merged.md \
  >merged.txt 2>/dev/null || fail "merge"
echo "4 shards and merge: $(($(now_ms) - start)) ms"
same merged

# The run is stopped a third of the 1-thread run's time in. On a loaded machine it may finish
# before that (tried again with half the delay); on a fast one the signal may come before its
# first point finished, when there is no journal yet (tried again with 1.5 times the delay).
delay=$((duration / 3))
for attempt in 1 2 3 4 5 6; do
  rm -f resumed.json resumed.csv resumed.md resumed.json.journal
  "$rentsim" sweep "$scenario" -j 2 --out resumed.json --csv resumed.csv --markdown resumed.md >/dev/null 2>resumed.err &
  pid=$!
  sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
  kill -s INT "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  if [ "$rc" = 0 ]; then
    delay=$((delay / 2))
  elif [ "$rc" = 130 ] && [ ! -e resumed.json.journal ]; then
    delay=$((delay * 3 / 2))
  else
    break
  fi
done
[ "$rc" = 130 ] || fail "SIGINT after $delay ms: exit status $rc, expected 130"
[ -e resumed.json.journal ] || fail "SIGINT after $delay ms left no journal"
"$rentsim" sweep "$scenario" -j 2 --out resumed.json --csv resumed.csv --markdown resumed.md --resume >resumed.txt \
  2>/dev/null || fail "--resume"
echo "interrupted after $delay ms (exit $rc) and resumed"
same resumed

[ "$failures" = 0 ] && echo "all five runs identical" && rm -rf "$work"
exit $((failures > 0))
