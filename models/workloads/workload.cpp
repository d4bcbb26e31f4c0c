#include "models/workloads/workload.hpp"

#include <stdexcept>

namespace rentsim::work {

namespace {

bool is_gemm(OpClass c) {
    return c == OpClass::matmul || c == OpClass::conv || c == OpClass::attention;
}

// dgrad keeps the forward's m and moves n into the reduction: a column-parallel (n) forward
// has a row-parallel (k) dgrad and the reverse.
TpSplit dgrad_split(TpSplit t) {
    switch (t) {
        case TpSplit::n: return TpSplit::k;
        case TpSplit::k: return TpSplit::n;
        default: return t;
    }
}

// wgrad has the forward's k as its m and reduces over the forward's m.
TpSplit wgrad_split(TpSplit t) {
    switch (t) {
        case TpSplit::k: return TpSplit::m;
        case TpSplit::m: return TpSplit::k;
        default: return t;
    }
}

template <class F>
double sum_ops(const Workload& w, F per_op) {
    double total = 0;
    for (const Layer& layer : w.layers) {
        double per_instance = 0;
        for (const Op& op : layer.ops) per_instance += per_op(op);
        total += per_instance * layer.repeat;
    }
    return total;
}

}  // namespace

std::vector<Op> backward_ops(const Op& fwd) {
    std::vector<Op> out;
    if (fwd.cls == OpClass::fused_attention) {
        // FlashAttention-2 backward (Dao 2023, Algorithm 2): recomputes S and P tile by tile
        // from Q, K and the logsumexp L, so 5 GEMMs (S = Q K^T, dV = P^T dO, dP = dO V^T,
        // dQ = dS K, dK = dS^T Q) against the forward's 2: 2.5x its FLOPs (the paper's own
        // accounting, Sec. 4.1). Traffic: reads Q, K, V, O, dO, L and writes dQ, dK, dV. The
        // forward moved Q, K, V, O and L (2 elements per row and head), so that is
        // 2 (Q + K + V + O) + L = 2 fwd_elems - L.
        Op b = fwd;
        b.name = "flash_attn_bwd";
        b.saved_elems = 0;
        b.saved_mask_elems = 0;
        b.fwd_flops = 2.5 * fwd.fwd_flops;
        b.fwd_elems = 2 * fwd.fwd_elems - 2 * fwd.m * fwd.batch;
        if (fwd.stores_probs) {
            // apex FMHA's backward (fmha_dgrad_kernel_1xN_reload.h), two kernels of two GEMMs
            // each from the stored P, against the forward's two: compute_dv_1xN reads dO, V
            // and P, forms dP = dO V^T and dS = P (dP - rowsum(P dP)), writes dS over P and
            // dV = P^T dO; compute_dq_dk_1xN reads dS, Q and K and writes dQ = dS K and
            // dK = dS^T Q. With q = s a d (Q, O, dO, dQ), kv = s kv_heads d (K, V, dK, dV)
            // and P = s^2 a: kernel 1 moves q + 2 kv + 2 P, kernel 2 2 q + 2 kv + P.
            const double P = fwd.m * fwd.n * fwd.batch;
            const double q = fwd.m * fwd.k * fwd.batch;
            const double kv = (fwd.fwd_elems - 2 * q - P) / 2;  // the forward read K and V
            Op dv = b, dqdk = b;
            dv.name = "fmha_bwd_dv";
            dv.fwd_flops = fwd.fwd_flops;
            dv.fwd_elems = q + 2 * kv + 2 * P;
            dqdk.name = "fmha_bwd_dq_dk";
            dqdk.fwd_flops = fwd.fwd_flops;
            dqdk.fwd_elems = 2 * q + 2 * kv + P;
            return {dv, dqdk};
        }
        out.push_back(b);
        return out;
    }
    if (is_gemm(fwd.cls)) {
        // Both backward GEMMs stream the same activations as the forward (dC in, dA out; or
        // A and dC in) and touch the weights, or their gradient, once.
        Op base = fwd;
        base.saved_elems = 0;
        base.saved_mask_elems = 0;
        base.input_grad = true;
        const bool weightless = fwd.cls == OpClass::attention;
        if (fwd.input_grad) {
            Op d = base;
            d.name = weightless ? "dgrad_lhs" : "dgrad";
            d.n = fwd.k;
            d.k = fwd.n;
            d.tp = dgrad_split(fwd.tp);
            d.fwd_flops = 2 * d.m * d.n * d.k * d.batch;
            out.push_back(d);
        }
        Op w = base;
        w.name = weightless ? "dgrad_rhs" : "wgrad";
        w.m = fwd.k;
        w.n = fwd.n;
        w.k = fwd.m;
        w.tp = wgrad_split(fwd.tp);
        // A weight gradient sums over every sample of the micro-batch; per-head gradients
        // of attention stay one GEMM per head and sample.
        if (fwd.samples == SampleDim::m) w.samples = SampleDim::k;
        w.fwd_flops = 2 * w.m * w.n * w.k * w.batch;
        out.push_back(w);
        return out;
    }
    // Farthest point sampling, ball query and kNN produce indices: nothing to differentiate.
    if (!fwd.input_grad) return out;
    Op b = fwd;
    b.name = "bwd";
    b.serial_rounds = 0;
    b.saved_elems = 0;
    b.saved_mask_elems = 0;
    // Reads the output gradient and what was saved, writes the input gradient.
    b.fwd_elems = 1.5 * fwd.fwd_elems;
    switch (fwd.cls) {
        case OpClass::normalization: b.fwd_flops = 2 * fwd.fwd_flops; break;
        case OpClass::embedding: b.fwd_flops = fwd.m * fwd.n * fwd.batch; break;
        default: b.fwd_flops = fwd.fwd_flops; break;
    }
    out.push_back(b);
    return out;
}

double Workload::params() const {
    double total = 0;
    for (const Layer& layer : layers) total += layer.params * layer.repeat;
    return total;
}

double Workload::fwd_flops_per_sample() const {
    return sum_ops(*this, [](const Op& op) { return op.fwd_flops; });
}

double Workload::train_flops_per_sample() const {
    return sum_ops(*this, [](const Op& op) {
        double f = op.fwd_flops;
        for (const Op& b : backward_ops(op)) f += b.fwd_flops;
        return f;
    });
}

double Workload::matmul_params() const {
    if (seq_len <= 0) return 0;
    const double s = seq_len;
    return sum_ops(*this, [s](const Op& op) {
        const bool per_token = op.cls == OpClass::matmul && op.samples != SampleDim::none;
        return per_token ? op.weight_elems * op.m / s : 0.0;
    });
}

double Workload::model_flops_per_token() const {
    if (domain != Domain::language || seq_len <= 0)
        throw std::logic_error("model_flops_per_token: '" + name +
                               "' is not a language workload; use train_flops_per_sample");
    return 6 * matmul_params() + 12.0 * n_layers * hidden * seq_len;
}

}  // namespace rentsim::work
