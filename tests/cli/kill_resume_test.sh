#!/usr/bin/env bash
# Interrupts a sweep with SIGINT, SIGTERM and SIGKILL at random moments (fractions of an
# uninterrupted run's time drawn from a fixed seed: the same every time) and checks that only
# whole files remain, that SIGINT and SIGTERM leave no temporary and exit with 130 and 143, and
# that --resume gives files and a table byte-identical to an uninterrupted run's, removing what
# a SIGKILL left behind (the journal, and a temporary planted as a kill mid-write leaves it).
#   kill_resume_test.sh RENTSIM SCENARIO WORKDIR [REPLICATIONS]
# REPLICATIONS (default 300) sets how long a run takes: fewer in slow (sanitizer) builds.
set -u
rentsim=$1 scenario=$2 work=$3 replications=${4:-300}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
args=(run "$scenario" -j 2 --replications "$replications")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

start=$(now_ms)
"$rentsim" "${args[@]}" --out ref.json --csv ref.csv >ref.txt || { echo "FAIL: the uninterrupted run"; exit 1; }
duration=$(($(now_ms) - start))
points=$(($(wc -l <ref.csv) - 1))
echo "uninterrupted run: $points points in $duration ms"

parses() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
temporaries() { ls o.json.tmp.* o.csv.tmp.* 2>/dev/null; }

RANDOM=2718
round=0
refusal_checked=0
for repeat in 1 2 3; do
  for sig in INT TERM KILL; do
    round=$((round + 1))
    rm -f o.*
    # A fixed fraction of the uninterrupted run's time, after the first 100 ms.
    delay=$((100 + (duration - 100) * (RANDOM % 1000) / 1000))
    "$rentsim" "${args[@]}" --out o.json --csv o.csv >o.txt 2>o.err &
    pid=$!
    sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    case $sig in INT) want=130 ;; TERM) want=143 ;; KILL) want=137 ;; esac
    what="round $round (SIG$sig after $delay ms, exit $rc)"
    [ "$rc" = "$want" ] || [ "$rc" = 0 ] || fail "$what: exit status $rc, expected $want (or 0 when it had finished)"
    # Only whole files: an output present is complete, and a CSV never stands without its JSON.
    [ ! -e o.json ] || parses o.json || fail "$what: o.json is not JSON"
    [ ! -e o.csv ] || [ "$(($(wc -l <o.csv) - 1))" = "$points" ] || fail "$what: o.csv is not whole"
    [ ! -e o.csv ] || [ -e o.json ] || fail "$what: o.csv without o.json"
    if [ "$sig" != KILL ]; then
      [ -z "$(temporaries)" ] || fail "$what: temporaries left: $(temporaries)"
      if [ "$rc" = "$want" ] && [ -e o.json.journal ] && ! grep -q "points finished" o.err; then
        fail "$what: no line saying how many points finished: $(cat o.err)"
      fi
    else
      # What a SIGKILL mid-write leaves: the dead process's temporaries. A live one's stay.
      echo partial >"o.json.tmp.$pid"
      echo partial >"o.csv.tmp.$$"
    fi
    if [ -e o.json.journal ] && [ "$refusal_checked" = 0 ]; then
      refusal_checked=1
      "$rentsim" "${args[@]}" --out o.json --csv o.csv >/dev/null 2>o.err2
      rc2=$?
      [ "$rc2" = 2 ] && grep -q -- "--resume" o.err2 || fail "$what: a run without --resume beside a journal exited $rc2"
    fi
    "$rentsim" "${args[@]}" --out o.json --csv o.csv --resume >o.txt 2>o.err
    rc=$?
    [ "$rc" = 0 ] || fail "$what: --resume exited $rc: $(cat o.err)"
    cmp -s o.json ref.json || fail "$what: resumed o.json differs from the uninterrupted run's"
    cmp -s o.csv ref.csv || fail "$what: resumed o.csv differs"
    cmp -s o.txt ref.txt || fail "$what: resumed table differs"
    [ ! -e o.json.journal ] || fail "$what: the journal stayed after --resume"
    if [ "$sig" = KILL ]; then
      [ ! -e "o.json.tmp.$pid" ] || fail "$what: the dead process's temporary stayed"
      [ -e "o.csv.tmp.$$" ] || fail "$what: a live process's temporary was removed"
      rm -f "o.csv.tmp.$$"
    fi
    [ -z "$(temporaries)" ] || fail "$what: temporaries left after --resume: $(temporaries)"
    echo "$what: resumed, identical"
  done
done
[ "$refusal_checked" = 1 ] || fail "no round left a journal to refuse a run without --resume"
echo "total $(($(now_ms) - start)) ms, $failures failure(s)"
[ "$failures" = 0 ]
