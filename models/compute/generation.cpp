#include "models/compute/generation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rentsim::compute {

namespace {

bool has_flash(const work::Workload& w) {
    for (const auto& l : w.layers)
        for (const auto& op : l.ops)
            if (op.cls == work::OpClass::fused_attention) return true;
    return false;
}

}  // namespace

GenerationCost generation_cost(const work::Workload& w, const GpuModel& gpu, Precision p, double batch, int prompt,
                               int response, int tp) {
    if (w.n_layers < 1 || w.heads < 1 || w.hidden <= 0 || w.vocab <= 0 || w.domain != work::Domain::language)
        throw std::invalid_argument("generation needs a decoder-only transformer, not '" + w.name + "'");
    if (!(batch > 0) || prompt < 1 || response < 1)
        throw std::invalid_argument("generation needs a positive batch, prompt and response");
    if (tp < 1 || w.heads % tp != 0)
        throw std::invalid_argument("generation: tp " + std::to_string(tp) + " does not divide the " +
                                    std::to_string(w.heads) + " heads");
    const Precision g = gpu.attention_precision(p);
    const double e = activation_bytes(g);
    const double layers = w.n_layers, h = w.hidden, a = w.heads, f = w.ffn_hidden, v = w.vocab;
    const double kv = w.kv_heads > 0 ? w.kv_heads : a;
    const double d = h / a, group = a / kv;
    const double n_tp = tp;
    // K/V heads fewer than the tensor-parallel ranks are replicated (Megatron, vLLM).
    const double kv_here = std::max(1.0, kv / n_tp);
    const bool flash = has_flash(w);

    const auto stream = [&](double elems) { return gpu.stream_time(units::Bytes{elems * e}); };
    const auto gemm = [&](double m, double n, double k, double count = 1) { return gpu.gemm_time(m, n, k, count, g); };
    // One block for q new tokens of each sample, without the attention over the cache: the
    // norms, the QKV projection and the write of the new K and V into the cache, the output
    // projection, the MLP and the two residual adds. Each term is one kernel.
    const auto block = [&](double q) {
        const double rows = batch * q;
        units::Seconds t = stream(2 * rows * h) + gemm(rows, (a + 2 * kv) * d / n_tp, h) +
                           stream(2 * rows * kv_here * d) + gemm(rows, h, a * d / n_tp) + stream(3 * rows * h) +
                           stream(2 * rows * h) + stream(3 * rows * h);
        if (w.gated_mlp) t += gemm(rows, 2 * f / n_tp, h) + stream(3 * rows * f / n_tp);
        else t += gemm(rows, f / n_tp, h) + stream(2 * rows * f / n_tp);
        return t + gemm(rows, h, f / n_tp);
    };
    // The q new tokens of each sample against c cached keys, one fused kernel as FlashAttention
    // and Flash-Decoding run it: per sample and K/V head, the group's q x heads/kv_heads query
    // rows against K, then V. FLOPs: the two products, 4 (q group) c d per K/V head, of which
    // `share` is computed (a causal prefill skips the half above the diagonal). Traffic: Q and
    // O, and the cache's K and V read once per K/V head. Work is split into blocks of 128 query
    // rows, and along the keys in chunks of 128 when there are fewer query blocks than SMs
    // (Flash-Decoding, Dao et al. 2023: "split the keys/values in smaller chunks"), so a
    // decode step is not padded to 128 query rows as a GEMM tile would be. Without a fused
    // kernel the scores are also written and read back by the softmax.
    const auto attend = [&](double q, double c, double share) {
        const double rows = q * group, heads_kv = batch * kv_here;
        const double flops = 4 * rows * c * d * heads_kv * share;
        const double traffic = (2 * rows * d + 2 * c * d) * heads_kv * e;
        double blocks = std::ceil(rows / 128) * heads_kv;
        if (blocks < gpu.spec().sms) blocks *= std::ceil(c / 128);
        units::Seconds t = gpu.attention_time(flops, blocks, traffic, g);
        if (!flash) t += stream(2 * batch * (a / n_tp) * q * c * share);
        return t;
    };
    // The final norm, the logits of the last position only and the sampling softmax over them.
    const units::Seconds head = stream(2 * batch * h) + gemm(batch, v / n_tp, h) + stream(2 * batch * v / n_tp);
    const auto embed = [&](double q) { return stream(2 * batch * q * h); };

    GenerationCost c;
    const double P = prompt;
    c.prefill = embed(P) + (block(P) + attend(P, P, 0.5)) * layers + head;
    // The prefill's logits give the first token; each further token is one decode step whose
    // cache holds the prompt and the tokens generated so far.
    const units::Seconds fixed = embed(1) + block(1) * layers + head;
    for (int t = 1; t < response; ++t) c.decode += fixed + attend(1, P + t, 1.0) * layers;
    // Embedding, 10 block kernels and 1 or 2 attention kernels per layer, the head's 3.
    c.kernels_per_token = 1 + (10 + (flash ? 1 : 2)) * w.n_layers + 3;
    c.kv_cache = units::Bytes{2 * layers * kv_here * d * (P + response) * batch * e};
    return c;
}

}  // namespace rentsim::compute
