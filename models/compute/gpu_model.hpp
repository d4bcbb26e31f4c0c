// Compute-time model of one GPU: a roofline per operation with tile and wave quantisation.
//
// A GEMM-like op (matmul, convolution as implicit GEMM, per-head attention GEMMs) is cut into
// 128x128 output tiles, split along K when there are fewer tiles than SMs; tiles run in waves
// of one tile per SM, and each tile streams its K slice plus a fixed pipeline fill `k_fill`. Its time is the larger of that compute time
// at `matmul_eff` x peak and its memory traffic at `mem_eff` x HBM bandwidth, plus a
// per-kernel overhead. Memory-bound ops (elementwise, normalisation, softmax, embedding,
// optimizer) take their bytes over the effective bandwidth plus the same overhead.
// A FlashAttention kernel (fused_attention) runs one thread block per 128-row query block,
// head and sample, in waves over the SMs; its time is the larger of its FLOPs at
// `attention_eff` x the 16-bit dense peak (wave-quantised) and its traffic over the effective
// bandwidth, plus the kernel overhead.
// Tensor-core rates (every precision but fp32) are also held under the board's power limit:
// see GpuModel::power_clock.
// Calibration holds the few fitted parameters; `rentsim calibrate` fits them.
#pragma once

#include <array>
#include <string>

#include "models/compute/gpu.hpp"
#include "models/units.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::compute {

inline constexpr double tile_edge = 128.0;  // output tile of cuBLAS/cuDNN tensor-core kernels
inline constexpr double split_k_min = 256.0;  // shortest K slice a split-K GEMM gives one block

// Latency of one dependent round of a serial op (Op::serial_rounds: farthest point sampling),
// on top of the round's traffic. Derived from the reference kernel's structure and Volta
// microbenchmarks (Jia et al. 2018, "Dissecting the NVIDIA Volta GPU Architecture via
// Microbenchmarking", arXiv:1804.06826, read 2026-12-02: L2 hit 193 cycles, shared memory 19
// cycles on V100). Each round of PointNet++'s farthest-point kernel (charlesq34/pointnet2,
// tf_ops/sampling/tf_sampling_g.cu, one 512-thread block per sample, read 2026-12-02) loads
// the last chosen centre (one L2 hit), then reduces the block's 512 candidates to one arg-max
// in log2(512) = 9 shared-memory steps, plus the initial store: 10 steps each a store, a
// barrier and a load, counted as two shared-memory latencies (the barrier waits for warps
// running the same few instructions). 193 + 10 x 2 x 19 = 573 cycles at V100's 1,530 MHz boost
// clock = 0.37 us. An assumption for other GPUs (their clocks are 1.4-2.0 GHz); no measured
// FPS latency was found to check it against.
inline constexpr double serial_round_cycles = 193.0 + 10 * 2 * 19.0;
inline constexpr double serial_round_latency_s = serial_round_cycles / 1.53e9;

// How much slower compute runs while a collective overlaps it, as a fraction of the
// overlapped compute time: 18.9% on average, at most 40%, measured on A100, H100, MI250 and
// MI210 for GPT and Llama training steps with their collectives overlapped ("Characterizing
// Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning: Performance and
// Power Implications", arXiv:2507.03114, July 2025, abstract; read 2026-12-02). The mechanism:
// NCCL's kernels hold SMs (an all-gather launches 24 thread blocks on an H100's 132 SMs, NVIDIA
// developer forum thread "Compute-Communication Overlap Causes Severe GEMM Performance
// Degradation because of Tail Effect", 2025) and share HBM bandwidth with the compute.
inline constexpr double overlap_compute_slowdown = 0.189;

struct Calibration {
    std::string gpu;                                  // catalog name it was fitted for
    std::array<double, precision_count> matmul_eff{};  // fraction of dense peak reached by large GEMMs
    double conv_eff = 1.0;            // convolution efficiency relative to a GEMM of the same shape, (0, 1]
    // The same for TF32 convolutions, relative to a TF32 GEMM: cuDNN's TF32 kernels are a
    // family of their own, fitted apart (NVIDIA's A100 ResNet-50 trains 2.63x faster in AMP
    // than in TF32, 2,470 against 938 img/s, measured.csv DLE-001/002, where the peaks and the
    // bytes per element differ by 2x). 0 on parts without TF32.
    double conv_eff_tf32 = 1.0;
    double k_fill = 0.0;              // pipeline fill per tile, in K elements
    double mem_eff = 0.8;             // fraction of HBM bandwidth reached by streaming kernels
    double kernel_overhead_s = 0.0;   // launch and tail per kernel, seconds
    // Fraction of the 16-bit dense peak a FlashAttention kernel reaches, (0, 1]. Prior 0.6:
    // FlashAttention-2 (Dao 2023, arXiv:2307.08691) reaches "50-73% of the theoretical
    // maximum FLOPs/s on A100" (abstract), up to 230 TFLOP/s = 73% of 312 in the forward pass
    // (Sec. 4), less in the backward; 335 TFLOP/s on H100 (34% of 989) without Hopper-specific
    // instructions (Sec. 4.1). Optional in calibration files; absent there, this prior.
    double attention_eff = 0.6;
    double step_overhead_s = 0.0;     // per training step outside kernels (data hand-off, Python), s
    // Board energy per dense 16-bit tensor-core FLOP at the boost clock, pJ (= W per TFLOP/s):
    // the power a part would draw running its tensor cores at their 16-bit peak is this times
    // that peak. 0: no power limit (the prior calibration; files fitted before it existed).
    double tensor_energy_pj = 0.0;
    std::string fitted_from;          // measurement file and row ids
    std::string date;                 // when it was fitted
};

// The calibration's priors: the fit's starting point and the value of any parameter no
// row constrains (analysis/studies/calibrate.cpp), and what a GPU without a shipped
// calibration runs with. Large GEMMs reach about 80% of peak, convolutions a little less
// than a GEMM of the same shape, streaming kernels 80% of HBM bandwidth, a few microseconds
// per kernel launch, a millisecond per step of host work; FlashAttention's prior is
// Calibration::attention_eff's.
inline constexpr double prior_matmul_eff = 0.8, prior_conv_eff = 0.8, prior_mem_eff = 0.8, prior_k_fill = 128.0,
                        prior_kernel_overhead_s = 5e-6, prior_step_overhead_s = 1e-3;
// The priors for `spec`: no efficiency for a precision the part lacks; `fitted_from` empty.
Calibration prior_calibration(const GpuSpec& spec);

// Time of one op for `micro_batch` samples. tp divides the dimension named by op.tp.
struct OpCost {
    units::Seconds time;
    units::Flops flops;   // useful FLOPs (no padding)
    units::Bytes bytes;   // HBM traffic
};

class GpuModel {
public:
    GpuModel(const GpuSpec& spec, Calibration cal);

    const GpuSpec& spec() const { return *spec_; }
    const Calibration& calibration() const { return cal_; }

    // Throws std::invalid_argument when the GPU has no path for the precision. Without
    // sequence parallelism the ops split along m (norms, dropouts, residual adds) are
    // replicated on every tensor-parallel rank rather than divided.
    OpCost op_cost(const work::Op& op, double micro_batch, Precision p, int tp = 1,
                   bool sequence_parallel = true) const;
    // One GEMM: C[m x n] = A[m x k] B[k x n], `batch` times.
    // `traffic_elems` > 0 replaces the dense estimate of HBM traffic (m k + k n + m n) x batch:
    // an implicit-GEMM convolution reads its input once, not its im2col expansion.
    units::Seconds gemm_time(double m, double n, double k, double batch, Precision p,
                             bool convolution = false, double traffic_elems = 0) const;
    // A streaming kernel moving `bytes` through HBM.
    units::Seconds stream_time(units::Bytes bytes) const;
    // One FlashAttention kernel: `flops` over `query_blocks` thread blocks (128 query rows
    // of one head and sample each), moving `traffic_bytes`; precision as attention_rate.
    units::Seconds attention_time(double flops, double query_blocks, double traffic_bytes,
                                  Precision p) const;

    // Effective rates this model assumes, for reports.
    units::FlopsPerSecond matmul_rate(Precision p) const;
    // A convolution's efficiency relative to a GEMM of precision p: conv_eff_tf32 for TF32
    // (where the calibration has one), conv_eff otherwise.
    double conv_eff(Precision p) const {
        return p == Precision::tf32 && cal_.conv_eff_tf32 > 0 ? cal_.conv_eff_tf32 : cal_.conv_eff;
    }
    // attention_eff x the dense peak of the precision FlashAttention runs in for step
    // precision p (attention_precision).
    units::FlopsPerSecond attention_rate(Precision p) const;
    // FlashAttention supports fp16 and bf16 only (Dao-AILab/flash-attention README), and fp8
    // training keeps attention in bf16 (Transformer Engine and torchao cast only the linear
    // layers): fp8 -> bf16 (fp16 where the GPU has no bf16). fp32 and tf32 steps have no flash
    // kernel (PyTorch's SDPA then picks another one); modelled as the same fused kernel at the
    // tf32 peak (fp32 where the GPU has none). fp16 and bf16 are themselves.
    Precision attention_precision(Precision p) const;
    units::BytesPerSecond memory_rate() const;
    // Fraction of the boost clock the tensor cores sustain under the board power limit, (0, 1].
    // A GEMM on random data draws enough power to lower the clock: Horace He measured an
    // 8192^3 cuBLAS matmul on an A100 (400 W limit) at 257 TFLOP/s on normally distributed
    // inputs and 295 on zeros, which switch fewer transistors ("Strangely, Matrix
    // Multiplications on GPUs Run Faster When Given 'Predictable' Data!", thonking.ai, 2024;
    // read 2026-12-06). With x = tensor_energy_pj x 16-bit dense peak / tdp_w, the tensor
    // cores' demand at the boost clock over the board's limit, the clock is
    // (1 + x^4)^(-1/8): the boost clock while x is small and x^(-1/2) once x is large, power
    // taken to rise as the square of the clock (dynamic power C V^2 f with the voltage rising
    // along the part's voltage-frequency curve would give the cube; leakage and memory power,
    // which do not fall with the clock, soften it), with a knee between the two because a
    // step's GEMMs alternate with kernels that draw less. Both exponents are modelling
    // choices, not fitted. Applied to matmul_rate and attention_rate of every precision but
    // fp32 (the CUDA cores); memory-bound kernels keep their rate. 1 when tensor_energy_pj is 0.
    double power_clock() const { return power_clock_; }

private:
    const GpuSpec* spec_;
    Calibration cal_;
    double power_clock_;  // computed once: matmul_rate is on the hot path
};

}  // namespace rentsim::compute
