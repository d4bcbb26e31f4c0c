#!/usr/bin/env python3
"""Checks measure_gpu.py without torch or a GPU.

The timing backend is replaced by a fake one, so this exercises the shape
lists, the FLOP/byte formulas, the time budget and the CSV writing.
Prints "N passed, M failed" last; exits non-zero on any failure.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_gpu as mg  # noqa: E402

PASSED = 0
FAILED = 0


def check(cond: bool, what: str) -> None:
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL: {what}")


EXPECTED_HEADER = ("gpu,kind,name,precision,m,n,k,batch,seq_len,bytes,flops,time_s,"
                   "samples_per_s,device,torch,cuda,driver,date")
NUMERIC = ["m", "n", "k", "batch", "seq_len", "bytes", "flops", "time_s", "samples_per_s"]
PLAIN = re.compile(r"^-?\d+(\.\d+)?$")


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class FakeBackend:
    """Returns a deterministic time per task; advances the fake clock."""

    def __init__(self, clock: FakeClock | None = None, step_s: float = 0.01,
                 skip=None, fatal_at=None, interrupt_at=None) -> None:
        self.clock = clock
        self.step_s = step_s
        self.skip = skip or (lambda task: False)
        self.fatal_at = fatal_at
        self.interrupt_at = interrupt_at
        self.calls = 0

    def env(self):
        return {"device": "Fake GPU 80GB", "torch": "2.11.0+cu130", "cuda": "13.0",
                "driver": "580.65.06", "date": "2025-01-02"}

    def measure(self, task):
        self.calls += 1
        if self.clock is not None:
            self.clock.t += self.step_s
        if self.interrupt_at is not None and self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        if self.fatal_at is not None and self.calls >= self.fatal_at:
            raise mg.FatalDeviceError("CUDA error: an illegal memory access was encountered")
        if self.skip(task):
            raise mg.SkipMeasurement("not supported by the fake")
        if task.kind == "trace":
            return None
        if task.kind == "step":
            t = 0.25
            return mg.Result(t, task.batch / t)
        if task.kind == "launch":
            return mg.Result(2.5e-6)
        t = (task.flops or 0) / 500e12 + (task.bytes or 0) / 3e12 + 4e-6
        return mg.Result(t)


def run_main(argv, backend, clock=None):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = mg.main(argv, backend=backend, clock=clock or FakeClock())
    return rc, err.getvalue()


def read_csv(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    rows = list(csv.reader(lines))
    return lines, rows


def find(rows, header, **want):
    idx = {c: i for i, c in enumerate(header)}
    out = []
    for r in rows:
        if all(r[idx[k]] == str(v) for k, v in want.items()):
            out.append(dict(zip(header, r)))
    return out


def test_header():
    check(",".join(mg.COLUMNS) == EXPECTED_HEADER, "column list matches the documented header")
    check(len(set(mg.COLUMNS)) == len(mg.COLUMNS), "column names are unique")


def test_formulas():
    check(mg.gemm_flops(4096, 4096, 4096) == 137438953472, "square gemm flops 2*4096^3")
    check(mg.gemm_flops(2048, 3072, 1024) == 12884901888, "qkv gemm flops")
    check(mg.gemm_flops(512, 512, 64, 64) == 2147483648, "batched gemm flops include batch")
    check(mg.gemm_bytes(4, 8, 2, 1, "bf16") == (4 * 2 + 2 * 8 + 4 * 8) * 2, "gemm bytes bf16")
    check(mg.gemm_bytes(4, 8, 2, 1, "fp8") == (4 * 2 + 2 * 8) * 1 + 4 * 8 * 2,
          "gemm bytes fp8 (bf16 output)")
    check(mg.attention_flops(8, 16, 2048, 128, False, False) == 274877906944,
          "attention fwd flops 4*b*h*s^2*d")
    check(mg.attention_flops(8, 16, 2048, 128, True, False) == 137438953472,
          "causal attention fwd flops halved")
    check(mg.attention_flops(8, 16, 2048, 128, False, True) == 962072674304,
          "attention fwd+bwd flops x3.5")
    check(mg.attention_flops(8, 16, 2048, 128, True, True) == 481036337152,
          "causal attention fwd+bwd flops")
    check(mg.attention_bytes(1, 1, 4, 2, "fp16", False) == 4 * 8 * 2, "attention fwd bytes")
    check(mg.elementwise_bytes("layer_norm", 256, 4096, "bf16") == 4210688, "layer norm bytes")
    check(mg.elementwise_bytes("add", 10, 10, "fp32") == 1200, "add bytes read 2 write 1")
    check(mg.elementwise_bytes("gelu", 10, 10, "fp16") == 400, "gelu bytes read 1 write 1")
    check(mg.elementwise_flops("layer_norm", 10, 10) == 800, "layer norm nominal flops")
    check(mg.transformer_train_flops(1, 4, 1, 2, 8, 10, False, False) == 2016,
          "transformer step flops by hand")
    check(mg.transformer_train_flops(1, 4, 1, 2, 8, 10, True, False) == 3 * (4 * 136 + 64),
          "causal transformer step flops by hand")


def test_format():
    check(mg.format_number(None) == "", "None -> empty")
    check(mg.format_number(12) == "12", "int")
    check(mg.format_number(1.5e13) == "15000000000000", "large float without exponent")
    check(mg.format_number(2.5e-6) == "0.0000025", "small float without exponent")
    check(mg.format_number(0.000123456789) == "0.000123457", "six significant digits")
    check(mg.format_number(0.0) == "0", "zero")
    check(mg.format_number("NVIDIA H200") == "NVIDIA H200", "string passes through")


def test_plan():
    full = mg.build_plan()
    quick = mg.build_plan(quick=True)

    def count(tasks, section):
        return sum(1 for t in tasks if t.section == section)

    check({t.kind for t in full} == set(mg.KINDS), "full plan covers every kind")
    check({t.kind for t in quick} == set(mg.KINDS), "quick plan covers every kind")
    check(len(quick) < len(full) // 5, "quick plan is much smaller than the full one")
    for sec in mg.SECTIONS:
        if sec in ("trace", "launch"):
            continue
        check(count(quick, sec) < count(full, sec), f"quick selects fewer {sec} measurements")
    check(count(full, "gemm_square") == 10 * 5 - 1, "squares: 10 sizes x 5 precisions, no fp32 16384")
    check(not any(t.kind == "gemm" and t.precision == "fp32" and t.m == 16384 for t in full),
          "fp32 16384 gemm skipped")
    check(count(full, "gemm_transformer") == 4 * 3 * 5 * 4, "transformer gemm count")
    check({t.precision for t in full if t.section == "gemm_transformer"}
          == {"tf32", "fp16", "bf16", "fp8"}, "transformer gemm precisions")
    check(count(full, "gemm_awkward") == 8 * 5, "awkward gemm count")
    check(count(full, "gemm_batched") == 2 * 2 * 2 * 2, "batched gemm count")
    check({t.precision for t in full if t.section == "gemm_batched"} == {"fp16", "bf16"},
          "batched gemm precisions")
    check(count(full, "attention") == 2 * 2 * 2 * 3 * 2 * 2, "attention count")
    check(count(full, "copy") == 5, "copy sizes")
    check(sum(1 for t in full if t.kind == "step") == 9, "step configurations")
    check(not any(t.kind == "trace" for t in full), "no trace without --trace-dir")
    with_trace = mg.build_plan(trace=True)
    check([t.name for t in with_trace if t.kind == "trace"] == ["resnet50", "bert-large"],
          "trace tasks with --trace-dir")
    order = [mg.SECTIONS.index(t.section) for t in with_trace]
    check(order == sorted(order), "plan runs sections in the budget order")
    wgrad = [t for t in full if t.name == "wgrad" and t.params.get("hidden") == 1024
             and t.params.get("tokens") == 2048 and t.precision == "bf16"]
    check(len(wgrad) == 1 and (wgrad[0].m, wgrad[0].n, wgrad[0].k) == (1024, 4096, 2048),
          "weight-gradient shape (h, 4h, t)")
    ew = [t for t in full if t.kind == "elementwise"]
    check(max(t.m * t.n for t in ew) == 1 << 28, "elementwise up to 2^28 elements")
    only = mg.build_plan(only=["gemm", "copy"], trace=True)
    check({t.kind for t in only} == {"gemm", "copy"}, "--only filters kinds")
    check(all(t.precision in mg.PRECISIONS for t in full), "every precision is in the allowed set")


def test_full_csv(tmp):
    out = os.path.join(tmp, "full.csv")
    rc, err = run_main(["--gpu", "h100-sxm5-80gb", "--out", out, "--seconds-budget", "1e9"],
                       FakeBackend())
    check(rc == 0, "main returns 0")
    check(os.path.exists(out), "CSV written")
    check(not os.path.exists(out + ".partial"), ".partial removed after success")
    check(not os.path.exists(out + ".tmp"), "no temp file left")
    lines, rows = read_csv(out)
    check(lines[0] == EXPECTED_HEADER, "CSV header line")
    header, body = rows[0], rows[1:]
    check(len(body) == len(mg.build_plan()), "one row per planned measurement")
    check(all(len(r) == len(mg.COLUMNS) for r in body), "every row has all columns")
    idx = {c: i for i, c in enumerate(header)}
    check(all(r[idx["gpu"]] == "h100-sxm5-80gb" for r in body), "gpu column from --gpu")
    check(all(r[idx["kind"]] in mg.KINDS for r in body), "kind values")
    check(all(r[idx["precision"]] in mg.PRECISIONS for r in body), "precision values")
    check(all(r[idx["device"]] == "Fake GPU 80GB" and r[idx["cuda"]] == "13.0"
              and r[idx["driver"]] == "580.65.06" and r[idx["date"]] == "2025-01-02"
              for r in body), "environment columns")
    bad = [r for r in body for c in NUMERIC if r[idx[c]] and not PLAIN.match(r[idx[c]])]
    check(not bad, f"numbers are plain decimals ({bad[:1]})")
    check(all(r[idx["time_s"]] for r in body), "time_s always set")

    r = find(body, header, kind="gemm", name="square", precision="bf16", m=4096)
    check(len(r) == 1 and int(r[0]["flops"]) == 2 * 4096 ** 3 and r[0]["batch"] == "1",
          "gemm square 4096 row flops")
    r = find(body, header, kind="gemm", name="qkv", precision="fp16", m=2048, n=3072, k=1024)
    check(len(r) == 1 and int(r[0]["flops"]) == 2 * 2048 * 3072 * 1024, "qkv row flops")
    r = find(body, header, kind="gemm", name="bmm_pv", precision="bf16", batch=512, m=2048)
    check(len(r) == 1 and (r[0]["n"], r[0]["k"]) == ("64", "2048")
          and int(r[0]["flops"]) == 2 * 2048 * 64 * 2048 * 512, "bmm_pv row flops")
    r = find(body, header, kind="attention", name="sdpa_fwd_causal", precision="bf16",
             batch=8 * 32, seq_len=8192, k=64)
    check(len(r) == 1 and int(r[0]["flops"]) == 4 * 8 * 32 * 8192 * 8192 * 64 // 2,
          "causal attention row flops")
    r = find(body, header, kind="attention", name="sdpa_fwdbwd", precision="fp16",
             batch=8 * 16, seq_len=512, k=128)
    check(len(r) == 1 and int(r[0]["flops"]) == 4 * 8 * 16 * 512 * 512 * 128 * 35 // 10,
          "fwd+bwd attention row flops")
    r = find(body, header, kind="copy", name="d2d_copy")
    check(sorted(int(x["bytes"]) for x in r) == sorted(2 * s for s in mg.COPY_SIZES),
          "copy bytes = read + written")
    r = find(body, header, kind="elementwise", name="add", precision="fp32", m=(1 << 28) // 4096)
    check(len(r) == 1 and int(r[0]["bytes"]) == 3 * (1 << 28) * 4, "add row bytes")
    r = find(body, header, kind="launch")
    check(sorted(x["name"] for x in r) == ["launch_event", "launch_wall"], "two launch rows")
    r = find(body, header, kind="step", name="bert-large", precision="fp16", seq_len=512)
    check(len(r) == 1 and r[0]["batch"] == "16" and abs(float(r[0]["samples_per_s"]) - 64.0) < 1e-9,
          "step samples_per_s = batch / median time")
    r = find(body, header, kind="step", name="resnet50")
    check(sorted(x["precision"] for x in r) == ["bf16", "fp16", "fp32", "tf32"]
          and all(x["seq_len"] == "" for x in r), "resnet50 steps")
    r = find(body, header, kind="step", name="gpt-1.3b", precision="bf16", batch=4, seq_len=2048)
    check(len(r) == 1, "gpt-1.3b step")
    return len(body)


def test_quick_csv(tmp, full_rows):
    out = os.path.join(tmp, "quick.csv")
    rc, _ = run_main(["--quick", "--out", out], FakeBackend())
    lines, rows = read_csv(out)
    body = rows[1:]
    check(rc == 0 and 0 < len(body) < full_rows // 5, "--quick writes fewer rows")
    idx = {c: i for i, c in enumerate(rows[0])}
    check(all(r[idx["gpu"]] == "fake-gpu-80gb" for r in body), "default gpu name from device")


def test_only(tmp):
    out = os.path.join(tmp, "only.csv")
    rc, _ = run_main(["--only", "launch,attention", "--out", out], FakeBackend())
    _, rows = read_csv(out)
    kinds = {r[1] for r in rows[1:]}
    check(rc == 0 and kinds == {"launch", "attention"}, "--only writes only those kinds")
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            mg.parse_args(["--only", "gemm,bogus", "--out", out])
        check(False, "--only rejects unknown kinds")
    except SystemExit as e:
        check(e.code == 2, "--only rejects unknown kinds")


def test_budget(tmp):
    out = os.path.join(tmp, "budget.csv")
    clock = FakeClock()
    # each measurement takes 1 fake second; budget of 20 s
    rc, err = run_main(["--out", out, "--seconds-budget", "20"],
                       FakeBackend(clock=clock, step_s=1.0), clock=clock)
    _, rows = read_csv(out)
    body = rows[1:]
    check(rc == 0 and 19 <= len(body) <= 22, f"budget stops adding rows ({len(body)})")
    plan = mg.build_plan()
    got = [(r[1], r[2], r[3], r[4]) for r in body]
    want = [(t.kind, t.name, t.precision, "" if t.m is None else str(t.m)) for t in plan[:len(body)]]
    check(got == want, "budget keeps the plan order (launch, copy, gemm ...)")
    check("time budget" in err and "skipped" in err and "step" in err,
          "stderr says what the budget skipped")


def test_skips(tmp):
    out = os.path.join(tmp, "skip.csv")
    rc, err = run_main(["--out", out, "--only", "gemm"],
                       FakeBackend(skip=lambda t: t.precision == "fp8"))
    _, rows = read_csv(out)
    body = rows[1:]
    n_gemm = sum(1 for t in mg.build_plan(only=["gemm"]))
    n_fp8 = sum(1 for t in mg.build_plan(only=["gemm"]) if t.precision == "fp8")
    check(rc == 0 and len(body) == n_gemm - n_fp8 and not any(r[3] == "fp8" for r in body),
          "skipped measurements leave no row, others stay")
    check("skipped" in err, "skips are noted on stderr")

    out = os.path.join(tmp, "fatal.csv")
    rc, err = run_main(["--out", out], FakeBackend(fatal_at=6))
    _, rows = read_csv(out)
    check(len(rows) - 1 == 5 and "FATAL" in err, "a device error stops the run, keeps rows")


def test_interrupt(tmp):
    out = os.path.join(tmp, "killed.csv")
    rc, _ = run_main(["--out", out], FakeBackend(interrupt_at=8))
    check(rc == 130, "interrupted run returns 130")
    check(not os.path.exists(out), "interrupted run does not write the final CSV")
    lines, rows = read_csv(out + ".partial")
    check(lines[0] == EXPECTED_HEADER and len(rows) - 1 == 7,
          ".partial holds the rows written so far")


def main() -> int:
    tests = [test_header, test_formulas, test_format, test_plan]
    with tempfile.TemporaryDirectory() as tmp:
        for t in tests:
            run_test(t)
        full_rows = run_test(test_full_csv, tmp) or 0
        run_test(test_quick_csv, tmp, full_rows)
        for t in (test_only, test_budget, test_skips, test_interrupt):
            run_test(t, tmp)
    print(f"{PASSED} passed, {FAILED} failed")
    return 0 if FAILED == 0 else 1


def run_test(fn, *args):
    global FAILED
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001
        FAILED += 1
        print(f"FAIL: {fn.__name__} raised")
        traceback.print_exc()
        return None


if __name__ == "__main__":
    sys.exit(main())
