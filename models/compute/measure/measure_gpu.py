#!/usr/bin/env python3
"""Measure a GPU for the rentsim compute model.

Runs GEMMs, memory copies, elementwise kernels, attention, kernel launches and
full training steps on one CUDA GPU and writes one CSV row per measurement.
See README.md next to this file for the columns and the FLOP conventions.

Only PyTorch is required (torchvision is optional: without it the ResNet-50
steps are skipped). The planning and CSV code below does not import torch, so
it can be tested on a machine without a GPU (see selftest.py).

Example:
    python3 measure_gpu.py --gpu h100-sxm5-80gb --out h100.csv
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import gc
import gzip
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# --------------------------------------------------------------------------
# CSV layout
# --------------------------------------------------------------------------

COLUMNS = [
    "gpu", "kind", "name", "precision", "m", "n", "k", "batch", "seq_len",
    "bytes", "flops", "time_s", "samples_per_s", "device", "torch", "cuda",
    "driver", "date",
]
KINDS = ["gemm", "copy", "elementwise", "attention", "launch", "step"]
PRECISIONS = ["fp32", "tf32", "fp16", "bf16", "fp8"]
# Order in which sections run; the time budget cuts from the end of this list.
SECTIONS = [
    "launch", "copy", "gemm_square", "gemm_transformer", "gemm_awkward",
    "gemm_batched", "attention", "elementwise", "step", "trace",
]
SECTION_KIND = {
    "launch": "launch", "copy": "copy", "gemm_square": "gemm",
    "gemm_transformer": "gemm", "gemm_awkward": "gemm", "gemm_batched": "gemm",
    "attention": "attention", "elementwise": "elementwise", "step": "step",
    "trace": "trace",
}
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}

# Nominal FLOPs per element for the elementwise kernels (documented in README).
ELEMENTWISE_FLOPS_PER_ELEMENT = {"layer_norm": 8, "gelu": 8, "add": 1}
# ResNet-50 at 224x224: 4.09 G multiply-adds per image forward (torchvision);
# a training step counts 3x forward, 2 FLOPs per multiply-add.
RESNET50_TRAIN_FLOPS_PER_SAMPLE = 3 * 2 * 4_090_000_000

MIB = 1 << 20
GIB = 1 << 30


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# FLOP and byte formulas (pure functions, checked by selftest.py)
# --------------------------------------------------------------------------

def gemm_flops(m: int, n: int, k: int, batch: int = 1) -> int:
    return 2 * m * n * k * batch


def gemm_bytes(m: int, n: int, k: int, batch: int, precision: str) -> int:
    """Minimum traffic: read A and B once, write C once."""
    ein = ELEMENT_BYTES[precision]
    eout = 2 if precision == "fp8" else ein  # fp8 GEMMs write bf16
    return batch * ((m * k + k * n) * ein + m * n * eout)


def attention_flops(b: int, heads: int, s: int, d: int, causal: bool, backward: bool) -> int:
    """4*b*heads*s^2*d forward (QK^T and PV); half when causal; x3.5 fwd+bwd."""
    f = 4 * b * heads * s * s * d
    if causal:
        f //= 2
    if backward:
        f = f * 7 // 2
    return f


def attention_bytes(b: int, heads: int, s: int, d: int, precision: str, backward: bool) -> int:
    """Minimum traffic: fwd reads q,k,v and writes o; bwd adds reads of
    q,k,v,o,do and writes of dq,dk,dv."""
    t = b * heads * s * d * ELEMENT_BYTES[precision]
    return (4 + 8) * t if backward else 4 * t


def elementwise_bytes(op: str, t: int, h: int, precision: str) -> int:
    e = ELEMENT_BYTES[precision]
    if op == "layer_norm":
        return (2 * t * h + 2 * h) * e  # read x, weight, bias; write y
    if op == "gelu":
        return 2 * t * h * e  # read x; write y
    if op == "add":
        return 3 * t * h * e  # read x, y; write z
    raise ValueError(op)


def elementwise_flops(op: str, t: int, h: int) -> int:
    return ELEMENTWISE_FLOPS_PER_ELEMENT[op] * t * h


def transformer_train_flops(batch: int, seq: int, layers: int, hidden: int, ffn: int,
                            vocab: int, causal: bool, head_dense: bool) -> int:
    """3x the forward matmul FLOPs of a transformer training step.

    Forward per token: per layer QKV 6h^2, output projection 2h^2, MLP 4*h*ffn;
    logits 2*h*vocab (+2h^2 for a BERT-style MLM transform). Attention per
    sequence and layer: 4*s^2*h, halved when causal (same as the attention rows).
    """
    per_token = layers * (6 * hidden * hidden + 2 * hidden * hidden + 4 * hidden * ffn)
    per_token += 2 * hidden * vocab
    if head_dense:
        per_token += 2 * hidden * hidden
    attn = layers * 4 * seq * seq * hidden
    if causal:
        attn //= 2
    return 3 * batch * (seq * per_token + attn)


# --------------------------------------------------------------------------
# The plan: what to measure, in order
# --------------------------------------------------------------------------

@dataclass
class Task:
    section: str
    kind: str
    name: str
    precision: str
    m: Optional[int] = None
    n: Optional[int] = None
    k: Optional[int] = None
    batch: Optional[int] = None
    seq_len: Optional[int] = None
    bytes: Optional[int] = None
    flops: Optional[int] = None
    params: Dict = field(default_factory=dict)

    def label(self) -> str:
        dims = []
        for key in ("m", "n", "k", "batch", "seq_len"):
            v = getattr(self, key)
            if v is not None:
                dims.append(f"{key}={v}")
        extra = " ".join(f"{a}={b}" for a, b in sorted(self.params.items())
                         if a not in ("warmup", "timed"))
        return " ".join(x for x in (self.kind, self.name, self.precision, " ".join(dims), extra) if x)


SQUARES = [256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 16384]
AWKWARD = [1000, 1025, 1100, 1280, 1281, 2049, 4095, 4097]
HIDDENS = [1024, 4096, 8192, 12288]
TOKENS = [2048, 8192, 16384]
COPY_SIZES = [8 * MIB, 64 * MIB, 512 * MIB, 2 * GIB, 4 * GIB]
ELEMENTWISE_COUNTS = [1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28]
LAYER_NORM_HIDDENS = [1024, 4096, 8192]
ATTN_BATCH = 8


def transformer_shapes(h: int, t: int) -> List[Tuple[str, int, int, int]]:
    return [
        ("qkv", t, 3 * h, h),
        ("proj", t, h, h),
        ("mlp_up", t, 4 * h, h),
        ("mlp_down", t, h, 4 * h),
        ("wgrad", h, 4 * h, t),
    ]


def _gemm_task(section: str, name: str, prec: str, m: int, n: int, k: int, batch: int = 1) -> Task:
    return Task(section, "gemm", name, prec, m=m, n=n, k=k, batch=batch,
                bytes=gemm_bytes(m, n, k, batch, prec), flops=gemm_flops(m, n, k, batch))


def build_plan(quick: bool = False, only: Optional[Sequence[str]] = None,
               trace: bool = False) -> List[Task]:
    """All measurements, in run order. Does not touch torch."""
    tasks: List[Task] = []

    # launch ------------------------------------------------------------
    calls = 10000
    tasks.append(Task("launch", "launch", "launch_wall", "fp32", params={"calls": calls}))
    tasks.append(Task("launch", "launch", "launch_event", "fp32", params={"calls": calls}))

    # copy --------------------------------------------------------------
    for size in ([64 * MIB, 2 * GIB] if quick else COPY_SIZES):
        tasks.append(Task("copy", "copy", "d2d_copy", "fp32", bytes=2 * size,
                          params={"size": size}))

    # gemm squares ------------------------------------------------------
    squares = [1024, 4096, 8192] if quick else SQUARES
    for prec in PRECISIONS:
        for s in squares:
            if prec == "fp32" and s >= 16384:
                continue
            tasks.append(_gemm_task("gemm_square", "square", prec, s, s, s))

    # gemm transformer-like ----------------------------------------------
    hs, ts = ([4096], [8192]) if quick else (HIDDENS, TOKENS)
    tprecs = ["bf16", "fp8"] if quick else ["tf32", "fp16", "bf16", "fp8"]
    for prec in tprecs:
        for h in hs:
            for t in ts:
                for name, m, n, k in transformer_shapes(h, t):
                    task = _gemm_task("gemm_transformer", name, prec, m, n, k)
                    task.params = {"hidden": h, "tokens": t}
                    tasks.append(task)

    # gemm awkward sizes --------------------------------------------------
    awkward = [1025, 4097] if quick else AWKWARD
    for prec in (["bf16"] if quick else PRECISIONS):
        for s in awkward:
            tasks.append(_gemm_task("gemm_awkward", "awkward", prec, s, s, s))

    # gemm batched per-head attention ------------------------------------
    batches, seqs = ([64], [2048]) if quick else ([64, 512], [512, 2048])
    for prec in (["bf16"] if quick else ["fp16", "bf16"]):
        for batch in batches:
            for s in seqs:
                tasks.append(_gemm_task("gemm_batched", "bmm_qk", prec, s, s, 64, batch))
                tasks.append(_gemm_task("gemm_batched", "bmm_pv", prec, s, 64, s, batch))

    # attention ------------------------------------------------------------
    if quick:
        combos = [("bf16", 16, 128, 2048)]
    else:
        combos = [(p, hd, d, s) for p in ("bf16", "fp16") for hd in (16, 32)
                  for d in (64, 128) for s in (512, 2048, 8192)]
    for prec, heads, d, s in combos:
        for backward in (False, True):
            for causal in (False, True):
                name = "sdpa_" + ("fwdbwd" if backward else "fwd") + ("_causal" if causal else "")
                tasks.append(Task(
                    "attention", "attention", name, prec, k=d, batch=ATTN_BATCH * heads,
                    seq_len=s, bytes=attention_bytes(ATTN_BATCH, heads, s, d, prec, backward),
                    flops=attention_flops(ATTN_BATCH, heads, s, d, causal, backward),
                    params={"b": ATTN_BATCH, "heads": heads, "causal": causal,
                            "backward": backward}))

    # elementwise ------------------------------------------------------------
    eprecs = ["bf16"] if quick else ["fp16", "bf16", "fp32"]
    counts = [1 << 26] if quick else ELEMENTWISE_COUNTS
    ln_hiddens = [4096] if quick else LAYER_NORM_HIDDENS
    for prec in eprecs:
        for h in ln_hiddens:
            for count in counts:
                t = count // h
                tasks.append(Task("elementwise", "elementwise", "layer_norm", prec, m=t, n=h,
                                  bytes=elementwise_bytes("layer_norm", t, h, prec),
                                  flops=elementwise_flops("layer_norm", t, h)))
        for op in ("gelu", "add"):
            h = 4096
            for count in counts:
                t = count // h
                tasks.append(Task("elementwise", "elementwise", op, prec, m=t, n=h,
                                  bytes=elementwise_bytes(op, t, h, prec),
                                  flops=elementwise_flops(op, t, h)))

    # training steps -----------------------------------------------------------
    warm, timed = (2, 3) if quick else (5, 10)

    def step(name: str, prec: str, batch: int, seq: Optional[int], flops: int) -> Task:
        return Task("step", "step", name, prec, batch=batch, seq_len=seq, flops=flops,
                    params={"warmup": warm, "timed": timed})

    def bert_flops(batch: int, seq: int) -> int:
        return transformer_train_flops(batch, seq, 24, 1024, 4096, 30522, False, True)

    gpt_flops = transformer_train_flops(4, 2048, 24, 2048, 8192, 50257, True, False)
    if quick:
        tasks.append(step("resnet50", "bf16", 256, None, 256 * RESNET50_TRAIN_FLOPS_PER_SAMPLE))
        tasks.append(step("bert-large", "bf16", 64, 128, bert_flops(64, 128)))
    else:
        for prec, batch in (("fp16", 256), ("bf16", 256), ("tf32", 256), ("fp32", 128)):
            tasks.append(step("resnet50", prec, batch, None,
                              batch * RESNET50_TRAIN_FLOPS_PER_SAMPLE))
        for prec in ("fp16", "bf16"):
            for seq, batch in ((128, 64), (512, 16)):
                tasks.append(step("bert-large", prec, batch, seq, bert_flops(batch, seq)))
        tasks.append(step("gpt-1.3b", "bf16", 4, 2048, gpt_flops))

    # profiler traces (not CSV rows) --------------------------------------------
    if trace:
        tasks.append(Task("trace", "trace", "resnet50", "fp16", batch=256))
        tasks.append(Task("trace", "trace", "bert-large", "fp16", batch=64, seq_len=128))

    if only:
        wanted = set(only)
        tasks = [t for t in tasks if t.kind in wanted
                 or (t.kind == "trace" and ("step" in wanted or "trace" in wanted))]
    return tasks


# --------------------------------------------------------------------------
# CSV writing
# --------------------------------------------------------------------------

def format_number(v) -> str:
    """Plain decimal (never exponent notation); '' for None."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return ""
        if v == 0.0:
            return "0"
        d = Decimal(f"{v:.5e}").normalize()  # 6 significant digits
        s = format(d, "f")
        return s
    return str(v)


class CsvSink:
    """Collects rows; mirrors each to PATH.partial as it arrives and writes PATH
    atomically (temp file + os.replace) at the end."""

    def __init__(self, path: str):
        self.path = path
        self.partial_path = path + ".partial"
        self.rows: List[Dict[str, str]] = []
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self._pf = open(self.partial_path, "w", newline="")
        self._pw = csv.writer(self._pf, lineterminator="\n")
        self._pw.writerow(COLUMNS)
        self._pf.flush()

    def add(self, row: Dict) -> None:
        out = {c: format_number(row.get(c)) for c in COLUMNS}
        self.rows.append(out)
        self._pw.writerow([out[c] for c in COLUMNS])
        self._pf.flush()

    def close_partial(self) -> None:
        if not self._pf.closed:
            self._pf.close()

    def finish(self) -> None:
        self.close_partial()
        tmp = self.path + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            for r in self.rows:
                w.writerow([r[c] for c in COLUMNS])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        with contextlib.suppress(OSError):
            os.remove(self.partial_path)


# --------------------------------------------------------------------------
# Runner: executes the plan with a backend, honours the time budget
# --------------------------------------------------------------------------

class SkipMeasurement(Exception):
    """The backend could not take this measurement; a note goes to stderr
    (quiet ones, repeats of a note already given, are only counted)."""

    def __init__(self, msg: str, quiet: bool = False):
        super().__init__(msg)
        self.quiet = quiet


class FatalDeviceError(Exception):
    """The device is unusable (e.g. a sticky CUDA error); stop measuring."""


@dataclass
class Result:
    time_s: float
    samples_per_s: Optional[float] = None


def describe_result(task: Task, res: Result) -> str:
    parts = []
    if res.time_s >= 1e-3:
        parts.append(f"{res.time_s * 1e3:.3f} ms")
    else:
        parts.append(f"{res.time_s * 1e6:.2f} us")
    if task.flops and task.kind != "step":
        parts.append(f"{task.flops / res.time_s / 1e12:.1f} TFLOP/s")
    if task.bytes and task.kind in ("copy", "elementwise"):
        parts.append(f"{task.bytes / res.time_s / 1e9:.0f} GB/s")
    if res.samples_per_s:
        parts.append(f"{res.samples_per_s:.1f} samples/s")
    return ", ".join(parts)


def run_plan(tasks: List[Task], backend, sink: Optional[CsvSink], env: Dict[str, str],
             budget_s: float, clock: Callable[[], float] = time.monotonic,
             start: Optional[float] = None) -> Dict[str, int]:
    """Runs tasks in order. Returns {section: number skipped for the budget}."""
    t0 = clock() if start is None else start
    skipped: Dict[str, int] = {}
    quiet_skips = 0
    stop_reason = None
    total = len(tasks)
    for i, task in enumerate(tasks):
        elapsed = clock() - t0
        if stop_reason is None and elapsed > budget_s:
            stop_reason = f"time budget of {budget_s:g} s spent after {elapsed:.0f} s"
        if stop_reason is not None:
            skipped[task.section] = skipped.get(task.section, 0) + 1
            continue
        try:
            res = backend.measure(task)
        except SkipMeasurement as e:
            if getattr(e, "quiet", False):
                quiet_skips += 1
            else:
                log(f"[{i + 1}/{total} {elapsed:6.1f}s] skipped {task.label()}: {e}")
            continue
        except FatalDeviceError as e:
            log(f"[{i + 1}/{total} {elapsed:6.1f}s] FATAL during {task.label()}: {e}")
            stop_reason = f"device error ({e})"
            skipped[task.section] = skipped.get(task.section, 0) + 1
            continue
        if task.kind == "trace" or res is None:
            log(f"[{i + 1}/{total} {elapsed:6.1f}s] done {task.label()}")
            continue
        row = {c: None for c in COLUMNS}
        row.update(env)
        for c in ("kind", "name", "precision", "m", "n", "k", "batch", "seq_len", "bytes", "flops"):
            row[c] = getattr(task, c)
        row["time_s"] = float(res.time_s)
        row["samples_per_s"] = None if res.samples_per_s is None else float(res.samples_per_s)
        if sink is not None:
            sink.add(row)
        log(f"[{i + 1}/{total} {elapsed:6.1f}s] {task.label()}: {describe_result(task, res)}")
    if quiet_skips:
        log(f"{quiet_skips} further measurements skipped (see the notes above)")
    if stop_reason is not None and skipped:
        what = ", ".join(f"{n} {s}" for s, n in skipped.items())
        log(f"{stop_reason}: skipped {what}")
    return skipped


# --------------------------------------------------------------------------
# The torch backend (imports torch lazily)
# --------------------------------------------------------------------------

def nvidia_driver() -> str:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return ""
    try:
        out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    if out.returncode != 0:
        return ""
    for line in out.stdout.splitlines():
        if line.strip():
            return line.strip()
    return ""


class TorchBackend:
    def __init__(self, quick: bool = False, trace_dir: Optional[str] = None):
        try:
            import torch
        except ImportError as e:
            raise SystemExit(f"error: PyTorch is required ({e})")
        self.torch = torch
        if not torch.cuda.is_available():
            raise SystemExit("error: torch.cuda.is_available() is False: no usable CUDA GPU")
        self.dev = torch.device("cuda")
        torch.cuda.init()
        torch.manual_seed(0)
        self.quick = quick
        self.trace_dir = trace_dir
        # GEMM timing targets: total timed time per measurement, and minimum samples.
        self.target_s = 0.010 if quick else 0.040
        self.min_samples = 3 if quick else 5
        self.max_samples = 3 if quick else 30
        self._fp8_ok: Optional[bool] = None
        self._fp8_reason = ""
        self._section = None
        self._tflops: Dict[Tuple[str, int], float] = {}

    # -- environment ------------------------------------------------------
    def env(self) -> Dict[str, str]:
        torch = self.torch
        return {
            "device": torch.cuda.get_device_name(),
            "torch": torch.__version__,
            "cuda": torch.version.cuda or "",
            "driver": nvidia_driver(),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        }

    def set_tf32(self, enabled: bool) -> None:
        """Uses the long-standing allow_tf32 flags only (mixing them with the
        newer fp32_precision settings can raise errors in recent torch)."""
        import warnings
        torch = self.torch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                torch.backends.cuda.matmul.allow_tf32 = enabled
                torch.backends.cudnn.allow_tf32 = enabled
                return
            except (AttributeError, RuntimeError):
                pass
            mode = "tf32" if enabled else "ieee"
            torch.backends.cuda.matmul.fp32_precision = mode
            torch.backends.cudnn.conv.fp32_precision = mode
            torch.backends.cudnn.rnn.fp32_precision = mode

    def cleanup(self) -> None:
        gc.collect()
        self.torch.cuda.empty_cache()

    # -- dispatch -----------------------------------------------------------
    def measure(self, task: Task) -> Optional[Result]:
        torch = self.torch
        if task.section != self._section:
            self.cleanup()
            self._section = task.section
        fn = {
            "launch": self._launch, "copy": self._copy, "gemm": self._gemm,
            "attention": self._attention, "elementwise": self._elementwise,
            "step": self._step, "trace": self._trace,
        }[task.kind]
        # The exception (and its traceback, which holds the tensors of the failed
        # measurement) must be gone before the cache is emptied, hence the flag.
        failure: Optional[Exception] = None
        try:
            return fn(task)
        except torch.cuda.OutOfMemoryError:
            failure = SkipMeasurement("out of GPU memory")
        except SkipMeasurement as e:
            failure = SkipMeasurement(str(e), quiet=e.quiet)
        except Exception as e:  # noqa: BLE001
            text = str(e).strip()
            msg = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"
            sticky = ("illegal memory access", "device-side assert", "unspecified launch failure",
                      "misaligned address", "illegal instruction")
            if any(x in text for x in sticky):
                failure = FatalDeviceError(msg)
            else:
                failure = SkipMeasurement(msg)
        if isinstance(failure, SkipMeasurement):
            # A library error (e.g. an unsupported cuBLAS configuration) leaves the
            # device usable; a sticky CUDA error makes every later call fail.
            try:
                self.cleanup()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                failure = FatalDeviceError(f"{failure}; device unusable afterwards: "
                                           f"{str(e).strip()[:200]}")
        raise failure

    # -- timing ---------------------------------------------------------------
    def _events(self, n: int):
        E = self.torch.cuda.Event
        return [E(enable_timing=True) for _ in range(n)]

    def time_kernel(self, fn: Callable[[], object]) -> float:
        """Median per-call device time of fn (seconds).

        Each sample is CUDA events around a loop of `inner` back-to-back calls;
        `inner` is chosen so that a sample lasts ~1 ms and the number of samples
        so that all samples together last ~target_s (at least min_samples).
        For short kernels the stream is first held with a device-side sleep so
        that the host can queue the whole loop: the events then see kernel time,
        not launch latency.
        """
        torch = self.torch
        fn()  # first call: library initialisation, heuristics, allocation
        torch.cuda.synchronize()
        s, e = self._events(2)
        s.record()
        fn()
        e.record()
        e.synchronize()
        est = max(s.elapsed_time(e) / 1e3, 1e-7)
        if est < 2e-4:
            s.record()
            for _ in range(20):
                fn()
            e.record()
            e.synchronize()
            est = max(s.elapsed_time(e) / 1e3 / 20, 1e-7)
        inner = int(min(max(math.ceil(1e-3 / est), 1), 200))
        samples = int(min(max(math.ceil(self.target_s / (inner * est)), self.min_samples),
                          self.max_samples))
        # warm-up: >= 10 ms of calls (at least one), measuring host launch cost
        warm = int(min(max(math.ceil(0.01 / est), 1), 400))
        h0 = time.perf_counter()
        for _ in range(warm):
            fn()
        host_per_call = (time.perf_counter() - h0) / warm
        torch.cuda.synchronize()
        sleep_cycles = 0
        if inner > 1 and hasattr(torch.cuda, "_sleep"):
            hold = min(inner * min(host_per_call, 5e-4) * 1.5 + 1e-4, 0.05)
            sleep_cycles = int(hold * 2.0e9)  # ~2 GHz SM clock; longer is harmless
        evs = self._events(2 * samples)
        for r in range(samples):
            if sleep_cycles:
                torch.cuda._sleep(sleep_cycles)
            evs[2 * r].record()
            for _ in range(inner):
                fn()
            evs[2 * r + 1].record()
        torch.cuda.synchronize()
        per_call = [evs[2 * r].elapsed_time(evs[2 * r + 1]) / 1e3 / inner for r in range(samples)]
        return statistics.median(per_call)

    # -- launch -----------------------------------------------------------------
    def _launch(self, task: Task) -> Result:
        torch = self.torch
        calls = task.params["calls"]
        x = torch.zeros(1, device=self.dev)
        for _ in range(1000):
            x.add_(1)
        torch.cuda.synchronize()
        if task.name == "launch_wall":
            t0 = time.perf_counter()
            for _ in range(calls):
                x.add_(1)
            torch.cuda.synchronize()
            return Result((time.perf_counter() - t0) / calls)
        s, e = self._events(2)
        s.record()
        for _ in range(calls):
            x.add_(1)
        e.record()
        e.synchronize()
        return Result(s.elapsed_time(e) / 1e3 / calls)

    # -- copy ---------------------------------------------------------------------
    def _copy(self, task: Task) -> Result:
        torch = self.torch
        n = task.params["size"] // 4
        x = torch.empty(n, dtype=torch.float32, device=self.dev)
        x.fill_(1.0)
        y = torch.empty_like(x)
        return Result(self.time_kernel(lambda: y.copy_(x)))

    # -- gemm ---------------------------------------------------------------------
    def _randn(self, shape, dtype):
        return self.torch.randn(*shape, device=self.dev, dtype=dtype)

    def _fp8_check(self) -> None:
        torch = self.torch
        if self._fp8_ok is None:
            try:
                if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
                    raise RuntimeError("torch._scaled_mm / float8_e4m3fn not available")
                a = self._randn((64, 64), torch.float32).to(torch.float8_e4m3fn)
                b = self._randn((64, 64), torch.float32).to(torch.float8_e4m3fn).t()
                one = torch.ones((), device=self.dev, dtype=torch.float32)
                self._scaled_mm(a, b, one)
                torch.cuda.synchronize()
                self._fp8_ok = True
            except Exception as e:  # noqa: BLE001
                self._fp8_ok = False
                self._fp8_reason = f"{type(e).__name__}: {str(e).strip()[:200]}"
                log(f"note: fp8 GEMMs are not supported here, all fp8 rows skipped "
                    f"({self._fp8_reason})")
        if not self._fp8_ok:
            raise SkipMeasurement("fp8 unsupported", quiet=True)

    def _scaled_mm(self, a, b, scale):
        out = self.torch._scaled_mm(a, b, scale_a=scale, scale_b=scale,
                                    out_dtype=self.torch.bfloat16)
        if isinstance(out, tuple):  # torch < 2.4 returned (out, amax)
            out = out[0]
        return out

    def _gemm(self, task: Task) -> Result:
        torch = self.torch
        m, n, k, batch, prec = task.m, task.n, task.k, task.batch or 1, task.precision
        if prec == "fp8":
            self._fp8_check()
            if batch != 1:
                raise SkipMeasurement("batched fp8 not measured")
            a = self._randn((m, k), torch.bfloat16).to(torch.float8_e4m3fn)
            # _scaled_mm wants B column-major: build B^T row-major and transpose
            b = self._randn((n, k), torch.bfloat16).to(torch.float8_e4m3fn).t()
            one = torch.ones((), device=self.dev, dtype=torch.float32)
            fn = lambda: self._scaled_mm(a, b, one)  # noqa: E731
        else:
            dtype = {"fp32": torch.float32, "tf32": torch.float32,
                     "fp16": torch.float16, "bf16": torch.bfloat16}[prec]
            self.set_tf32(prec == "tf32")
            if batch == 1:
                a = self._randn((m, k), dtype)
                b = self._randn((k, n), dtype)
                c = torch.empty((m, n), device=self.dev, dtype=dtype)
                fn = lambda: torch.mm(a, b, out=c)  # noqa: E731
            else:
                a = self._randn((batch, m, k), dtype)
                b = self._randn((batch, k, n), dtype)
                c = torch.empty((batch, m, n), device=self.dev, dtype=dtype)
                fn = lambda: torch.bmm(a, b, out=c)  # noqa: E731
        t = self.time_kernel(fn)
        if task.section == "gemm_square":
            self._tflops[(prec, m)] = task.flops / t / 1e12
            self._check_tf32(m)
        return Result(t)

    def _check_tf32(self, size: int) -> None:
        f32 = self._tflops.get(("fp32", size))
        t32 = self._tflops.get(("tf32", size))
        if size == 8192 and f32 and t32 and t32 < 1.3 * f32:
            log(f"warning: tf32 ({t32:.1f} TFLOP/s) is barely faster than fp32 "
                f"({f32:.1f} TFLOP/s) at 8192: the TF32 switch may not have taken effect")

    # -- attention --------------------------------------------------------------
    def _attention(self, task: Task) -> Result:
        torch = self.torch
        F = torch.nn.functional
        p = task.params
        b, heads, s, d = p["b"], p["heads"], task.seq_len, task.k
        causal, backward = p["causal"], p["backward"]
        dtype = torch.bfloat16 if task.precision == "bf16" else torch.float16
        q = self._randn((b, heads, s, d), dtype)
        k = self._randn((b, heads, s, d), dtype)
        v = self._randn((b, heads, s, d), dtype)
        if backward:
            for x in (q, k, v):
                x.requires_grad_(True)
            do = self._randn((b, heads, s, d), dtype)

            def fn():
                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                return torch.autograd.grad(o, (q, k, v), do)
            t = self.time_kernel(fn)
        else:
            def fn():
                with torch.no_grad():
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            t = self.time_kernel(fn)
        return Result(t)

    # -- elementwise --------------------------------------------------------------
    def _elementwise(self, task: Task) -> Result:
        torch = self.torch
        F = torch.nn.functional
        dtype = {"fp32": torch.float32, "fp16": torch.float16,
                 "bf16": torch.bfloat16}[task.precision]
        t, h = task.m, task.n
        x = self._randn((t, h), dtype)
        with torch.no_grad():
            if task.name == "layer_norm":
                w = self._randn((h,), dtype)
                bias = self._randn((h,), dtype)
                fn = lambda: F.layer_norm(x, (h,), w, bias)  # noqa: E731
            elif task.name == "gelu":
                fn = lambda: F.gelu(x)  # noqa: E731
            elif task.name == "add":
                y = self._randn((t, h), dtype)
                z = torch.empty_like(x)
                fn = lambda: torch.add(x, y, out=z)  # noqa: E731
            else:
                raise SkipMeasurement(f"unknown elementwise op {task.name}")
            res = self.time_kernel(fn)
        return Result(res)

    # -- training steps -------------------------------------------------------------
    def _default_device(self):
        """Create parameters directly on the GPU where torch allows it (2.0+)."""
        dev = self.torch.device(self.dev)
        if hasattr(dev, "__enter__"):
            return dev
        return contextlib.nullcontext()

    def _build_step(self, name: str, prec: str, batch: int, seq: Optional[int]):
        """Returns a zero-argument callable doing one full training step."""
        torch = self.torch
        torch.backends.cudnn.benchmark = True
        amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(prec)
        self.set_tf32(prec != "fp32")
        if name == "resnet50":
            try:
                import torchvision
            except ImportError:
                raise SkipMeasurement("torchvision is not installed")
            model = torchvision.models.resnet50(weights=None).to(self.dev)
            x = torch.randn(batch, 3, 224, 224, device=self.dev)
            y = torch.randint(0, 1000, (batch,), device=self.dev)
            if amp_dtype is not None:
                model = model.to(memory_format=torch.channels_last)
                x = x.contiguous(memory_format=torch.channels_last)
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
            crit = torch.nn.CrossEntropyLoss()
            loss_fn = lambda: crit(model(x), y)  # noqa: E731
        elif name == "bert-large":
            with self._default_device():
                model = make_transformer(torch, layers=24, hidden=1024, heads=16, ffn=4096,
                                         vocab=30522, max_seq=512, causal=False, bert=True)
            model = model.to(self.dev)
            ids = torch.randint(0, 30522, (batch, seq), device=self.dev)
            labels = torch.randint(0, 30522, (batch, seq), device=self.dev)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
            loss_fn = lambda: model(ids, labels)  # noqa: E731
        elif name == "gpt-1.3b":
            with self._default_device():
                model = make_transformer(torch, layers=24, hidden=2048, heads=16, ffn=8192,
                                         vocab=50257, max_seq=2048, causal=True, bert=False)
            model = model.to(self.dev)
            ids = torch.randint(0, 50257, (batch, seq), device=self.dev)
            labels = torch.randint(0, 50257, (batch, seq), device=self.dev)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
            loss_fn = lambda: model(ids, labels)  # noqa: E731
        else:
            raise SkipMeasurement(f"unknown model {name}")
        model.train()
        scaler = None
        if prec == "fp16":
            try:
                scaler = torch.amp.GradScaler("cuda")
            except (AttributeError, TypeError):
                scaler = torch.cuda.amp.GradScaler()

        def autocast():
            if amp_dtype is None:
                return contextlib.nullcontext()
            return torch.autocast(device_type="cuda", dtype=amp_dtype)

        def train_step():
            opt.zero_grad(set_to_none=True)
            with autocast():
                loss = loss_fn()
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
            return loss

        return train_step

    def _step(self, task: Task) -> Result:
        torch = self.torch
        self.cleanup()
        try:
            train_step = self._build_step(task.name, task.precision, task.batch, task.seq_len)
            for _ in range(task.params["warmup"]):
                train_step()
            torch.cuda.synchronize()
            times = []
            for _ in range(task.params["timed"]):
                t0 = time.perf_counter()
                train_step()
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
        finally:
            train_step = None  # noqa: F841
            self.cleanup()
        t = statistics.median(times)
        return Result(t, task.batch / t)

    def _trace(self, task: Task) -> None:
        torch = self.torch
        if not self.trace_dir:
            raise SkipMeasurement("no --trace-dir")
        from torch.profiler import ProfilerActivity, profile
        os.makedirs(self.trace_dir, exist_ok=True)
        self.cleanup()
        try:
            train_step = self._build_step(task.name, task.precision, task.batch, task.seq_len)
            for _ in range(3):
                train_step()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                         record_shapes=True) as prof:
                train_step()
                torch.cuda.synchronize()
            base = os.path.join(self.trace_dir, f"{task.name}_step.pt.trace.json")
            prof.export_chrome_trace(base)
            del prof
            with open(base, "rb") as src, gzip.open(base + ".gz", "wb", compresslevel=9) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(base)
        finally:
            train_step = None  # noqa: F841
            self.cleanup()
        size = os.path.getsize(base + ".gz")
        log(f"wrote {base}.gz ({size / MIB:.1f} MiB)")
        if size > 15 * MIB:
            log(f"warning: {base}.gz is over 15 MB")
        return None


def make_transformer(torch, *, layers: int, hidden: int, heads: int, ffn: int, vocab: int,
                     max_seq: int, causal: bool, bert: bool):
    """A BERT-style (post-LN, MLM head, dropout 0.1) or GPT-style (pre-LN, causal,
    no dropout) encoder/decoder. forward(ids, labels) returns the LM loss over
    all positions; the output projection is tied to the token embedding."""
    nn = torch.nn
    F = torch.nn.functional
    hd = hidden // heads
    p_drop = 0.1 if bert else 0.0
    gelu_approx = "none" if bert else "tanh"

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.fc1 = nn.Linear(hidden, ffn)
            self.fc2 = nn.Linear(ffn, hidden)
            self.ln1 = nn.LayerNorm(hidden)
            self.ln2 = nn.LayerNorm(hidden)
            self.drop = nn.Dropout(p_drop)

        def attn(self, x):
            B, S, _ = x.shape
            q, k, v = self.qkv(x).view(B, S, 3, heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return self.drop(self.proj(y.transpose(1, 2).reshape(B, S, hidden)))

        def mlp(self, x):
            return self.drop(self.fc2(F.gelu(self.fc1(x), approximate=gelu_approx)))

        def forward(self, x):
            if bert:
                x = self.ln1(x + self.attn(x))
                return self.ln2(x + self.mlp(x))
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, hidden)
            self.pos = nn.Embedding(max_seq, hidden)
            self.typ = nn.Embedding(2, hidden) if bert else None
            self.emb_ln = nn.LayerNorm(hidden) if bert else None
            self.drop = nn.Dropout(p_drop)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.final_ln = None if bert else nn.LayerNorm(hidden)
            self.head_dense = nn.Linear(hidden, hidden) if bert else None
            self.head_ln = nn.LayerNorm(hidden) if bert else None
            self.out_bias = nn.Parameter(torch.zeros(vocab))
            for mod in self.modules():
                if isinstance(mod, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(mod.weight, std=0.02)

        def forward(self, ids, labels):
            S = ids.shape[1]
            pos = torch.arange(S, device=ids.device)
            x = self.tok(ids) + self.pos(pos)[None]
            if bert:
                x = self.emb_ln(x + self.typ(torch.zeros_like(ids)))
            x = self.drop(x)
            for blk in self.blocks:
                x = blk(x)
            if bert:
                # autocast runs layer_norm in fp32 anyway; the explicit cast keeps
                # backends whose autocast lacks that rule working
                x = self.head_ln(F.gelu(self.head_dense(x)).float())
            else:
                x = self.final_ln(x)
            logits = F.linear(x, self.tok.weight, self.out_bias)
            return F.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1))

    return LM()


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Measure GEMM, memory, attention, launch and training-step "
                    "performance of one CUDA GPU for the rentsim compute model.")
    ap.add_argument("--out", required=True, help="CSV file to write")
    ap.add_argument("--gpu", default=None,
                    help="catalog name of the GPU (first CSV column), e.g. h100-sxm5-80gb; "
                         "default: derived from the device name")
    ap.add_argument("--quick", action="store_true",
                    help="a small subset with 3 timed repetitions (under a minute)")
    ap.add_argument("--only", default=None,
                    help="comma list of kinds to run: " + ",".join(KINDS) + " (and trace)")
    ap.add_argument("--seconds-budget", type=float, default=360.0,
                    help="stop starting new measurements after this many seconds (default 360)")
    ap.add_argument("--trace-dir", default=None,
                    help="also write gzipped profiler traces of one training step here")
    args = ap.parse_args(argv)
    if args.only:
        kinds = [x.strip() for x in args.only.split(",") if x.strip()]
        bad = [x for x in kinds if x not in KINDS + ["trace"]]
        if bad:
            ap.error(f"--only: unknown kind(s) {','.join(bad)}; choose from {','.join(KINDS)},trace")
        args.only = kinds
    return args


def default_gpu_name(device: str) -> str:
    s = "".join(ch.lower() if ch.isalnum() else "-" for ch in device)
    while "--" in s:
        s = s.replace("--", "-")
    return s.strip("-") or "gpu"


def main(argv: Optional[Sequence[str]] = None, backend=None,
         clock: Callable[[], float] = time.monotonic) -> int:
    start = clock()
    args = parse_args(argv)
    if backend is None:
        backend = TorchBackend(quick=args.quick, trace_dir=args.trace_dir)
    tasks = build_plan(quick=args.quick, only=args.only, trace=bool(args.trace_dir))
    env = dict(backend.env())
    env["gpu"] = args.gpu or default_gpu_name(env.get("device", ""))
    log(f"measuring {env.get('device')} as '{env['gpu']}' (torch {env.get('torch')}, "
        f"CUDA {env.get('cuda')}, driver {env.get('driver') or '?'}): {len(tasks)} measurements, "
        f"budget {args.seconds_budget:g} s")
    sink = CsvSink(args.out)
    try:
        run_plan(tasks, backend, sink, env, args.seconds_budget, clock=clock, start=start)
    except KeyboardInterrupt:
        sink.close_partial()
        log(f"interrupted: {len(sink.rows)} rows kept in {sink.partial_path}")
        return 130
    sink.finish()
    log(f"wrote {len(sink.rows)} rows to {args.out} in {clock() - start:.0f} s")
    return 0 if sink.rows else 1


if __name__ == "__main__":
    sys.exit(main())
