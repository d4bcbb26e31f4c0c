#include "models/compute/gpu_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rentsim::compute {

using units::Bytes;
using units::Flops;
using units::Seconds;

Calibration prior_calibration(const GpuSpec& spec) {
    Calibration c;
    c.gpu = std::string(spec.name);
    for (std::size_t i = 0; i < precision_count; ++i) c.matmul_eff[i] = spec.peak_tflops[i] > 0 ? prior_matmul_eff : 0.0;
    c.conv_eff = prior_conv_eff;
    c.conv_eff_tf32 = spec.has(Precision::tf32) ? prior_conv_eff : 0.0;
    c.k_fill = prior_k_fill;
    c.mem_eff = prior_mem_eff;
    c.kernel_overhead_s = prior_kernel_overhead_s;
    c.step_overhead_s = prior_step_overhead_s;
    return c;
}

namespace {
// GpuModel::power_clock's formula.
double tensor_clock(const GpuSpec& spec, double tensor_energy_pj) {
    const double half = half_peak(spec) / units::tflops_per_s(1.0);
    if (tensor_energy_pj <= 0 || spec.tdp_w <= 0 || half <= 0) return 1.0;
    const double x = tensor_energy_pj * half / spec.tdp_w;  // pJ/FLOP x TFLOP/s = W, over W
    return std::pow(1.0 + x * x * x * x, -0.125);
}
}  // namespace

GpuModel::GpuModel(const GpuSpec& spec, Calibration cal)
    : spec_(&spec), cal_(std::move(cal)), power_clock_(tensor_clock(spec, cal_.tensor_energy_pj)) {}

units::FlopsPerSecond GpuModel::matmul_rate(Precision p) const {
    const double eff = cal_.matmul_eff[static_cast<std::size_t>(p)];
    return peak(*spec_, p) * (eff * (p == Precision::fp32 ? 1.0 : power_clock_));
}

units::BytesPerSecond GpuModel::memory_rate() const { return hbm_bandwidth(*spec_) * cal_.mem_eff; }

Precision GpuModel::attention_precision(Precision p) const {
    switch (p) {
        case Precision::fp8:
        case Precision::fp4: return spec_->has(Precision::bf16) ? Precision::bf16 : Precision::fp16;
        case Precision::fp32:
        case Precision::tf32: return spec_->has(Precision::tf32) ? Precision::tf32 : Precision::fp32;
        case Precision::fp16:
        case Precision::bf16: return p;
    }
    return p;
}

units::FlopsPerSecond GpuModel::attention_rate(Precision p) const {
    const Precision q = attention_precision(p);
    return peak(*spec_, q) * (cal_.attention_eff * (q == Precision::fp32 ? 1.0 : power_clock_));
}

Seconds GpuModel::attention_time(double flops, double query_blocks, double traffic_bytes, Precision p) const {
    const auto rate = attention_rate(p);
    if (rate.value <= 0.0)
        throw std::invalid_argument("GPU '" + std::string(spec_->name) + "' has no " +
                                    std::string(to_string(attention_precision(p))) + " path for attention");
    // Waves of query blocks, as gemm_time's waves of tiles: a partly filled last wave costs a
    // full one, so the FLOPs are spread evenly over the blocks and scaled by waves x SMs /
    // blocks. (Causal blocks do unequal work; FlashAttention-2 schedules the longest first.)
    const double sms = spec_->sms;
    const double blocks = std::max(1.0, query_blocks);
    const double waves = std::ceil(blocks / sms);
    const double compute = flops * (waves * sms / blocks) / rate.value;
    const double memory = traffic_bytes / memory_rate().value;
    return units::seconds(std::max(compute, memory) + cal_.kernel_overhead_s);
}

Seconds GpuModel::stream_time(Bytes bytes) const {
    return bytes / memory_rate() + units::seconds(cal_.kernel_overhead_s);
}

Seconds GpuModel::gemm_time(double m, double n, double k, double batch, Precision p, bool convolution,
                            double traffic_elems) const {
    const auto rate = matmul_rate(p);
    if (rate.value <= 0.0)
        throw std::invalid_argument("GPU '" + std::string(spec_->name) + "' has no " + std::string(to_string(p)) +
                                    " path");
    // Waves of output tiles: a partly filled last wave costs as much as a full one.
    double tiles = std::ceil(m / tile_edge) * std::ceil(n / tile_edge) * batch;
    // Split-K: with fewer output tiles than SMs and a long K (weight gradients reduce over
    // every pixel or token of the micro-batch), cuBLAS and cuDNN split K across thread
    // blocks so that every SM works (CUTLASS documents the same "split-K" and "stream-K").
    const double sms = spec_->sms;
    const double split = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / split_k_min)));
    tiles *= split;
    const double waves = std::ceil(tiles / sms);
    const double tile_flops = 2.0 * tile_edge * tile_edge * (k / split + cal_.k_fill);
    double compute = waves * sms * tile_flops / rate.value;
    if (convolution) compute /= conv_eff(p);
    const double elem = activation_bytes(p);
    const double traffic = (traffic_elems > 0 ? traffic_elems : (m * k + k * n + m * n) * batch) * elem;
    const double memory = traffic / memory_rate().value;
    return units::seconds(std::max(compute, memory) + cal_.kernel_overhead_s);
}

OpCost GpuModel::op_cost(const work::Op& op, double micro_batch, Precision p, int tp,
                         bool sequence_parallel) const {
    const double t = static_cast<double>(tp);
    double m = op.m, n = op.n, k = op.k, batch = op.batch;
    switch (op.samples) {  // the dimension a micro-batch stacks along
        case work::SampleDim::m: m *= micro_batch; break;
        case work::SampleDim::k: k *= micro_batch; break;
        case work::SampleDim::batch: batch *= micro_batch; break;
        case work::SampleDim::none: break;  // once per micro-batch
    }
    const double per_batch = op.samples == work::SampleDim::none ? 1.0 : micro_batch;
    double elems = op.fwd_elems * per_batch;
    double weights = op.weight_elems;
    double flops = op.fwd_flops * per_batch;
    // A GEMM split along m is the weight gradient of a row-parallel layer, always divided; a
    // streaming op split along m is sequence-parallel.
    const bool gemm = op.cls == work::OpClass::matmul || op.cls == work::OpClass::conv ||
                      op.cls == work::OpClass::attention;
    const bool split = op.tp != work::TpSplit::none && (op.tp != work::TpSplit::m || sequence_parallel || gemm);
    if (tp > 1 && split) {
        switch (op.tp) {
            case work::TpSplit::n: n /= t; break;
            case work::TpSplit::k: k /= t; break;
            case work::TpSplit::batch: batch /= t; break;
            case work::TpSplit::m: m /= t; break;
            case work::TpSplit::none: break;
        }
        flops /= t;
        elems /= t;
        weights /= t;
    }
    const double elem = activation_bytes(p);
    switch (op.cls) {
        case work::OpClass::matmul:
        case work::OpClass::conv:
        case work::OpClass::attention: {
            const bool conv = op.cls == work::OpClass::conv;
            // Convolutions stream their activations and weights, not the im2col matrix.
            const double traffic = conv ? elems + weights : (m * k + k * n + m * n) * batch;
            const Seconds time = gemm_time(m, n, k, batch, p, conv, traffic);
            const Bytes bytes{traffic * elem};
            return {time, Flops{flops}, bytes};
        }
        case work::OpClass::fused_attention: {
            // One thread block per 128 query rows of one head and sample (FlashAttention-2's
            // forward grid; its backward grid is over key blocks, the same count here). apex
            // FMHA runs one block per head and sample over the whole sequence (its kernels'
            // grid: blockIdx.x the head, blockIdx.y the sample).
            const double blocks = op.stores_probs ? batch : std::ceil(m / tile_edge) * batch;
            const Bytes bytes{elems * elem};
            return {attention_time(flops, blocks, bytes.value, p), Flops{flops}, bytes};
        }
        case work::OpClass::elementwise:
        case work::OpClass::normalization:
        case work::OpClass::softmax:
        case work::OpClass::embedding: {
            const Bytes bytes{(elems + weights) * elem};
            Seconds time = stream_time(bytes);
            // A streaming op with many FLOPs per byte (a neighbour search's distance tests)
            // runs at the fp32 CUDA-core rate instead; the usual few FLOPs per element
            // (GELU's 9, a norm's 7) stay far below that ridge on every catalog GPU.
            const double fp32 = matmul_rate(Precision::fp32).value;
            if (fp32 > 0.0)
                time = Seconds{std::max(time.value, flops / fp32 + cal_.kernel_overhead_s)};
            // Dependent rounds (farthest point sampling): each waits for the previous one's
            // arg-max. One thread block per sample, one block resident per SM: a micro-batch
            // larger than the SMs runs its rounds in several waves.
            if (op.serial_rounds > 0) {
                const double waves = std::ceil(micro_batch / static_cast<double>(spec_->sms));
                time += units::seconds(op.serial_rounds * waves * serial_round_latency_s);
            }
            return {time, Flops{flops}, bytes};
        }
    }
    throw std::logic_error("unhandled op class");
}

}  // namespace rentsim::compute
