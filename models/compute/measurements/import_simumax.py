#!/usr/bin/env python3
"""Converts the measured GEMM and FlashAttention efficiencies of a SimuMax system file into
the layout of models/compute/measure/measure_gpu.py, which `rentsim calibrate` reads.

SimuMax (MooreThreads/SimuMax, Apache-2.0) stores, for each GEMM shape it timed on a machine,
the efficiency  2 m n k / (time x tflops)  in accelerator.op.matmul.accurate_efficient_factor,
keyed "b=1, m=M, k=K, n=N, layout=L, accumulate=A, out_dtype=D". This script inverts that to
the measured time: time_s = 2 m n k / (efficiency x tflops x 1e12). Only dense matmuls are
converted (not grouped MoE GEMMs, not fp8, whose tables are empty for B200).

Attention (accelerator.op.sdp_fwd / sdp_bwd, keyed "batch=B, seq_len=S, head_num=H,
kv_head_num=G, qk_head_dim=D, v_head_dim=D, qkv_contiguous=C") was timed by SimuMax's
simu_tools/efficency_test/test_fa_efficiency.py with a causal mask, its efficiency counting
4 B S^2 H D FLOPs forward and 10 B S^2 H D backward (no causal halving). Each shape becomes
one "sdpa_fwd_causal" row and one "sdpa_fwdbwd_causal" row (forward and backward times
added) with measure_gpu.py's conventions: FLOPs 4 B H S^2 D halved for the causal mask (x3.5
with the backward), `batch` B x H, minimum HBM traffic (q, o, and k, v of the G key/value
heads, forward; plus do, dq, dk, dv backward).

Usage: import_simumax.py SYSTEM.json GPU DATE > OUT.csv
"""
import csv
import json
import re
import sys

COLUMNS = ["gpu", "kind", "name", "precision", "m", "n", "k", "batch", "seq_len", "bytes", "flops",
           "time_s", "samples_per_s", "device", "torch", "cuda", "driver", "date"]
KEY = re.compile(r"b=(\d+), m=(\d+), k=(\d+), n=(\d+), layout=(\w+), accumulate=(\w+), out_dtype=(\w+)")
SDP = re.compile(r"batch=(\d+), seq_len=(\d+), head_num=(\d+), kv_head_num=(\d+), qk_head_dim=(\d+), "
                 r"v_head_dim=(\d+), qkv_contiguous=(\w+)")
BF16_BYTES = 2


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, gpu, date = sys.argv[1:]
    with open(path) as f:
        system = json.load(f)
    matmul = system["accelerator"]["op"]["matmul"]
    tflops = float(matmul["tflops"])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for key, eff in matmul["accurate_efficient_factor"].items():
        m = KEY.fullmatch(key)
        if not m or not eff or eff <= 0:
            continue
        b, mm, k, n = (int(m.group(i)) for i in range(1, 5))
        flops = 2.0 * b * mm * n * k
        name = f"simumax {m.group(5)} accumulate={m.group(6)} out={m.group(7)}"
        out.writerow([gpu, "gemm", name, "bf16", mm, n, k, b, "", "", f"{flops:.6g}",
                      f"{flops / (eff * tflops * 1e12):.6g}", "", "NVIDIA B200", "", "", "", date])
    op = system["accelerator"]["op"]
    fwd_table = op.get("sdp_fwd", {}).get("accurate_efficient_factor", {})
    bwd_table = op.get("sdp_bwd", {}).get("accurate_efficient_factor", {})
    for key, eff_fwd in fwd_table.items():
        m = SDP.fullmatch(key)
        eff_bwd = bwd_table.get(key)
        if not m or not eff_fwd or eff_fwd <= 0 or not eff_bwd or eff_bwd <= 0:
            continue
        b, s, h, g, dqk, dv = (int(m.group(i)) for i in range(1, 7))
        if dqk != dv:
            continue
        d = dqk
        base = b * s * s * max(h, g) * (dqk + dv)  # SimuMax's count
        t_fwd = 2 * base / (eff_fwd * float(op["sdp_fwd"]["tflops"]) * 1e12)
        t_bwd = 5 * base / (eff_bwd * float(op["sdp_bwd"]["tflops"]) * 1e12)
        causal_fwd = 4 * b * h * s * s * d // 2
        t = b * s * d * BF16_BYTES
        fwd_bytes = (2 * h + 2 * g) * t
        bwd_bytes = fwd_bytes + (2 * h + 2 * h + 2 * g) * t  # read o, do, q, k, v; write dq, dk, dv
        layout = "contiguous" if m.group(7) == "True" else "strided"
        for name, flops, nbytes, time_s in (("sdpa_fwd_causal", causal_fwd, fwd_bytes, t_fwd),
                                            ("sdpa_fwdbwd_causal", causal_fwd * 7 // 2, bwd_bytes, t_fwd + t_bwd)):
            out.writerow([gpu, "attention", f"simumax {name} kv_heads={g} qkv={layout}", "bf16", "", "", d,
                          b * h, s, nbytes, f"{flops:.6g}", f"{time_s:.6g}", "", "NVIDIA B200", "", "", "", date])
    return 0


if __name__ == "__main__":
    sys.exit(main())
