#!/usr/bin/env bash
# The MPI build (RENTSIM_MPI): one sweep run by one plain process and by `mpirun -n 3` must
# write the same JSON, CSV, Markdown and table, byte for byte. A sweep with an invalid point and
# a broken input file give the same output, message and exit status 2 under mpirun as alone
# (the message printed once); --resume and --shard are refused under several ranks.
#   mpi_sweep_test.sh RENTSIM MPIEXEC SOURCE_DIR WORKDIR
set -u
rentsim=$1 mpiexec=$2 source=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Three ranks on one machine, whatever its cores; as root in CI containers too.
mpi() { "$mpiexec" --allow-run-as-root --oversubscribe -n 3 "$rentsim" "$@"; }
# mpirun adds its own lines about ranks that exit non-zero: only rentsim's are compared.
own_lines() { grep '^rentsim: ' "$1" || true; }

sweep=$source/tests/bench/sweep-1000.json
start=$(now_ms)
"$rentsim" sweep "$sweep" -j 1 -q --out ref.json --csv ref.csv --markdown ref.md >ref.txt 2>ref.err ||
  { echo "FAIL: the single-process run"; cat ref.err; exit 1; }
echo "one process, -j 1: $(($(wc -l <ref.csv) - 1)) points in $(($(now_ms) - start)) ms"
start=$(now_ms)
mpi sweep "$sweep" -j 1 -q --out mpi.json --csv mpi.csv --markdown mpi.md >mpi.txt 2>mpi.err || fail "the 3-rank run"
echo "mpirun -n 3, -j 1 each: $(($(now_ms) - start)) ms"
for ext in json csv md txt err; do cmp -s "ref.$ext" "mpi.$ext" || fail "mpi.$ext differs from the single process's"; done

# An invalid point (the middle one of three: shard 2 of 3, rank 1) is a row with its reason, and exit 2.
bad_point=$source/tests/cli/broken/sweep-bad-tp.json
"$rentsim" run "$bad_point" --out point-ref.json >point-ref.txt 2>point-ref.err
ref_rc=$?
mpi run "$bad_point" --out point-mpi.json >point-mpi.txt 2>point-mpi.err
rc=$?
[ "$ref_rc" = 2 ] && [ "$rc" = 2 ] || fail "invalid point: exit $rc under mpirun, $ref_rc alone, expected 2"
cmp -s point-ref.json point-mpi.json || fail "invalid point: the JSON differs"
cmp -s point-ref.txt point-mpi.txt || fail "invalid point: the table differs"
[ "$(own_lines point-mpi.err)" = "$(own_lines point-ref.err)" ] || fail "invalid point: the messages differ"

# A broken input file: nothing written, its message once, exit 2.
broken=$source/tests/cli/broken/sweep-unknown-key.json
"$rentsim" sweep "$broken" --out broken-ref.json >broken-ref.txt 2>broken-ref.err
ref_rc=$?
mpi sweep "$broken" --out broken-mpi.json >broken-mpi.txt 2>broken-mpi.err
rc=$?
[ "$ref_rc" = 2 ] && [ "$rc" = 2 ] || fail "broken input: exit $rc under mpirun, $ref_rc alone, expected 2"
[ ! -e broken-mpi.json ] || fail "broken input: an output was written"
[ -s broken-mpi.txt ] && fail "broken input: something on standard output"
[ "$(own_lines broken-mpi.err | wc -l)" = 1 ] || fail "broken input: expected one message, got: $(cat broken-mpi.err)"
[ "$(own_lines broken-mpi.err)" = "$(own_lines broken-ref.err)" ] || fail "broken input: the message differs"

# Options that need one process.
for option in "--resume" "--shard 1/2"; do
  # shellcheck disable=SC2086
  mpi sweep "$sweep" -q --out refused.json $option >/dev/null 2>refused.err
  rc=$?
  [ "$rc" = 2 ] || fail "$option: exit $rc under mpirun, expected 2"
  expected="rentsim: ${option%% *}: cannot be used under mpirun with several ranks"
  case "$(own_lines refused.err)" in "$expected"*) ;; *) fail "$option: got '$(cat refused.err)'" ;; esac
  [ "$(own_lines refused.err | wc -l)" = 1 ] || fail "$option: expected one message"
done

[ "$failures" = 0 ] && echo "the MPI runs match the single process" && rm -rf "$work"
exit $((failures > 0))
