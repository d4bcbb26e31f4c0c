#!/usr/bin/env bash
# Fuzzes each target for SECONDS: tests/fuzz/run.sh SECONDS [TARGET...] (default: every target).
# Programs come from the fuzz build, $RENTSIM_FUZZ_BUILD (default build/fuzz, made by
# `cmake --preset fuzz`). Under that folder, fuzz/corpus/<target>/ holds the corpus the runs
# grow (kept between runs), fuzz/findings/<target>/ the inputs of crashes, hangs, leaks and
# out-of-memory runs, fuzz/logs/<target>.log libFuzzer's output. Seeds: corpus/<target>/ and
# the shipped files listed in seeds.txt. A run stops at its first finding, unless
# RENTSIM_FUZZ_KEEP_GOING=1: then it fuzzes on for the whole time, collecting every finding
# (libFuzzer's fork mode). Exit status: 0 when no target found anything, 1 when one did, 2 on
# bad usage or a missing program.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${RENTSIM_FUZZ_BUILD:-$root/build/fuzz}"
all=(fuzz_scenario fuzz_catalog fuzz_spot_trace fuzz_measurements fuzz_calibration fuzz_size fuzz_kineto fuzz_chakra fuzz_jobs fuzz_results fuzz_result_file fuzz_pools)

if [[ $# -lt 1 || ! "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [TARGET...]; targets: ${all[*]}" >&2
  exit 2
fi
seconds="$1"
shift
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all[@]}")

# Longest input per target: a little above the largest seed that matters (longer seeds are
# truncated by libFuzzer).
max_len() {
  case "$1" in
    fuzz_size) echo 64 ;;
    fuzz_spot_trace) echo 2048 ;;
    fuzz_results) echo 16384 ;;
    *) echo 4096 ;;
  esac
}
dict() {
  case "$1" in
    fuzz_scenario | fuzz_calibration | fuzz_kineto | fuzz_result_file | fuzz_pools) echo "-dict=$here/json.dict" ;;
  esac
}

keep_going=()
[[ "${RENTSIM_FUZZ_KEEP_GOING:-0}" == 1 ]] && keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
status=0
for t in "${targets[@]}"; do
  prog="$build/tests/fuzz/$t"
  if [[ ! -x "$prog" ]]; then
    echo "$t: no program $prog; build it with: cmake --preset fuzz && cmake --build --preset fuzz" >&2
    exit 2
  fi
  corpus="$build/fuzz/corpus/$t" seeds="$build/fuzz/seeds/$t" findings="$build/fuzz/findings/$t"
  log="$build/fuzz/logs/$t.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  rm -rf "$seeds" && mkdir -p "$seeds"
  while read -r target glob; do
    [[ "$target" == "$t" ]] || continue
    for f in $root/$glob; do [[ -f "$f" ]] && cp "$f" "$seeds/"; done
  done < <(grep '^fuzz_' "$here/seeds.txt")
  before=$(find "$findings" -type f | wc -l)
  # shellcheck disable=SC2046
  "$prog" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$findings/" $(dict "$t") "${keep_going[@]}" \
    "$corpus" "$seeds" "$here/corpus/$t" > "$log" 2>&1
  rc=$?
  after=$(find "$findings" -type f | wc -l)
  summary=$(grep -E '^#[0-9]+(\s+DONE|: cov:)' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [[ $rc -ne 0 || $after -gt $before ]]; then
    echo "$t: FOUND SOMETHING (exit $rc); inputs in $findings, log $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|terminate called|  what\(\)|ALARM|artifact_prefix|Test unit written)' "$log" | head -20
    status=1
  else
    echo "$t: nothing found in ${seconds} s, ${execs:-?} runs; ${summary:-no summary}"
  fi
done
exit $status
