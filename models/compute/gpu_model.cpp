#include "models/compute/gpu_model.hpp"

#include <cmath>
#include <stdexcept>

namespace rentsim::compute {

using units::Bytes;
using units::Flops;
using units::Seconds;

GpuModel::GpuModel(const GpuSpec& spec, Calibration cal) : spec_(&spec), cal_(std::move(cal)) {}

units::FlopsPerSecond GpuModel::matmul_rate(Precision p) const {
    const double eff = cal_.matmul_eff[static_cast<std::size_t>(p)];
    return peak(*spec_, p) * eff;
}

units::BytesPerSecond GpuModel::memory_rate() const { return hbm_bandwidth(*spec_) * cal_.mem_eff; }

Seconds GpuModel::stream_time(Bytes bytes) const {
    return bytes / memory_rate() + units::seconds(cal_.kernel_overhead_s);
}

Seconds GpuModel::gemm_time(double m, double n, double k, double batch, Precision p, bool convolution) const {
    const auto rate = matmul_rate(p);
    if (rate.value <= 0.0)
        throw std::invalid_argument("GPU '" + std::string(spec_->name) + "' has no " + std::string(to_string(p)) +
                                    " path");
    // Waves of output tiles: a partly filled last wave costs as much as a full one.
    const double tiles = std::ceil(m / tile_edge) * std::ceil(n / tile_edge) * batch;
    const double waves = std::ceil(tiles / spec_->sms);
    const double tile_flops = 2.0 * tile_edge * tile_edge * (k + cal_.k_fill);
    double compute = waves * spec_->sms * tile_flops / rate.value;
    if (convolution) compute /= cal_.conv_eff;
    const double elem = activation_bytes(p);
    const double traffic = (m * k + k * n + m * n) * batch * elem;
    const double memory = traffic / memory_rate().value;
    return units::seconds(std::max(compute, memory) + cal_.kernel_overhead_s);
}

OpCost GpuModel::op_cost(const work::Op& op, double micro_batch, Precision p, int tp) const {
    const double t = static_cast<double>(tp);
    double m = op.m, n = op.n, k = op.k, batch = op.batch;
    switch (op.samples) {  // the dimension a micro-batch stacks along
        case work::SampleDim::m: m *= micro_batch; break;
        case work::SampleDim::k: k *= micro_batch; break;
        case work::SampleDim::batch: batch *= micro_batch; break;
    }
    double elems = op.fwd_elems * micro_batch;
    double weights = op.weight_elems;
    double flops = op.fwd_flops * micro_batch;
    if (tp > 1) {
        switch (op.tp) {
            case work::TpSplit::n: n /= t; break;
            case work::TpSplit::k: k /= t; break;
            case work::TpSplit::batch: batch /= t; break;
            case work::TpSplit::m: m /= t; break;
            case work::TpSplit::none: break;
        }
        if (op.tp != work::TpSplit::none) {
            flops /= t;
            elems /= t;
            weights /= t;
        }
    }
    const double elem = activation_bytes(p);
    switch (op.cls) {
        case work::OpClass::matmul:
        case work::OpClass::conv:
        case work::OpClass::attention: {
            const bool conv = op.cls == work::OpClass::conv;
            const Seconds time = gemm_time(m, n, k, batch, p, conv);
            const Bytes bytes{(m * k + k * n + m * n) * batch * elem};
            return {time, Flops{flops}, bytes};
        }
        case work::OpClass::elementwise:
        case work::OpClass::normalization:
        case work::OpClass::softmax:
        case work::OpClass::embedding: {
            const Bytes bytes{(elems + weights) * elem};
            return {stream_time(bytes), Flops{flops}, bytes};
        }
    }
    throw std::logic_error("unhandled op class");
}

}  // namespace rentsim::compute
