#include "models/compute/step.hpp"

namespace rentsim::compute {

using units::Bytes;
using units::Flops;
using units::Seconds;

StepCost plan_step(const work::Workload& w, const GpuModel& gpu, const StepConfig& cfg) {
    StepCost out;
    out.optimizer_kind = w.domain == work::Domain::vision ? Optimizer::sgd_momentum : Optimizer::adam;
    const double tp = cfg.tp;
    double fwd_flops = 0, saved_elems = 0;
    for (const auto& layer : w.layers) {
        LayerCost lc{layer.name, Seconds{}, Seconds{}, 0.0, 0};
        double layer_saved = 0, layer_flops = 0;
        bool split = false;
        for (const auto& op : layer.ops) {
            const auto f = gpu.op_cost(op, cfg.micro_batch, cfg.precision, cfg.tp);
            lc.fwd += f.time;
            layer_flops += op.fwd_flops;
            // Dropout masks are one byte whatever the precision: count them in activation elements.
            layer_saved += (op.saved_elems + op.saved_mask_elems / activation_bytes(cfg.precision)) /
                           (op.tp == work::TpSplit::none ? 1.0 : tp);
            split = split || op.tp != work::TpSplit::none;
            for (const auto& b : work::backward_ops(op)) {
                lc.bwd += gpu.op_cost(b, cfg.micro_batch, cfg.precision, cfg.tp).time;
                ++lc.kernels;
            }
            ++lc.kernels;
        }
        // Full recomputation replays the forward during backward.
        if (cfg.recompute == Recompute::full) lc.bwd += lc.fwd;
        lc.params = layer.params / (split ? tp : 1.0);
        for (int r = 0; r < layer.repeat; ++r) out.layers.push_back(lc);
        out.fwd += lc.fwd * layer.repeat;
        out.bwd += lc.bwd * layer.repeat;
        out.params += lc.params * layer.repeat;
        fwd_flops += layer_flops * layer.repeat;
        saved_elems += layer_saved * layer.repeat;
    }
    out.model_flops_per_sample = Flops{3.0 * fwd_flops};
    out.hardware_flops_per_sample =
        Flops{(cfg.recompute == Recompute::full ? 4.0 : 3.0) * fwd_flops};

    const bool adam = out.optimizer_kind == Optimizer::adam;
    const double shard = cfg.zero >= 1 ? static_cast<double>(cfg.dp) : 1.0;
    out.optimizer = gpu.stream_time(Bytes{out.params / shard * (adam ? adam_bytes_per_param : sgd_bytes_per_param)});

    const double grad_elem = is_mixed(cfg.precision) ? 2.0 : 4.0;
    out.gradient_bytes = Bytes{out.params * grad_elem};

    MemoryUse& m = out.memory;
    const double weight_b = is_mixed(cfg.precision) ? 2.0 : 4.0;
    const double grad_shard = cfg.zero >= 2 ? cfg.dp : 1.0;
    const double weight_shard = cfg.zero >= 3 ? cfg.dp : 1.0;
    const double state_b = adam ? (is_mixed(cfg.precision) ? 12.0 : 8.0) : (is_mixed(cfg.precision) ? 8.0 : 4.0);
    m.weights = Bytes{out.params * weight_b / weight_shard};
    m.gradients = Bytes{out.params * grad_elem / grad_shard};
    m.optimizer = Bytes{out.params * state_b / shard};
    double act = saved_elems * cfg.micro_batch * activation_bytes(cfg.precision);
    if (cfg.recompute == Recompute::full) act = 0.0;  // only layer inputs kept; counted below
    if (cfg.recompute == Recompute::full) {
        // One input per layer boundary plus one layer's activations live at a time.
        double per_layer_max = 0;
        for (const auto& layer : w.layers) {
            double s = 0;
            for (const auto& op : layer.ops) s += op.saved_elems / (op.tp == work::TpSplit::none ? 1.0 : tp);
            per_layer_max = std::max(per_layer_max, s);
        }
        act = (per_layer_max + static_cast<double>(w.n_layers) * w.seq_len * w.hidden) * cfg.micro_batch *
              activation_bytes(cfg.precision);
    }
    m.activations = Bytes{act};
    m.reserved = units::gib(reserved_gib);
    return out;
}

}  // namespace rentsim::compute
