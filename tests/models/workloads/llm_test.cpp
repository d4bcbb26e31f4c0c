// FlashAttention as an op form, the Llama 3 / Mistral / MPT presets and Transformer-XL:
// hand-computed FLOPs, traffic and stash, and parameter counts against their sources.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "models/workloads/zoo.hpp"

using namespace rentsim::work;

namespace {

double rel_err(double actual, double published) { return std::abs(actual / published - 1); }

const Layer& layer(const Workload& w, std::string_view name) {
    for (const Layer& l : w.layers)
        if (l.name == name) return l;
    FAIL("no layer " << name << " in " << w.name);
    return w.layers.front();
}

bool has_op(const Layer& l, std::string_view name) {
    for (const Op& o : l.ops)
        if (o.name == name) return true;
    return false;
}

const Op& op(const Layer& l, std::string_view name) {
    for (const Op& o : l.ops)
        if (o.name == name) return o;
    FAIL("no op " << name << " in layer " << l.name);
    return l.ops.front();
}

Workload preset(std::string_view name) {
    const Preset* p = find_gpt_preset(name);
    REQUIRE(p != nullptr);
    return gpt(p->shape, std::string(name));
}

Workload txl(std::string_view name) {
    const TxlPreset* p = find_txl_preset(name);
    REQUIRE(p != nullptr);
    return transformer_xl(p->shape, std::string(name));
}

// A block's stash in bytes with 16-bit activations and one-byte masks.
double stash_bytes(const Workload& w) {
    double bytes = 0;
    for (const Op& o : layer(w, "block").ops) bytes += 2 * o.saved_elems + o.saved_mask_elems;
    return bytes;
}

// 1 layer, hidden 256, 4 heads of 64, 128 tokens, no dropout.
GptShape small(AttentionKind kind) {
    return GptShape{.layers = 1, .hidden = 256, .heads = 4, .seq_len = 128, .vocab = 100,
                    .dropout = false, .attention = kind};
}

}  // namespace

// ---- FlashAttention ----------------------------------------------------------------------

TEST_CASE("flash attention is one op between QKV and the projection") {
    const Workload w = gpt(small(AttentionKind::flash));
    const Layer& b = layer(w, "block");
    for (const char* gone : {"attn_scores", "attn_softmax", "attn_dropout", "attn_context"})
        CHECK_FALSE(has_op(b, gone));
    std::size_t qkv = 0, flash = 0, proj = 0;
    for (std::size_t i = 0; i < b.ops.size(); ++i) {
        if (b.ops[i].name == "qkv") qkv = i;
        if (b.ops[i].name == "flash_attn") flash = i;
        if (b.ops[i].name == "attn_proj") proj = i;
    }
    CHECK(flash == qkv + 1);
    CHECK(proj == flash + 1);
    const Op& f = b.ops[flash];
    CHECK(f.cls == OpClass::fused_attention);
    CHECK(f.m == 128);
    CHECK(f.n == 128);
    CHECK(f.k == 64);
    CHECK(f.batch == 4);
    CHECK(f.tp == TpSplit::batch);
    CHECK(f.samples == SampleDim::batch);
    // Llama: rotary sits between QKV and the flash kernel.
    const Workload llama_model = preset("llama3-8b");
    const Layer& llama = layer(llama_model, "block");
    for (std::size_t i = 0; i + 1 < llama.ops.size(); ++i)
        if (llama.ops[i].name == "flash_attn") CHECK(llama.ops[i - 1].name == "rotary");
}

TEST_CASE("flash attention FLOPs: two GEMMs and the softmax, halved when causal") {
    // s = 128, d = 64, a = 4: 4 s^2 d a = 16,777,216 GEMM FLOPs, 5 s^2 a = 327,680 softmax.
    const Op causal = op(layer(gpt(small(AttentionKind::flash)), "block"), "flash_attn");
    CHECK(causal.fwd_flops == (16'777'216.0 + 327'680.0) / 2);
    GptShape both_ways = small(AttentionKind::flash);
    both_ways.causal = false;
    CHECK(op(layer(gpt(both_ways), "block"), "flash_attn").fwd_flops == 16'777'216.0 + 327'680.0);
    // In-kernel dropout adds its compare-and-scale (2 per score), no mask.
    GptShape dropout = small(AttentionKind::flash);
    dropout.dropout = true;
    const Op d = op(layer(gpt(dropout), "block"), "flash_attn");
    CHECK(d.fwd_flops == (16'777'216.0 + 7 * 65'536.0) / 2);
    CHECK(d.saved_mask_elems == 0);
    CHECK_FALSE(has_op(layer(gpt(dropout), "block"), "attn_dropout"));
    CHECK(has_op(layer(gpt(dropout), "block"), "attn_out_dropout"));
}

TEST_CASE("a sliding window skips the keys outside it") {
    // Mistral 7B: s = 8192, window 4096: (s w - w^2 / 2) / s^2 = 0.375 of the pairs.
    const Workload w = preset("mistral-7b");
    const Op& f = op(layer(w, "block"), "flash_attn");
    const double s = 8192, d = 128, a = 32;
    CHECK(f.fwd_flops == doctest::Approx((4 * s * s * d * a + 5 * s * s * a) * 0.375));
    GptShape full = find_gpt_preset("mistral-7b")->shape;
    full.window = 0;
    CHECK(op(layer(gpt(full), "block"), "flash_attn").fwd_flops ==
          doctest::Approx((4 * s * s * d * a + 5 * s * s * a) * 0.5));
}

TEST_CASE("flash attention traffic reads K and V once per KV head (GQA) and has no s^2 term") {
    // hidden 512, 8 heads of 64, 2 KV heads, s = 128.
    GptShape g{.layers = 1, .hidden = 512, .heads = 8, .seq_len = 128, .vocab = 100,
               .kv_heads = 2, .dropout = false, .attention = AttentionKind::flash};
    const Op f = op(layer(gpt(g), "block"), "flash_attn");
    const double q = 128.0 * 8 * 64;        // Q, and O
    const double kv = 2 * 128.0 * 2 * 64;   // K and V
    const double lse = 2 * 128.0 * 8;       // fp32 logsumexp per row and head
    CHECK(f.fwd_elems == q + kv + q + lse);  // 165,888
    CHECK(f.fwd_elems == 165'888);
    CHECK(f.saved_elems == q + kv + lse);    // O is attn_proj's input, stashed there
    // Doubling s doubles the traffic: no s^2 term.
    g.seq_len = 256;
    CHECK(op(layer(gpt(g), "block"), "flash_attn").fwd_elems == 2 * 165'888);
}

TEST_CASE("flash backward is one op of 2.5x the forward FLOPs") {
    const Op f = op(layer(gpt(small(AttentionKind::flash)), "block"), "flash_attn");
    const auto bwd = backward_ops(f);
    REQUIRE(bwd.size() == 1);
    CHECK(bwd[0].name == "flash_attn_bwd");
    CHECK(bwd[0].cls == OpClass::fused_attention);
    CHECK(bwd[0].fwd_flops == 2.5 * f.fwd_flops);
    CHECK(bwd[0].saved_elems == 0);
    // Reads Q, K, V, O, dO (s a d each, MHA) and the logsumexp (2 s a), writes dQ, dK, dV.
    const double t = 128.0 * 4 * 64, lse = 2 * 128.0 * 4;
    CHECK(bwd[0].fwd_elems == 5 * t + lse + 3 * t);
    CHECK(bwd[0].tp == TpSplit::batch);
    CHECK(bwd[0].samples == SampleDim::batch);
}

TEST_CASE("flash removes the 5 a s^2 term of Korthikanti et al.'s stash") {
    // GPT-3 13B: s = 2048, h = 5120, a = 40, with dropout. Unfused: s h (34 + 5 a s / h)
    // bytes per layer. Flash: 34 s h plus the logsumexp, 2 s a elements (4 s a bytes).
    const double s = 2048, h = 5120, a = 40;
    GptShape g = find_gpt_preset("gpt3-13b")->shape;
    const double unfused = stash_bytes(gpt(g));
    g.attention = AttentionKind::flash;
    const double flash = stash_bytes(gpt(g));
    CHECK(unfused == doctest::Approx(s * h * (34 + 5 * a * s / h)).epsilon(1e-12));
    CHECK(flash == doctest::Approx(34 * s * h + 4 * s * a).epsilon(1e-12));
    CHECK(unfused - flash == doctest::Approx(5 * a * s * s - 4 * s * a).epsilon(1e-12));
    // Without dropout the two masks go as well: 32 s h + 4 s a.
    g.dropout = false;
    CHECK(stash_bytes(gpt(g)) == doctest::Approx(32 * s * h + 4 * s * a).epsilon(1e-12));
}

TEST_CASE("the MFU convention does not change with the attention kernel") {
    for (const char* name : {"gpt3-1.3b", "llama2-7b", "mpt-7b"}) {
        GptShape g = find_gpt_preset(name)->shape;
        g.attention = AttentionKind::unfused;
        const Workload unfused = gpt(g);
        g.attention = AttentionKind::flash;
        const Workload flash = gpt(g);
        CAPTURE(name);
        CHECK(flash.model_flops_per_token() == unfused.model_flops_per_token());
        CHECK(flash.params() == unfused.params());
        CHECK(flash.train_flops_per_sample() < unfused.train_flops_per_sample());
    }
}

TEST_CASE("BERT with flash attention attends both ways and keeps its parameters") {
    const Workload unfused = bert("base", 128);
    const Workload flash = bert("base", 128, AttentionKind::flash);
    CHECK(flash.params() == unfused.params());
    const Op& f = op(layer(flash, "encoder"), "flash_attn");
    // Not causal, dropout 0.1 in-kernel: 4 s^2 d a + (5 + 2) s^2 a, s = 128, d = 64, a = 12.
    const double s = 128, d = 64, a = 12;
    CHECK(f.fwd_flops == 4 * s * s * d * a + 7 * s * s * a);
    CHECK_FALSE(has_op(layer(flash, "encoder"), "attn_dropout"));
    CHECK(bert_squad("large", 384, AttentionKind::flash).params() == bert_squad("large").params());
}

TEST_CASE("BERT with apex fmha: the flash kernel's FLOPs, plus the stored probabilities, and a 4-GEMM backward") {
    const Workload fmha = bert("large", 512, AttentionKind::fmha);
    CHECK(fmha.params() == bert("large", 512).params());
    const Op& f = op(layer(fmha, "encoder"), "fmha");
    const Workload flash_bert = bert("large", 512, AttentionKind::flash);
    const Op& flash = op(layer(flash_bert, "encoder"), "flash_attn");
    const double s = 512, d = 64, a = 16;
    CHECK(f.fwd_flops == flash.fwd_flops);
    CHECK(f.fwd_flops == 4 * s * s * d * a + 7 * s * s * a);
    // Forward: Q, K, V in (3 s a d), O (s a d) and the probabilities (s^2 a) out; stash Q, K,
    // V and the probabilities; no logsumexp.
    CHECK(f.fwd_elems == 4 * s * a * d + s * s * a);
    CHECK(f.saved_elems == 3 * s * a * d + s * s * a);
    CHECK(f.stores_probs);
    CHECK_FALSE(flash.stores_probs);
    // Backward: two kernels of two GEMMs each from the stored P (2x the forward in all).
    // dV kernel: reads dO, V, P, writes dS over P and dV: 3 s a d + 2 s^2 a. dQ/dK kernel:
    // reads dS, Q, K, writes dQ, dK: 4 s a d + s^2 a.
    const auto bwd = backward_ops(f);
    REQUIRE(bwd.size() == 2);
    CHECK(bwd[0].name == "fmha_bwd_dv");
    CHECK(bwd[1].name == "fmha_bwd_dq_dk");
    CHECK(bwd[0].fwd_flops + bwd[1].fwd_flops == 2 * f.fwd_flops);
    CHECK(bwd[0].fwd_elems == 3 * s * a * d + 2 * s * s * a);
    CHECK(bwd[1].fwd_elems == 4 * s * a * d + s * s * a);
    CHECK(bwd[1].stores_probs);  // one block per head and sample, as the forward
    CHECK(backward_ops(flash)[0].fwd_flops == 2.5 * flash.fwd_flops);
}

TEST_CASE("presets: GPT-3 stays unfused, Llama and MPT use flash") {
    for (const Preset& p : gpt_presets()) {
        CAPTURE(p.name);
        const bool gpt3 = p.name.starts_with("gpt3-");
        CHECK((p.shape.attention == AttentionKind::unfused) == gpt3);
        CHECK(p.shape.causal);
    }
}

TEST_CASE("ALiBi positions have no table and no rotary op") {
    GptShape g{.layers = 2, .hidden = 256, .heads = 4, .seq_len = 128, .vocab = 100};
    const Workload learned = gpt(g);
    g.positions = Positions::alibi;
    const Workload alibi = gpt(g);
    CHECK(learned.params() - alibi.params() == 128.0 * 256);
    CHECK_FALSE(has_op(layer(alibi, "embedding"), "pos_embed"));
    CHECK_FALSE(has_op(layer(alibi, "block"), "rotary"));
    g.positions = Positions::rotary;
    CHECK(has_op(layer(gpt(g), "block"), "rotary"));
}

// ---- Llama 3, Mistral, MPT ---------------------------------------------------------------

TEST_CASE("Llama 3 and 3.1 sizes match the released models") {
    // Meta's released checkpoints: 8.03B, 70.6B and 405.9B parameters (Llama 3 8B: 8,030,261,248).
    CHECK(rel_err(preset("llama3-8b").params(), 8.03e9) < 0.01);
    CHECK(preset("llama3-8b").params() == 8'030'261'248.0);
    CHECK(preset("llama3.1-8b").params() == preset("llama3-8b").params());
    CHECK(rel_err(preset("llama3-70b").params(), 70.6e9) < 0.01);
    CHECK(rel_err(preset("llama3.1-70b").params(), 70.6e9) < 0.01);
    CHECK(rel_err(preset("llama3.1-405b").params(), 405.9e9) < 0.01);
    const Workload w = preset("llama3.1-405b");
    CHECK(w.kv_heads == 8);
    CHECK(w.seq_len == 8192);
    CHECK(op(layer(w, "block"), "qkv").n == 16384 + 2 * 8 * 128);
}

TEST_CASE("the presets reproduce the shapes of their measured.csv rows") {
    // models/compute/measurements/measured.csv (layers, hidden, heads, seq_len, vocab, ffn_hidden,
    // kv_heads): TTN-036 llama3-8b, TTN-001 llama3.1-8b, TTN-038 llama3-70b, TTN-011
    // llama3.1-70b, TTN-013 llama3.1-405b, TTN-039 llama2-13b, TTN-042 llama2-70b, and the
    // seq-2048 LFO rows of the MPTs (kv_heads blank: MHA).
    struct Row {
        std::string_view name;
        int layers, hidden, heads, seq_len, vocab, ffn, kv;
    };
    const Row rows[] = {
        {"llama3-8b", 32, 4096, 32, 8192, 128256, 14336, 8},
        {"llama3.1-8b", 32, 4096, 32, 8192, 128256, 14336, 8},
        {"llama3-70b", 80, 8192, 64, 8192, 128256, 28672, 8},
        {"llama3.1-70b", 80, 8192, 64, 8192, 128256, 28672, 8},
        {"llama3.1-405b", 126, 16384, 128, 8192, 128256, 53248, 8},
        {"llama2-13b", 40, 5120, 40, 4096, 32000, 13824, 40},
        {"llama2-70b", 80, 8192, 64, 4096, 32000, 28672, 8},
        {"mpt-1b", 24, 2048, 16, 2048, 50368, 8192, 16},
        {"mpt-3b", 32, 2560, 20, 2048, 50368, 10240, 20},
        {"mpt-7b", 32, 4096, 32, 2048, 50368, 16384, 32},
        {"mpt-13b", 40, 5120, 40, 2048, 50368, 20480, 40},
        {"mpt-30b", 48, 7168, 56, 2048, 50368, 28672, 56},
        {"mpt-70b", 80, 8192, 64, 2048, 50368, 32768, 64},
    };
    for (const Row& r : rows) {
        CAPTURE(r.name);
        const Workload w = preset(r.name);
        CHECK(w.n_layers == r.layers);
        CHECK(w.hidden == r.hidden);
        CHECK(w.heads == r.heads);
        CHECK(w.seq_len == r.seq_len);
        CHECK(w.vocab == r.vocab);
        CHECK(w.ffn_hidden == r.ffn);
        CHECK(w.kv_heads == r.kv);
        CHECK(w.gated_mlp == r.name.starts_with("llama"));
    }
}

TEST_CASE("MPT sizes match llm-foundry's benchmark table to the parameter") {
    // mosaicml/llm-foundry scripts/train/benchmarking/README.md, NumParams at seq 2048
    // (H100 BF16 table): MPTConfig's defaults (biases, learned positions, tied) give these
    // exactly; the table's NumParams grows by seq_len x d_model with the sequence length.
    const std::pair<std::string_view, double> table[] = {
        {"mpt-760m", 760'470'528},       {"mpt-1b", 1'315'950'592},
        {"mpt-3b", 2'651'837'440},       {"mpt-7b", 6'658'859'008},
        {"mpt-13b", 12'853'954'560},     {"mpt-30b", 29'975'214'080},
        {"mpt-70b", 64'862'437'376}};
    for (const auto& entry : table) {
        const auto name = entry.first;
        const auto published = entry.second;
        CAPTURE(name);
        CHECK(preset(name).params() == published);
    }
    CHECK(rel_err(preset("mpt-7b").params(), 6.7e9) < 0.01);
    // Same table, 7B at seq 4096: 6,667,247,616.
    GptShape g = find_gpt_preset("mpt-7b")->shape;
    g.seq_len = 4096;
    CHECK(gpt(g).params() == 6'667'247'616.0);
    // FP8 table, 350M at seq 512: 354,412,544.
    g = find_gpt_preset("mpt-350m")->shape;
    g.seq_len = 512;
    CHECK(gpt(g).params() == 354'412'544.0);
}

// ---- Transformer-XL ----------------------------------------------------------------------

TEST_CASE("Transformer-XL presets reproduce NVIDIA DeepLearningExamples' shapes") {
    // measured.csv DLE-131 / LMB-007: 16 layers, d_model 512, 8 heads, seq 192 (base);
    // LMB-009: 18 layers, 1024, 16 heads (large, Lambda's fork at tgt_len = mem_len = 256).
    const Workload base = txl("transformer-xl-base");
    CHECK(base.n_layers == 16);
    CHECK(base.hidden == 512);
    CHECK(base.heads == 8);
    CHECK(base.seq_len == 192);
    CHECK(base.vocab == 267735);
    CHECK(base.ffn_hidden == 2048);
    const Workload large = txl("transformer-xl");
    CHECK(large.n_layers == 18);
    CHECK(large.hidden == 1024);
    CHECK(large.heads == 16);
    CHECK(large.seq_len == 384);  // DLE's wt103_large.yaml
    TxlShape lambda = find_txl_preset("transformer-xl")->shape;
    lambda.tgt_len = lambda.mem_len = 256;
    CHECK(transformer_xl(lambda).seq_len == 256);
    CHECK(find_txl_preset("transformer-xl-large") == nullptr);
}

TEST_CASE("Transformer-XL parameters follow DLE's modules") {
    // Base, div_val 1: word table V x 512 (output tied), per layer qkv 3 h^2 + r_net h^2 +
    // o_net h^2 + FFN (2 h f + f + h) + two LayerNorms (4 h), shared u and v biases 2 a d,
    // cluster logits 3 h + 3 and output biases V.
    const double v = 267735;
    {
        const double h = 512, f = 2048, a = 8, d = 64;
        const double layer_params = 5 * h * h + 2 * h * f + f + h + 4 * h;
        const double expected = v * h + 16 * layer_params + 2 * a * d + 3 * h + 3 + v;
        CHECK(txl("transformer-xl-base").params() == expected);
        CHECK(expected == 191'950'298);
    }
    {
        // Large, div_val 4: cluster tables of widths 1024, 256, 64, 16 and their projections
        // to 1024, plus the head's own output projection (tie_projs[0] false).
        const double h = 1024, f = 4096, a = 16, d = 64;
        const double tables = 19997 * 1024.0 + 20000 * 256.0 + 160000 * 64.0 + 67738 * 16.0;
        const double projs = h * (1024 + 256 + 64 + 16);
        const double layer_params = 5 * h * h + 2 * h * f + f + h + 4 * h;
        const double expected = tables + projs + 18 * layer_params + 2 * a * d + 3 * h + 3 + v + h * h;
        CHECK(txl("transformer-xl").params() == expected);
        CHECK(expected == 285'167'482);
    }
    // Dai et al. 2019, Table 1: the original base (d_model 410, 10 heads of 41, d_inner 2100,
    // div_val 1, cutoffs 20000/40000/200000) has 151M parameters. (Their large is listed at
    // 257M; DLE's modules, the same shape as the reference code's, count 285M.)
    const TxlShape original{.layers = 16, .d_model = 410, .heads = 10, .d_head = 41, .d_inner = 2100,
                            .tgt_len = 150, .mem_len = 150, .vocab = 267735,
                            .cutoffs = {20000, 40000, 200000}};
    CHECK(rel_err(transformer_xl(original).params(), 151e6) < 0.01);
}

TEST_CASE("Transformer-XL with a full softmax counts what Lambda's logged runs count") {
    // lambdal/deeplearning-benchmark logs of DLE's train.py without --adaptive (adaptive=False,
    // div_val=1): base "n_all_param : 191948759", "n_nonemb_param : 54599680"; large (tgt_len =
    // mem_len = 256) "n_all_param : 519963095", "n_nonemb_param : 245532672". One V x h table
    // tied to the output, V output biases, no cluster logits.
    TxlShape base = find_txl_preset("transformer-xl-base")->shape;
    base.cutoffs = {};
    CHECK(transformer_xl(base).params() == 191'948'759);
    TxlShape large = find_txl_preset("transformer-xl")->shape;
    large.cutoffs = {};
    large.div_val = 1;
    large.tgt_len = large.mem_len = 256;
    CHECK(transformer_xl(large).params() == 519'963'095);
    // The blocks alone are the logs' non-embedding counts (plus the shared u, v biases and the
    // output biases, which the log counts as embedding).
    const double v = 267735;
    CHECK(transformer_xl(base).params() - v * 512 - v - 2 * 512 == 54'599'680);
    CHECK(transformer_xl(large).params() - v * 1024 - v - 2 * 1024 == 245'532'672);
}

TEST_CASE("Transformer-XL attends over the segment and its memory with relative positions") {
    const Workload w = txl("transformer-xl-base");
    const Layer& b = layer(w, "block");
    const double q = 192, kl = 384, h = 512, a = 8, d = 64;
    // QKV over the concatenation of memory and segment.
    CHECK(op(b, "qkv").m == kl);
    CHECK(op(b, "mem_concat").saved_elems == 192 * h);
    // Content and position scores, q x kl x d per head.
    for (const char* name : {"attn_ac", "attn_bd"}) {
        const Op& s = op(b, name);
        CHECK(s.m == q);
        CHECK(s.n == kl);
        CHECK(s.k == d);
        CHECK(s.batch == a);
        CHECK(s.fwd_flops == 2 * q * kl * d * a);
    }
    // R is shared by the samples: the position GEMM stacks the micro-batch's queries, and
    // r_net runs once per micro-batch.
    CHECK(op(b, "attn_bd").samples == SampleDim::m);
    const Op& r = op(b, "r_net");
    CHECK(r.samples == SampleDim::none);
    CHECK_FALSE(r.input_grad);
    CHECK(backward_ops(r).size() == 1);
    CHECK(op(b, "attn_softmax").fwd_elems == 2 * a * q * kl);
    // Base has no attention dropout (dropatt 0), large does (0.2).
    CHECK_FALSE(has_op(b, "attn_dropout"));
    CHECK(has_op(layer(txl("transformer-xl"), "block"), "attn_dropout"));
    // r_net's weights are not per-token work in the MFU count.
    double per_token = 0;
    for (const Layer& l : w.layers)
        for (const Op& o : l.ops)
            if (o.cls == OpClass::matmul && o.name != "r_net") per_token += o.weight_elems * o.m / q * l.repeat;
    CHECK(w.matmul_params() == doctest::Approx(per_token).epsilon(1e-12));
}

TEST_CASE("Transformer-XL's adaptive softmax scores the head for every token, tails for theirs") {
    const Workload w = txl("transformer-xl-base");
    const Layer& head = layer(w, "head");
    const Op& h = op(head, "softmax_head");
    CHECK(h.m == 192);
    CHECK(h.n == 19997 + 3);  // shortlist and one logit per tail
    const double tails = op(head, "softmax_tail1").m + op(head, "softmax_tail2").m + op(head, "softmax_tail3").m;
    CHECK(op(head, "tail_gather").m == doctest::Approx(tails));
    // Zipf shares of the clusters add up to every token.
    const double head_share = 1 - tails / 192;
    CHECK(head_share == doctest::Approx(0.8016).epsilon(1e-3));
    CHECK(op(head, "softmax_tail2").n == 160000);
    CHECK(op(head, "softmax_tail3").n == 267735 - 199997);
    // A vocabulary without cutoffs is one full softmax.
    TxlShape full = find_txl_preset("transformer-xl-base")->shape;
    full.cutoffs = {};
    const Workload one_model = transformer_xl(full);
    const Layer& one = layer(one_model, "head");
    CHECK(op(one, "softmax_head").n == 267735);
    CHECK_FALSE(has_op(one, "softmax_tail1"));
}

TEST_CASE("bad Transformer-XL shapes are rejected with the model named") {
    TxlShape s = find_txl_preset("transformer-xl-base")->shape;
    s.cutoffs = {39997, 19997, 0};
    CHECK_THROWS_WITH_AS(transformer_xl(s, "x"),
                         "transformer-xl 'x': cutoffs must ascend and lie below the vocabulary, got 19997",
                         std::invalid_argument);
    CHECK_THROWS_AS(transformer_xl(TxlShape{}), std::invalid_argument);
    s = find_txl_preset("transformer-xl")->shape;
    s.div_val = 2048;
    CHECK_THROWS_AS(transformer_xl(s), std::invalid_argument);
}
