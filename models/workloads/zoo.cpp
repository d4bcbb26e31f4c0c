#include "models/workloads/zoo.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace rentsim::work {

namespace {

// FLOPs per element of the non-GEMM ops, counting each add, multiply, compare, divide and
// transcendental (exp, tanh) as one; the README derives each from its formula.
constexpr double add_flops = 1;
constexpr double relu_flops = 1;
constexpr double tanh_flops = 1;
constexpr double dropout_flops = 2;       // compare with a random number, scale
constexpr double gelu_flops = 9;          // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
constexpr double swiglu_flops = 5;        // g / (1 + exp(-g)) * u, per output element
constexpr double rotary_flops = 3;        // x cos + rotate(x) sin
constexpr double layer_norm_flops = 7;    // mean, centre, square-accumulate, scale, gain, bias
constexpr double batch_norm_flops = 7;    // as layer norm, statistics over the batch instead
constexpr double rms_norm_flops = 4;      // square-accumulate, scale, gain
constexpr double softmax_flops = 5;       // max, subtract, exp, sum, divide
constexpr double maxpool3_flops = 8;      // comparisons per output of a 3x3 window

// ---------------------------------------------------------------------------------------
// Op constructors. `saved` is what the op itself stashes for backward (see Op::saved_elems).

Op matmul(std::string_view name, double m, double n, double k, double weights, double saved,
          TpSplit tp) {
    return Op{.name = name, .cls = OpClass::matmul, .m = m, .n = n, .k = k, .batch = 1,
              .fwd_flops = 2 * m * n * k, .fwd_elems = m * k + m * n, .weight_elems = weights,
              .saved_elems = saved, .tp = tp};
}

// Per-head GEMM with both operands activations; `traffic` is given because K and V may be
// shared between query heads (GQA) and are read once.
Op attention(std::string_view name, double heads, double m, double n, double k, double traffic,
             double saved) {
    return Op{.name = name, .cls = OpClass::attention, .m = m, .n = n, .k = k, .batch = heads,
              .fwd_flops = 2 * m * n * k * heads, .fwd_elems = traffic, .saved_elems = saved,
              .tp = TpSplit::batch, .samples = SampleDim::batch};
}

// A streaming op over an m x n x batch tensor.
Op pointwise(std::string_view name, OpClass cls, double m, double n, double batch,
             double flops_per_elem, double traffic, double saved, TpSplit tp) {
    const SampleDim samples = tp == TpSplit::batch ? SampleDim::batch : SampleDim::m;
    return Op{.name = name, .cls = cls, .m = m, .n = n, .k = 0, .batch = batch,
              .fwd_flops = flops_per_elem * m * n * batch, .fwd_elems = traffic,
              .saved_elems = saved, .tp = tp, .samples = samples};
}

// A loss softmax over rows of n classes, m rows. A row beyond softmax_on_chip_bytes (a
// vocabulary: BERT's 30,522 words, GPT-2's 50,257, WikiText-103's 267,735) is read three
// times and written once, a shorter one read and written once. Counted here for 16-bit rows;
// compute::plan_step recounts for the bytes the framework's loss kernel moves.
Op loss_softmax(std::string_view name, double m, double n, TpSplit tp) {
    const double passes = n * 2 > softmax_on_chip_bytes ? 4 : 2;
    Op op = pointwise(name, OpClass::softmax, m, n, 1, softmax_flops, passes * m * n, m * n, tp);
    op.loss = true;
    return op;
}

Op dropout(std::string_view name, double m, double n, double batch, TpSplit tp) {
    Op op = pointwise(name, OpClass::elementwise, m, n, batch, dropout_flops, 2 * m * n * batch,
                      0, tp);
    op.saved_mask_elems = m * n * batch;
    return op;
}

Op add(std::string_view name, double m, double n, TpSplit tp) {
    return pointwise(name, OpClass::elementwise, m, n, 1, add_flops, 3 * m * n, 0, tp);
}

// Table lookup: reads s rows of the table and writes them; no FLOPs, no weight sweep.
Op lookup(std::string_view name, double rows, double width) {
    return pointwise(name, OpClass::embedding, rows, width, 1, 0, 2 * rows * width, 0,
                     TpSplit::none);
}

double norm_params(NormKind kind, double h) { return kind == NormKind::layer_norm ? 2 * h : h; }

// Saves its input; the output is saved by whichever op consumes it.
Op norm(std::string_view name, NormKind kind, double rows, double h, TpSplit tp) {
    const double per_elem = kind == NormKind::layer_norm ? layer_norm_flops : rms_norm_flops;
    Op op = pointwise(name, OpClass::normalization, rows, h, 1, per_elem, 2 * rows * h,
                      rows * h, tp);
    op.weight_elems = norm_params(kind, h);
    return op;
}

// ---------------------------------------------------------------------------------------
// Transformer blocks shared by BERT and GPT.

struct Block {
    double s = 0, h = 0, heads = 0, kv_heads = 0, ffn = 0;
    bool gated = false, biases = true, dropout = true, rotary = false;
    NormKind norm = NormKind::layer_norm;
    AttentionKind attention = AttentionKind::unfused;
    bool causal = false;
    double window = 0;  // sliding-window span, 0: none

    double head_dim() const { return h / heads; }
    // FlashAttention's row logsumexp: one fp32 per query and head, in 16-bit elements.
    double logsumexp_elems() const { return 2 * s * heads; }
    double qkv_width() const { return (heads + 2 * kv_heads) * head_dim(); }
    double bias(double width) const { return biases ? width : 0; }
    double attention_params() const {
        return h * qkv_width() + bias(qkv_width()) + h * h + bias(h);
    }
    double mlp_params() const {
        return gated ? 3 * h * ffn + bias(2 * ffn) + bias(h) : 2 * h * ffn + bias(ffn) + bias(h);
    }
    double params() const { return attention_params() + mlp_params() + 2 * norm_params(norm, h); }
};

// Share of the s x s (query, key) pairs a causal FlashAttention kernel computes: half of the
// square, as FlashAttention-2 counts it (Dao 2023, Sec. 3.1.1 "Causal masking": blocks
// above the diagonal are skipped; Sec. 4.1 divides the FLOPs by 2). With a sliding window of
// w < s keys (Mistral; FlashAttention-2 skips the blocks outside it too): the first w queries
// see a growing prefix, the rest w keys each, (s w - w^2 / 2) / s^2 (0.5 at w = s).
double causal_share(double s, double window) {
    if (window <= 0 || window >= s) return 0.5;
    return (s * window - window * window / 2) / (s * s);
}

// One FlashAttention kernel over a whole layer's heads (per sample): m = s queries, n = s
// keys, k = d head dim, batch = a heads, split by head under tensor parallelism.
// FLOPs: the two GEMMs S = Q K^T and O = P V, 4 s^2 d a, plus the softmax's 5 s^2 a (and,
// with dropout, its 2 s^2 a compare-and-scale, done in-kernel from a Philox seed: no mask is
// written or stashed), all times the share of pairs computed (1/2 when causal).
// HBM traffic: reads Q (s a d), K and V (s kv each, kv = kv_heads d: GQA reads each K/V head
// once for its group of query heads) and writes O (s a d) and the row logsumexp L (one fp32
// per row and head = 2 16-bit elements), no s^2 term.
// Stash: Q, K, V (the unfused form keeps Q and K on attn_scores and V on attn_context) and L.
// O is the input of attn_proj, which already stashes it.
Op flash_attention(const Block& b) {
    const double s = b.s, d = b.head_dim(), a = b.heads, kv = b.kv_heads * d;
    const double pairs = b.causal ? causal_share(s, b.window) : 1.0;
    const double per_pair = softmax_flops + (b.dropout ? dropout_flops : 0.0);
    const double flops = (4 * s * s * d * a + per_pair * s * s * a) * pairs;
    const double qkv = s * (a * d + 2 * kv);
    const double lse = b.logsumexp_elems();
    return Op{.name = "flash_attn", .cls = OpClass::fused_attention, .m = s, .n = s, .k = d,
              .batch = a, .fwd_flops = flops, .fwd_elems = qkv + s * a * d + lse,
              .saved_elems = qkv + lse, .tp = TpSplit::batch, .samples = SampleDim::batch};
}

// NVIDIA's fused multi-head attention for BERT (AttentionKind::fmha): the FlashAttention op
// of an encoder block (not causal: the full square), except that the forward writes the
// s x s probabilities of every head instead of the row logsumexp (apex fmha_api.cpp mha_fwd
// returns them, and the MLPerf code's FMHAFun saves them for backward).
// HBM traffic: reads Q, K, V; writes O and the probabilities. Stash: Q, K, V and the
// probabilities. (mha_fwd allocates the probabilities at the sequence bucket, 128 to 512;
// the model counts the s^2 of the length the encoder is built for.)
Op fmha_attention(const Block& b) {
    Op op = flash_attention(b);
    const double lse = b.logsumexp_elems(), probs = b.s * b.s * b.heads;
    op.name = "fmha";
    op.fwd_elems += probs - lse;
    op.saved_elems += probs - lse;
    op.stores_probs = true;
    return op;
}

// Self-attention. Unfused (Megatron-style, no fused kernels): the stash matches Korthikanti
// et al. 2022 (Reducing Activation Recomputation, Sec. 4.1): QKV input, Q and K, softmax
// output, dropout mask and output, V, projection input, projection dropout mask, so a GPT-3
// block stashes s h (34 + 5 a s / h) bytes with 16-bit activations. Flash: the scores,
// softmax, dropout and context are one op; per layer the stash is norm input 2, QKV input 2,
// Q K V 6 (MHA), projection input 2, projection dropout mask 1, MLP 19 and second norm 2,
// i.e. s h 34 bytes plus the logsumexp's 4 s a (no dropout: 32 s h + 4 s a): the
// 5 a s^2 term and the attention dropout mask are gone.
void append_attention(std::vector<Op>& ops, const Block& b) {
    const double s = b.s, h = b.h, d = b.head_dim(), a = b.heads;
    const double kv = b.kv_heads * d;  // width of K (and of V)
    const double probs = a * s * s;
    ops.push_back(matmul("qkv", s, b.qkv_width(), h, h * b.qkv_width() + b.bias(b.qkv_width()),
                         s * h, TpSplit::n));
    if (b.rotary)
        ops.push_back(pointwise("rotary", OpClass::elementwise, s, a * d + kv, 1, rotary_flops,
                                2 * s * (a * d + kv), 0, TpSplit::n));
    if (b.attention != AttentionKind::unfused) {
        ops.push_back(b.attention == AttentionKind::fmha ? fmha_attention(b) : flash_attention(b));
        ops.push_back(matmul("attn_proj", s, h, h, h * h + b.bias(h), s * h, TpSplit::k));
        if (b.dropout) ops.push_back(dropout("attn_out_dropout", s, h, 1, TpSplit::m));
        return;
    }
    ops.push_back(attention("attn_scores", a, s, s, d, s * a * d + s * kv + probs,
                            s * (a * d + kv)));
    ops.push_back(pointwise("attn_softmax", OpClass::softmax, s, s, a, softmax_flops, 2 * probs,
                            probs, TpSplit::batch));
    if (b.dropout) ops.push_back(dropout("attn_dropout", s, s, a, TpSplit::batch));
    // Without dropout the context GEMM reads the softmax output, already stashed above.
    ops.push_back(attention("attn_context", a, s, d, s, probs + s * kv + s * a * d,
                            (b.dropout ? probs : 0) + s * kv));
    ops.push_back(matmul("attn_proj", s, h, h, h * h + b.bias(h), s * h, TpSplit::k));
    if (b.dropout) ops.push_back(dropout("attn_out_dropout", s, h, 1, TpSplit::m));
}

void append_mlp(std::vector<Op>& ops, const Block& b) {
    const double s = b.s, h = b.h, f = b.ffn;
    if (b.gated) {
        // Gate and up projections fused into one column-parallel GEMM, as Megatron-LM does.
        ops.push_back(matmul("mlp_gate_up", s, 2 * f, h, 2 * h * f + b.bias(2 * f), s * h,
                             TpSplit::n));
        ops.push_back(pointwise("swiglu", OpClass::elementwise, s, f, 1, swiglu_flops, 3 * s * f,
                                2 * s * f, TpSplit::n));
    } else {
        ops.push_back(matmul("mlp_up", s, f, h, h * f + b.bias(f), s * h, TpSplit::n));
        ops.push_back(pointwise("gelu", OpClass::elementwise, s, f, 1, gelu_flops, 2 * s * f,
                                s * f, TpSplit::n));
        ops.back().activation = true;
    }
    ops.push_back(matmul("mlp_down", s, h, f, f * h + b.bias(h), s * f, TpSplit::k));
    if (b.dropout) ops.push_back(dropout("mlp_dropout", s, h, 1, TpSplit::m));
}

// Pre-norm (GPT): x + attn(norm(x)), then x + mlp(norm(x)).
Layer pre_norm_block(const Block& b, int repeat) {
    Layer layer{.name = "block", .ops = {}, .params = b.params(), .repeat = repeat, .transformer_block = true};
    layer.ops.push_back(norm("attn_norm", b.norm, b.s, b.h, TpSplit::m));
    append_attention(layer.ops, b);
    layer.ops.push_back(add("attn_residual", b.s, b.h, TpSplit::m));
    layer.ops.push_back(norm("mlp_norm", b.norm, b.s, b.h, TpSplit::m));
    append_mlp(layer.ops, b);
    layer.ops.push_back(add("mlp_residual", b.s, b.h, TpSplit::m));
    return layer;
}

// Post-norm (BERT): norm(x + attn(x)), then norm(x + mlp(x)).
Layer post_norm_block(const Block& b, int repeat) {
    Layer layer{.name = "encoder", .ops = {}, .params = b.params(), .repeat = repeat};
    append_attention(layer.ops, b);
    layer.ops.push_back(add("attn_residual", b.s, b.h, TpSplit::m));
    layer.ops.push_back(norm("attn_norm", b.norm, b.s, b.h, TpSplit::m));
    append_mlp(layer.ops, b);
    layer.ops.push_back(add("mlp_residual", b.s, b.h, TpSplit::m));
    layer.ops.push_back(norm("mlp_norm", b.norm, b.s, b.h, TpSplit::m));
    return layer;
}

// ---------------------------------------------------------------------------------------
// ResNet-50.

struct Fmap {
    int c = 0, h = 0, w = 0;
    double pixels() const { return static_cast<double>(h) * w; }
    double elems() const { return c * pixels(); }
};

// Padding kernel / 2, as every torchvision ResNet conv and the stem max-pool use.
Fmap window_out(Fmap in, int out_c, int kernel, int stride) {
    const int pad = kernel / 2;
    return {out_c, (in.h + 2 * pad - kernel) / stride + 1, (in.w + 2 * pad - kernel) / stride + 1};
}

Op conv(std::string_view name, Fmap in, Fmap out, int kernel, bool save_input) {
    const double m = out.pixels(), n = out.c, k = static_cast<double>(in.c) * kernel * kernel;
    return Op{.name = name, .cls = OpClass::conv, .m = m, .n = n, .k = k, .batch = 1,
              .fwd_flops = 2 * m * n * k, .fwd_elems = in.elems() + out.elems(),
              .weight_elems = n * k, .saved_elems = save_input ? in.elems() : 0};
}

Op batch_norm(std::string_view name, Fmap x) {
    Op op = pointwise(name, OpClass::normalization, x.pixels(), x.c, 1, batch_norm_flops,
                      2 * x.elems(), x.elems(), TpSplit::none);
    op.weight_elems = 2.0 * x.c;
    return op;
}

Op relu(std::string_view name, Fmap x, bool save_output) {
    return pointwise(name, OpClass::elementwise, x.pixels(), x.c, 1, relu_flops, 2 * x.elems(),
                     save_output ? x.elems() : 0, TpSplit::none);
}

struct BottleneckNames {
    std::string_view first, rest;
};
constexpr std::array<BottleneckNames, 4> stage_names{{{"layer1.0", "layer1.1+"},
                                                      {"layer2.0", "layer2.1+"},
                                                      {"layer3.0", "layer3.1+"},
                                                      {"layer4.0", "layer4.1+"}}};

// torchvision Bottleneck (v1.5): 1x1 -> 3x3 (stride) -> 1x1 (4x width), with a strided 1x1
// projection on the first block of a stage. ReLU is in place, so a ReLU output is stashed
// by the conv that reads it; the block output's ReLU stashes it for the next block (or the
// pool), and only the network's first block stashes its input (the max-pool output).
Layer bottleneck(std::string_view name, Fmap& x, int width, int stride, bool downsample,
                 bool save_input, int repeat) {
    Layer layer{.name = name, .ops = {}, .params = 0, .repeat = repeat};
    auto& ops = layer.ops;
    const Fmap in = x;
    const Fmap a = window_out(in, width, 1, 1);
    const Fmap b = window_out(a, width, 3, stride);
    const Fmap c = window_out(b, 4 * width, 1, 1);
    ops.push_back(conv("conv1_1x1", in, a, 1, save_input));
    ops.push_back(batch_norm("bn1", a));
    ops.push_back(relu("relu1", a, false));
    ops.push_back(conv("conv2_3x3", a, b, 3, true));
    ops.push_back(batch_norm("bn2", b));
    ops.push_back(relu("relu2", b, false));
    ops.push_back(conv("conv3_1x1", b, c, 1, true));
    ops.push_back(batch_norm("bn3", c));
    if (downsample) {
        ops.push_back(conv("downsample_1x1", in, window_out(in, c.c, 1, stride), 1, false));
        ops.push_back(batch_norm("downsample_bn", c));
    }
    ops.push_back(pointwise("residual_add", OpClass::elementwise, c.pixels(), c.c, 1, add_flops,
                            3 * c.elems(), 0, TpSplit::none));
    ops.push_back(relu("relu3", c, true));
    for (const Op& op : ops) layer.params += op.weight_elems;
    x = c;
    return layer;
}

// ---------------------------------------------------------------------------------------
// BERT.

struct BertSize {
    std::string_view name;
    int layers, hidden, heads, ffn;
};
// Devlin et al. 2019, Sec. 3: BASE L=12 H=768 A=12, LARGE L=24 H=1024 A=16, FFN 4H.
constexpr std::array<BertSize, 2> bert_sizes{{{"base", 12, 768, 12, 3072},
                                              {"large", 24, 1024, 16, 4096}}};
constexpr double bert_vocab = 30522;       // uncased WordPiece vocabulary
constexpr double bert_positions = 512;     // learned position table rows
constexpr double bert_token_types = 2;
constexpr double bert_mask_fraction = 0.15;  // share of positions the MLM head predicts

const BertSize& find_bert_size(std::string_view size) {
    for (const BertSize& b : bert_sizes)
        if (b.name == size) return b;
    throw std::invalid_argument("bert: unknown size '" + std::string(size) +
                                "'; valid: base, large");
}

Workload bert_common(std::string_view size, int seq_len, std::string_view suffix,
                     AttentionKind attention) {
    const BertSize& cfg = find_bert_size(size);
    const std::string name = "bert-" + std::string(size) + std::string(suffix);
    if (seq_len < 1 || seq_len > bert_positions)
        throw std::invalid_argument(name + ": seq_len " + std::to_string(seq_len) +
                                    " outside [1, 512], the rows of the position table");
    const double s = seq_len, h = cfg.hidden;
    Workload w{.name = name, .domain = Domain::language, .seq_len = s, .layers = {},
               .vocab = bert_vocab, .hidden = h, .n_layers = cfg.layers, .heads = cfg.heads,
               .kv_heads = cfg.heads, .ffn_hidden = static_cast<double>(cfg.ffn)};

    Layer emb{.name = "embeddings", .ops = {},
              .params = (bert_vocab + bert_positions + bert_token_types) * h +
                        norm_params(NormKind::layer_norm, h),
              .repeat = 1};
    emb.ops.push_back(lookup("word_embed", s, h));
    emb.ops.push_back(lookup("pos_embed", s, h));
    emb.ops.push_back(lookup("type_embed", s, h));
    emb.ops.push_back(pointwise("embed_sum", OpClass::elementwise, s, h, 1, 2 * add_flops,
                                4 * s * h, 0, TpSplit::m));
    emb.ops.push_back(norm("embed_norm", NormKind::layer_norm, s, h, TpSplit::m));
    emb.ops.push_back(dropout("embed_dropout", s, h, 1, TpSplit::m));
    w.layers.push_back(std::move(emb));

    const double heads = cfg.heads;
    const Block blk{.s = s, .h = h, .heads = heads, .kv_heads = heads,
                    .ffn = static_cast<double>(cfg.ffn),
                    .attention = attention, .causal = false};
    w.layers.push_back(post_norm_block(blk, cfg.layers));
    return w;
}

// ---------------------------------------------------------------------------------------
// GPT presets.

constexpr int gpt3_vocab = 50257;  // GPT-2 BPE
constexpr int gpt3_context = 2048;
constexpr int llama_vocab = 32000;      // Llama 1/2 and Mistral SentencePiece
constexpr int llama2_context = 4096;
constexpr int llama3_vocab = 128256;    // tiktoken 128000 + 256 special tokens
constexpr int llama3_context = 8192;
constexpr int mpt_vocab = 50368;        // GPT-NeoX-20B tokenizer padded to a multiple of 64
constexpr int mpt_seq_len = 2048;

constexpr GptShape gpt3(int layers, int hidden, int heads) {
    return GptShape{.layers = layers, .hidden = hidden, .heads = heads, .seq_len = gpt3_context,
                    .vocab = gpt3_vocab};
}

// Llama layout: SwiGLU, RMSNorm, rotary, untied output, no biases, no dropout, FlashAttention.
constexpr GptShape llama(int layers, int hidden, int heads, int kv_heads, int ffn, int vocab,
                         int seq_len) {
    return GptShape{.layers = layers, .hidden = hidden, .heads = heads, .seq_len = seq_len,
                    .vocab = vocab, .ffn_hidden = ffn, .kv_heads = kv_heads, .gated_mlp = true,
                    .norm = NormKind::rms_norm, .positions = Positions::rotary,
                    .tied_embeddings = false, .biases = false, .dropout = false,
                    .attention = AttentionKind::flash};
}

constexpr GptShape llama2(int layers, int hidden, int heads, int kv_heads, int ffn) {
    return llama(layers, hidden, heads, kv_heads, ffn, llama_vocab, llama2_context);
}

constexpr GptShape llama3(int layers, int hidden, int heads, int ffn) {
    return llama(layers, hidden, heads, 8, ffn, llama3_vocab, llama3_context);
}

constexpr GptShape mistral_7b() {
    GptShape s = llama(32, 4096, 32, 8, 14336, llama_vocab, 8192);
    s.window = 4096;
    return s;
}

// MPT as llm-foundry's pretraining yamls build it with MPTConfig's defaults: GELU MLP of 4x,
// LayerNorm and linear layers with biases (no_bias false), a learned position table
// (learned_pos_emb true, ALiBi off), tied embeddings, no dropout, FlashAttention.
constexpr GptShape mpt(int layers, int hidden, int heads) {
    return GptShape{.layers = layers, .hidden = hidden, .heads = heads, .seq_len = mpt_seq_len,
                    .vocab = mpt_vocab, .dropout = false, .attention = AttentionKind::flash};
}

// GPT-3: Brown et al. 2020, Table 2.1 (n_layers, d_model, n_heads; d_ff = 4 d_model; context
// 2048). Two rows are not self-consistent and are adjusted so that heads * d_head = d_model:
// XL lists 24 heads of 128 for d_model 2048 (16 heads kept), 13B lists d_model 5140 with 40
// heads of 128 (5120 kept). GPT-3 trained in 2020 without fused attention: unfused.
// Llama 2: Touvron et al. 2023 and the released configurations (hidden, heads, kv heads,
// SwiGLU width); flash: Llama already trained with xformers' memory-efficient causal
// attention (Touvron et al. 2023a, Sec. 2.4), and measured.csv's Llama 2 rows ran flash.
// Llama 3 / 3.1: Dubey et al. 2024 (The Llama 3 Herd of Models), Table 3 (layers, model
// dimension, FFN dimension, heads, 8 KV heads) and the released params.json (vocabulary
// 128256); pretrained at 8192 tokens before the long-context stage (Sec. 3.4), so 8192 for
// Llama 3.1 too although its context reaches 131072.
// Mistral 7B: Jiang et al. 2023, Table 1 (dim 4096, 32 layers, head_dim 128, hidden_dim
// 14336, 32 heads, 8 KV heads, window_size 4096, context_len 8192, vocab 32000).
// MPT: mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-{125m,...,70b}.yaml (d_model,
// n_heads, n_layers, expansion_ratio 4, max_seq_len 2048, vocab_size 50368); the layout is
// MPTConfig's defaults (llmfoundry/models/mpt/configuration_mpt.py), which llm-foundry's
// benchmark table (scripts/train/benchmarking/README.md, NumParams) confirms to the parameter.
constexpr std::array<Preset, 26> preset_table{{
    {"gpt3-125m", "GPT-3 Small: 12 layers, d_model 768, 12 heads, 125M parameters",
     gpt3(12, 768, 12)},
    {"gpt3-350m", "GPT-3 Medium: 24 layers, d_model 1024, 16 heads, 350M parameters",
     gpt3(24, 1024, 16)},
    {"gpt3-760m", "GPT-3 Large: 24 layers, d_model 1536, 16 heads, 760M parameters",
     gpt3(24, 1536, 16)},
    {"gpt3-1.3b", "GPT-3 XL: 24 layers, d_model 2048, 16 heads of 128, 1.3B parameters",
     gpt3(24, 2048, 16)},
    {"gpt3-2.7b", "GPT-3 2.7B: 32 layers, d_model 2560, 32 heads", gpt3(32, 2560, 32)},
    {"gpt3-6.7b", "GPT-3 6.7B: 32 layers, d_model 4096, 32 heads", gpt3(32, 4096, 32)},
    {"gpt3-13b", "GPT-3 13B: 40 layers, d_model 5120, 40 heads", gpt3(40, 5120, 40)},
    {"gpt3-175b", "GPT-3 175B: 96 layers, d_model 12288, 96 heads", gpt3(96, 12288, 96)},
    {"llama2-7b", "Llama 2 7B: 32 layers, hidden 4096, 32 heads, SwiGLU 11008, context 4096",
     llama2(32, 4096, 32, 32, 11008)},
    {"llama2-13b", "Llama 2 13B: 40 layers, hidden 5120, 40 heads, SwiGLU 13824, context 4096",
     llama2(40, 5120, 40, 40, 13824)},
    {"llama2-70b",
     "Llama 2 70B: 80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU 28672, context 4096",
     llama2(80, 8192, 64, 8, 28672)},
    {"llama3-8b", "Llama 3 8B: 32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU 14336, seq 8192",
     llama3(32, 4096, 32, 14336)},
    {"llama3.1-8b",
     "Llama 3.1 8B: Llama 3 8B's shape, pretrained at seq 8192 (context 131072 after extension)",
     llama3(32, 4096, 32, 14336)},
    {"llama3-70b",
     "Llama 3 70B: 80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU 28672, seq 8192",
     llama3(80, 8192, 64, 28672)},
    {"llama3.1-70b",
     "Llama 3.1 70B: Llama 3 70B's shape, pretrained at seq 8192 (context 131072 after extension)",
     llama3(80, 8192, 64, 28672)},
    {"llama3.1-405b",
     "Llama 3.1 405B: 126 layers, hidden 16384, 128 heads, 8 KV heads, SwiGLU 53248, seq 8192",
     llama3(126, 16384, 128, 53248)},
    {"mistral-7b",
     "Mistral 7B: 32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU 14336, window 4096, seq 8192",
     mistral_7b()},
    {"mpt-125m", "MPT-125M (llm-foundry): 12 layers, d_model 768, 12 heads, GELU 4x, seq 2048",
     mpt(12, 768, 12)},
    {"mpt-350m", "MPT-350M (llm-foundry): 24 layers, d_model 1024, 16 heads, GELU 4x, seq 2048",
     mpt(24, 1024, 16)},
    {"mpt-760m", "MPT-760M (llm-foundry): 24 layers, d_model 1536, 12 heads of 128, GELU 4x, seq 2048",
     mpt(24, 1536, 12)},
    {"mpt-1b", "MPT-1B (llm-foundry): 24 layers, d_model 2048, 16 heads of 128, GELU 4x, seq 2048",
     mpt(24, 2048, 16)},
    {"mpt-3b", "MPT-3B (llm-foundry): 32 layers, d_model 2560, 20 heads of 128, GELU 4x, seq 2048",
     mpt(32, 2560, 20)},
    {"mpt-7b", "MPT-7B (llm-foundry): 32 layers, d_model 4096, 32 heads, GELU 4x, seq 2048",
     mpt(32, 4096, 32)},
    {"mpt-13b", "MPT-13B (llm-foundry): 40 layers, d_model 5120, 40 heads, GELU 4x, seq 2048",
     mpt(40, 5120, 40)},
    {"mpt-30b", "MPT-30B (llm-foundry): 48 layers, d_model 7168, 56 heads, GELU 4x, seq 2048",
     mpt(48, 7168, 56)},
    {"mpt-70b", "MPT-70B (llm-foundry): 80 layers, d_model 8192, 64 heads, GELU 4x, seq 2048",
     mpt(80, 8192, 64)},
}};

// NVIDIA DeepLearningExamples, PyTorch/LanguageModeling/Transformer-XL: pytorch/wt103_base.yaml
// (n_layer 16, d_model 512, n_head 8, d_head 64, d_inner 2048, tgt_len = mem_len = 192,
// dropout 0.1, dropatt 0.0, div_val 1: train.py's default) and pytorch/wt103_large.yaml
// (n_layer 18, d_model 1024, n_head 16, d_head 64, d_inner 4096, tgt_len = mem_len = 384,
// dropout 0.2, dropatt 0.2, div_val 4); both: adaptive softmax over WikiText-103's 267735
// words with cutoffs 19997, 39997, 199997 (the manual_config of wt103_large.yaml; train.py
// sets them for wt103). The base model is NVIDIA's power-of-two variant of Dai et al.'s
// (d_model 410, 10 heads of 41, d_inner 2100, tgt_len 150); the large one is Dai et al.'s.
constexpr int wt103_vocab = 267735;
constexpr std::array<int, 3> wt103_cutoffs{19997, 39997, 199997};
constexpr std::array<TxlPreset, 2> txl_table{{
    {"transformer-xl-base",
     "Transformer-XL base (NVIDIA DLE, WikiText-103): 16 layers, d_model 512, 8 heads, tgt/mem 192",
     TxlShape{.layers = 16, .d_model = 512, .heads = 8, .d_head = 64, .d_inner = 2048,
              .tgt_len = 192, .mem_len = 192, .vocab = wt103_vocab, .cutoffs = wt103_cutoffs,
              .div_val = 1, .dropout = true, .attn_dropout = false}},
    {"transformer-xl",
     "Transformer-XL large (NVIDIA DLE, WikiText-103): 18 layers, d_model 1024, 16 heads, tgt/mem 384",
     TxlShape{.layers = 18, .d_model = 1024, .heads = 16, .d_head = 64, .d_inner = 4096,
              .tgt_len = 384, .mem_len = 384, .vocab = wt103_vocab, .cutoffs = wt103_cutoffs,
              .div_val = 4, .dropout = true, .attn_dropout = true}},
}};

constexpr std::array<ModelInfo, 4> builder_models{{
    {"resnet50", "ResNet-50 v1.5 image classifier (torchvision layout), 25.6M parameters"},
    {"bert-base", "BERT-Base pretraining (MLM + NSP): 12 layers, hidden 768, 12 heads"},
    {"bert-large", "BERT-Large pretraining (MLM + NSP): 24 layers, hidden 1024, 16 heads"},
    {"gpt", "GPT-style decoder of a custom shape (layers, hidden, heads, seq_len, vocab, ...)"},
}};

// Point-cloud models, listed after the language presets.
constexpr std::array<ModelInfo, 1> point_cloud_models{{
    {"pointnet2-ssg-scannet", "PointNet++ SSG semantic segmentation, ScanNet: 8192 points, 21 classes, 0.97M parameters"},
}};

constexpr auto model_table = [] {
    std::array<ModelInfo, builder_models.size() + preset_table.size() + txl_table.size() + point_cloud_models.size()> all{};
    std::size_t i = 0;
    for (const ModelInfo& m : builder_models) all[i++] = m;
    for (const Preset& p : preset_table) all[i++] = {p.name, p.description};
    for (const TxlPreset& p : txl_table) all[i++] = {p.name, p.description};
    for (const ModelInfo& m : point_cloud_models) all[i++] = m;
    return all;
}();

// ---------------------------------------------------------------------------------------
// Transformer-XL.

constexpr double euler_gamma = 0.57721566490153286;

// Harmonic number H(n) = 1 + 1/2 + ... + 1/n (Euler-Maclaurin from n = 10, error < 1e-10).
double harmonic(double n) {
    if (n < 10) {
        double sum = 0;
        for (double r = 1; r <= n; ++r) sum += 1 / r;
        return sum;
    }
    return std::log(n) + euler_gamma + 1 / (2 * n) - 1 / (12 * n * n);
}

// Share of a word-level corpus's tokens whose frequency rank lies in [lo, hi) of a vocabulary
// of v words sorted by frequency (DLE's Vocab sorts by count), under Zipf's law (frequency
// proportional to 1 / rank), the distribution adaptive softmax is designed for (Grave et al.
// 2017, Sec. 3). With WikiText-103's cutoffs: 80.2% of the tokens in the head, 5.3%, 12.3%
// and 2.2% in the three tails. An assumption: the real shares are not published with the
// model.
double zipf_share(double lo, double hi, double v) {
    return (harmonic(hi) - harmonic(lo)) / harmonic(v);
}

constexpr std::array<std::string_view, 4> txl_embed_names{"embed_cluster0", "embed_cluster1",
                                                          "embed_cluster2", "embed_cluster3"};
constexpr std::array<std::string_view, 4> txl_embed_proj_names{"embed_proj0", "embed_proj1",
                                                               "embed_proj2", "embed_proj3"};
constexpr std::array<std::string_view, 4> txl_logit_names{"softmax_head", "softmax_tail1",
                                                          "softmax_tail2", "softmax_tail3"};
constexpr std::array<std::string_view, 4> txl_proj_names{"softmax_head_proj", "softmax_tail1_proj",
                                                         "softmax_tail2_proj", "softmax_tail3_proj"};
constexpr std::array<std::string_view, 4> txl_logsoftmax_names{
    "softmax_head_logsoftmax", "softmax_tail1_logsoftmax", "softmax_tail2_logsoftmax",
    "softmax_tail3_logsoftmax"};

// One cluster of the adaptive input and softmax: vocabulary ids [lo, hi), embedding width d
// and the share of tokens that fall in it.
struct Cluster {
    double lo = 0, hi = 0, d = 0, share = 0;
    double size() const { return hi - lo; }
};

}  // namespace

// ---------------------------------------------------------------------------------------

Workload resnet50(int image) {
    if (image < 32)
        throw std::invalid_argument("resnet50: image side " + std::to_string(image) +
                                    " px is below the 32 px the five stride-2 stages need");
    Workload w{.name = "resnet50", .domain = Domain::vision};

    const Fmap img{3, image, image};
    const Fmap c1 = window_out(img, 64, 7, 2);
    const Fmap pooled = window_out(c1, 64, 3, 2);
    Layer stem{.name = "stem", .ops = {}, .params = 0, .repeat = 1};
    Op conv1 = conv("conv1_7x7", img, c1, 7, true);
    conv1.input_grad = false;  // the image needs no gradient
    stem.ops.push_back(conv1);
    stem.ops.push_back(batch_norm("bn1", c1));
    stem.ops.push_back(relu("relu", c1, false));
    stem.ops.push_back(pointwise("maxpool_3x3", OpClass::elementwise, pooled.pixels(), pooled.c, 1,
                                 maxpool3_flops, c1.elems() + pooled.elems(), c1.elems(),
                                 TpSplit::none));
    for (const Op& op : stem.ops) stem.params += op.weight_elems;
    w.layers.push_back(std::move(stem));

    // torchvision resnet50: Bottleneck blocks [3, 4, 6, 3], widths 64..512, expansion 4.
    constexpr std::array<int, 4> blocks{3, 4, 6, 3};
    Fmap x = pooled;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const int width = 64 << i;
        const int stride = i == 0 ? 1 : 2;
        w.layers.push_back(bottleneck(stage_names[i].first, x, width, stride, true, i == 0, 1));
        w.layers.push_back(
            bottleneck(stage_names[i].rest, x, width, 1, false, false, blocks[i] - 1));
    }

    constexpr double classes = 1000;
    Layer head{.name = "head", .ops = {}, .params = 0, .repeat = 1};
    head.ops.push_back(pointwise("avgpool", OpClass::elementwise, 1, x.c, 1, x.pixels() * add_flops,
                                 x.elems() + x.c, 0, TpSplit::none));
    head.ops.push_back(matmul("fc", 1, classes, x.c, x.c * classes + classes, x.c, TpSplit::none));
    head.ops.push_back(loss_softmax("loss_softmax", 1, classes, TpSplit::none));
    for (const Op& op : head.ops) head.params += op.weight_elems;
    w.layers.push_back(std::move(head));
    return w;
}

Workload bert(std::string_view size, int seq_len, AttentionKind attention) {
    Workload w = bert_common(size, seq_len, "", attention);
    const double s = seq_len, h = w.hidden, v = w.vocab;

    Layer pooler{.name = "pooler", .ops = {}, .params = h * h + h, .repeat = 1};
    pooler.ops.push_back(matmul("pooler_dense", 1, h, h, h * h + h, h, TpSplit::none));
    pooler.ops.push_back(pointwise("pooler_tanh", OpClass::elementwise, 1, h, 1, tanh_flops, 2 * h,
                                   h, TpSplit::none));
    w.layers.push_back(std::move(pooler));

    // MLM on the masked positions only, as Google's run_pretraining.py (gather_indexes) and
    // NVIDIA's BERT (index_select of the labelled positions) compute it. The decoder is tied
    // to the word embeddings, so only its bias is a parameter of this layer.
    const double masked = bert_mask_fraction * s;
    Layer heads{.name = "pretraining_heads", .ops = {},
                .params = (h * h + h) + norm_params(NormKind::layer_norm, h) + v + (2 * h + 2),
                .repeat = 1};
    heads.ops.push_back(matmul("mlm_dense", masked, h, h, h * h + h, masked * h, TpSplit::none));
    heads.ops.push_back(pointwise("mlm_gelu", OpClass::elementwise, masked, h, 1, gelu_flops,
                                  2 * masked * h, masked * h, TpSplit::none));
    heads.ops.push_back(norm("mlm_norm", NormKind::layer_norm, masked, h, TpSplit::none));
    heads.ops.push_back(matmul("mlm_decoder", masked, v, h, v * h + v, masked * h, TpSplit::n));
    heads.ops.push_back(loss_softmax("mlm_loss_softmax", masked, v, TpSplit::n));
    // The NSP input is the pooler's tanh output, which the tanh already stashes.
    heads.ops.push_back(matmul("nsp", 1, 2, h, 2 * h + 2, 0, TpSplit::none));
    heads.ops.push_back(loss_softmax("nsp_loss_softmax", 1, 2, TpSplit::none));
    w.layers.push_back(std::move(heads));
    return w;
}

Workload bert_squad(std::string_view size, int seq_len, AttentionKind attention) {
    Workload w = bert_common(size, seq_len, "-squad", attention);
    const double s = seq_len, h = w.hidden;
    // Devlin et al. 2019, Sec. 4.2: start and end vectors over the final hidden states; the
    // pooler is unused (Hugging Face BertForQuestionAnswering builds none).
    Layer head{.name = "qa_head", .ops = {}, .params = 2 * h + 2, .repeat = 1};
    head.ops.push_back(matmul("qa_outputs", s, 2, h, 2 * h + 2, s * h, TpSplit::none));
    head.ops.push_back(loss_softmax("span_loss_softmax", 2, s, TpSplit::none));
    w.layers.push_back(std::move(head));
    return w;
}

// ---------------------------------------------------------------------------------------
// PointNet++ semantic segmentation.

namespace {

// One PointNet++ level's per-point work, FLOPs per element (README table):
// a squared distance (3 subtractions, 3 multiplies, 2 adds) and one compare with the running
// best: farthest point sampling's min with the running distance, the ball query's radius
// test, the kNN's insertion test.
constexpr double distance_flops = 9;
// Farthest point sampling adds the compare of the block-wide arg-max.
constexpr double fps_flops = distance_flops + 1;
// three_interpolate: three weights times three features and two adds per output.
constexpr double interpolate_flops = 5;
constexpr double group_flops = 3;  // subtract the centre from the neighbour's xyz

// Shared MLP widths of one level (zeros: unused). A set-abstraction level groups neighbours
// within a radius around its centres (the radius selects neighbours: it changes no count); a
// feature-propagation level interpolates the coarse level's features onto the fine points and
// concatenates the fine level's own.
using Widths = std::array<int, 3>;

// charlesq34/pointnet2 models/pointnet2_sem_seg.py (read 2026-12-02): pointnet_sa_module with
// npoint 1024/256/64/16 (PointNet2Shape::centres), radius 0.1/0.2/0.4/0.8, nsample 32, mlp
// [32,32,64], [64,64,128], [128,128,256], [256,256,512]; pointnet_fp_module [256,256],
// [256,256], [256,128], [128,128,128]; fc1 conv1d 128 + BN, dropout keep 0.5, fc2 conv1d
// num_class. openpoints' PointNet2Encoder/Decoder (PointNeXt's cfgs/s3dis/pointnet++.yaml)
// use the same widths.
constexpr std::array<Widths, 4> sa_mlps{{{32, 32, 64}, {64, 64, 128}, {128, 128, 256}, {256, 256, 512}}};
constexpr std::array<Widths, 4> fp_mlps{{{256, 256, 0}, {256, 256, 0}, {256, 128, 0}, {128, 128, 128}}};

struct OpNames {
    std::string_view conv, bn, relu;
};
constexpr std::array<OpNames, 3> mlp_names{{{"mlp1_conv", "mlp1_bn", "mlp1_relu"},
                                            {"mlp2_conv", "mlp2_bn", "mlp2_relu"},
                                            {"mlp3_conv", "mlp3_bn", "mlp3_relu"}}};
constexpr std::array<std::string_view, 4> sa_layer_names{"sa1", "sa2", "sa3", "sa4"};
constexpr std::array<std::string_view, 4> fp_layer_names{"fp4", "fp3", "fp2", "fp1"};

// A shared MLP over m rows (points x neighbours): per width a 1x1 convolution (bias, as
// tf_util.conv2d adds one before its batch norm), BatchNorm and ReLU. Conv and BN stash their
// inputs; ReLU outputs are stashed by the next conv (or the max-pool). `input_grad`: the first
// conv's input needs a gradient.
int append_shared_mlp(Layer& layer, double m, int in, const Widths& widths, bool input_grad, bool bias) {
    for (std::size_t j = 0; j < widths.size() && widths[j] > 0; ++j) {
        const double k = in, n = widths[j];
        Op c{.name = mlp_names[j].conv, .cls = OpClass::conv, .m = m, .n = n, .k = k, .batch = 1,
             .fwd_flops = 2 * m * n * k, .fwd_elems = m * k + m * n, .weight_elems = k * n + (bias ? n : 0),
             .saved_elems = m * k};
        c.input_grad = j > 0 || input_grad;
        layer.ops.push_back(c);
        Op bn = pointwise(mlp_names[j].bn, OpClass::normalization, m, n, 1, batch_norm_flops, 2 * m * n,
                          m * n, TpSplit::none);
        bn.weight_elems = 2 * n;
        layer.ops.push_back(bn);
        layer.ops.push_back(pointwise(mlp_names[j].relu, OpClass::elementwise, m, n, 1, relu_flops, 2 * m * n,
                                      0, TpSplit::none));
        in = widths[j];
    }
    return in;
}

// An index computation: no gradient, no stash.
Op index_op(std::string_view name, double tests, double flops_per_test, double traffic) {
    Op op = pointwise(name, OpClass::elementwise, tests, 1, 1, flops_per_test, traffic, 0, TpSplit::none);
    op.input_grad = false;
    return op;
}

}  // namespace

Workload pointnet2_semseg(const PointNet2Shape& shape) {
    const auto fail = [](const std::string& why) { throw std::invalid_argument("pointnet2: " + why); };
    if (shape.centres[0] > shape.points)
        fail(std::to_string(shape.points) + " points per sample, expected at least " +
             std::to_string(shape.centres[0]) + " (the first level's centres)");
    for (std::size_t l = 0; l < shape.centres.size(); ++l)
        if (shape.centres[l] < 1 || (l > 0 && shape.centres[l] > shape.centres[l - 1]))
            fail("expected decreasing positive centres per level, got " + std::to_string(shape.centres[l]) +
                 " at level " + std::to_string(l + 1));
    if (shape.neighbours < 1) fail("expected at least 1 neighbour, got " + std::to_string(shape.neighbours));
    if (shape.in_features < 0) fail("expected 0 or more input features, got " + std::to_string(shape.in_features));
    if (shape.classes < 2) fail("expected at least 2 classes, got " + std::to_string(shape.classes));
    Workload w{.name = "pointnet2-ssg-scannet", .domain = Domain::vision};
    w.adam = true;  // scannet/train.py: --optimizer adam

    // Level l has n[l] points with c[l] features (level 0: the input points).
    std::array<double, 5> n{static_cast<double>(shape.points), 0, 0, 0, 0};
    std::array<int, 5> c{shape.in_features, 0, 0, 0, 0};
    for (std::size_t l = 0; l < sa_mlps.size(); ++l) {
        const double big_n = n[l], s = shape.centres[l], k = shape.neighbours, rows = s * k;
        const int in = c[l] + 3;  // use_xyz: relative xyz concatenated to the features
        Layer layer{.name = sa_layer_names[l], .ops = {}, .params = 0, .repeat = 1};
        // Farthest point sampling: s dependent rounds, each reading every point's xyz and
        // running distance and writing the distance back (5 elements per point and round).
        Op fps = index_op("fps", s * big_n, fps_flops, 5 * s * big_n);
        fps.serial_rounds = s;
        layer.ops.push_back(fps);
        // Ball query: each centre tests every point (the reference kernel scans all n);
        // reads the points and centres, writes k indices per centre.
        layer.ops.push_back(index_op("ball_query", s * big_n, distance_flops, 3 * big_n + 3 * s + rows));
        // Group: gather k neighbours' features and xyz per centre, xyz made relative.
        Op group = pointwise("group", OpClass::elementwise, rows, in, 1, 0, 2 * rows * in, 0, TpSplit::none);
        group.fwd_flops = group_flops * rows;
        group.input_grad = l > 0;  // level 1 groups the input points: nothing to differentiate
        layer.ops.push_back(group);
        const int out = append_shared_mlp(layer, rows, in, sa_mlps[l], l > 0, shape.conv_bias);
        // Max over the k neighbours: k - 1 compares per output; stashes its input for the
        // backward's arg-max.
        layer.ops.push_back(pointwise("maxpool", OpClass::elementwise, s, out, 1, k - 1, rows * out + s * out,
                                      rows * out, TpSplit::none));
        for (const Op& op : layer.ops) layer.params += op.weight_elems;
        w.layers.push_back(std::move(layer));
        n[l + 1] = s;
        c[l + 1] = out;
    }
    // Feature propagation from level 4 down to level 0: fine level f = 3, 2, 1, 0.
    int coarse_c = c[4];
    for (std::size_t i = 0; i < fp_mlps.size(); ++i) {
        const std::size_t f = fp_mlps.size() - 1 - i;
        const double fine = n[f], coarse = n[f + 1];
        Layer layer{.name = fp_layer_names[i], .ops = {}, .params = 0, .repeat = 1};
        // Three nearest coarse points of each fine point: reads both sets, writes 3 indices and
        // 3 distances per fine point.
        layer.ops.push_back(index_op("three_nn", fine * coarse, distance_flops, 3 * fine + 3 * coarse + 6 * fine));
        // Inverse-distance interpolation: gathers 3 coarse feature rows per fine point.
        layer.ops.push_back(pointwise("interpolate", OpClass::elementwise, fine, coarse_c, 1, interpolate_flops,
                                      4 * fine * coarse_c + 6 * fine, 0, TpSplit::none));
        const int in = coarse_c + c[f];
        if (c[f] > 0)
            layer.ops.push_back(pointwise("concat", OpClass::elementwise, fine, in, 1, 0, 2 * fine * in, 0,
                                          TpSplit::none));
        coarse_c = append_shared_mlp(layer, fine, in, fp_mlps[i], true, shape.conv_bias);
        for (const Op& op : layer.ops) layer.params += op.weight_elems;
        w.layers.push_back(std::move(layer));
    }
    // Per-point head: fc1 (1x1 conv + BN + ReLU), dropout 0.5, fc2 to the classes, softmax loss.
    const double np = shape.points, cls = shape.classes;
    Layer head{.name = "head", .ops = {}, .params = 0, .repeat = 1};
    append_shared_mlp(head, np, coarse_c, {128, 0, 0}, true, shape.conv_bias);
    head.ops.push_back(dropout("dropout", np, 128, 1, TpSplit::none));
    head.ops.push_back(Op{.name = "fc2", .cls = OpClass::conv, .m = np, .n = cls, .k = 128, .batch = 1,
                          .fwd_flops = 2 * np * cls * 128, .fwd_elems = np * 128 + np * cls,
                          .weight_elems = 128 * cls + cls, .saved_elems = np * 128});
    head.ops.push_back(loss_softmax("loss_softmax", np, cls, TpSplit::none));
    for (const Op& op : head.ops) head.params += op.weight_elems;
    w.layers.push_back(std::move(head));
    return w;
}

Workload gpt(const GptShape& shape, std::string name) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("gpt '" + name + "': " + why);
    };
    if (shape.layers < 1 || shape.hidden < 1 || shape.heads < 1 || shape.seq_len < 1 ||
        shape.vocab < 1 || shape.ffn_hidden < 0 || shape.kv_heads < 0)
        fail("layers, hidden, heads, seq_len and vocab must be positive, ffn_hidden and "
             "kv_heads non-negative");
    if (shape.hidden % shape.heads != 0)
        fail("hidden " + std::to_string(shape.hidden) + " is not a multiple of heads " +
             std::to_string(shape.heads));
    const int kv_heads = shape.kv_heads == 0 ? shape.heads : shape.kv_heads;
    if (kv_heads > shape.heads || shape.heads % kv_heads != 0)
        fail("heads " + std::to_string(shape.heads) + " is not a multiple of kv_heads " +
             std::to_string(kv_heads));
    if (shape.window < 0) fail("window must be non-negative");
    const bool learned_positions = shape.positions == Positions::learned;
    double ffn = shape.ffn_hidden;
    if (ffn == 0)
        ffn = shape.gated_mlp ? 256 * std::ceil(8.0 * shape.hidden / 3 / 256) : 4.0 * shape.hidden;

    const double s = shape.seq_len, h = shape.hidden, v = shape.vocab;
    Workload w{.name = std::move(name), .domain = Domain::language, .seq_len = s, .layers = {},
               .vocab = v, .hidden = h, .n_layers = shape.layers, .heads = shape.heads,
               .kv_heads = kv_heads, .ffn_hidden = ffn, .gated_mlp = shape.gated_mlp};

    Layer emb{.name = "embedding", .ops = {},
              .params = v * h + (learned_positions ? s * h : 0), .repeat = 1};
    emb.ops.push_back(lookup("token_embed", s, h));
    if (learned_positions) {
        emb.ops.push_back(lookup("pos_embed", s, h));
        emb.ops.push_back(add("embed_sum", s, h, TpSplit::m));
    }
    if (shape.dropout) emb.ops.push_back(dropout("embed_dropout", s, h, 1, TpSplit::m));
    w.layers.push_back(std::move(emb));

    const Block blk{.s = s, .h = h, .heads = static_cast<double>(shape.heads),
                    .kv_heads = static_cast<double>(kv_heads), .ffn = ffn,
                    .gated = shape.gated_mlp, .biases = shape.biases, .dropout = shape.dropout,
                    .rotary = shape.positions == Positions::rotary, .norm = shape.norm,
                    .attention = shape.attention, .causal = shape.causal,
                    .window = static_cast<double>(shape.window)};
    w.layers.push_back(pre_norm_block(blk, shape.layers));

    // The output projection has no bias in GPT-2/3 or Llama; when tied, its weights are the
    // token embedding's and counted there.
    Layer head{.name = "head", .ops = {},
               .params = norm_params(shape.norm, h) + (shape.tied_embeddings ? 0 : v * h),
               .repeat = 1};
    head.ops.push_back(norm("final_norm", shape.norm, s, h, TpSplit::m));
    head.ops.push_back(matmul("logits", s, v, h, v * h, s * h, TpSplit::n));
    head.ops.push_back(loss_softmax("loss_softmax", s, v, TpSplit::n));
    w.layers.push_back(std::move(head));
    return w;
}

Workload transformer_xl(const TxlShape& x, std::string name) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("transformer-xl '" + name + "': " + why);
    };
    if (x.layers < 1 || x.d_model < 1 || x.heads < 1 || x.d_head < 1 || x.d_inner < 1 ||
        x.tgt_len < 1 || x.vocab < 1 || x.mem_len < 0 || x.div_val < 1)
        fail("layers, d_model, heads, d_head, d_inner, tgt_len, vocab and div_val must be "
             "positive, mem_len non-negative");
    // Clusters: the shortlist [0, c1) and one tail per non-zero cutoff.
    std::vector<Cluster> clusters;
    double lo = 0, d = x.d_model;
    for (int c : x.cutoffs) {
        if (c == 0) continue;
        if (c <= lo || c >= x.vocab)
            fail("cutoffs must ascend and lie below the vocabulary, got " + std::to_string(c));
        clusters.push_back({lo, static_cast<double>(c), d, 0});
        lo = c;
        if (x.div_val > 1) d = std::floor(d / x.div_val);
    }
    clusters.push_back({lo, static_cast<double>(x.vocab), d, 0});
    if (d < 1) fail("div_val leaves a cluster without embedding width");
    const double v = x.vocab;
    for (Cluster& c : clusters) c.share = zipf_share(c.lo, c.hi, v);
    const double tails = static_cast<double>(clusters.size()) - 1;

    const double q = x.tgt_len, mem = x.mem_len, kl = q + mem, h = x.d_model;
    const double a = x.heads, dh = x.d_head, adh = a * dh, f = x.d_inner;
    const double L = x.layers;
    const bool adaptive_input = x.div_val > 1;  // div_val 1: one table of width d_model
    Workload w{.name = std::move(name), .domain = Domain::language, .seq_len = q, .layers = {},
               .vocab = v, .hidden = h, .n_layers = x.layers, .heads = x.heads,
               .kv_heads = x.heads, .ffn_hidden = f};

    // Adaptive input (AdaptiveEmbedding): with div_val > 1 each cluster has its own table of
    // width d_i and a projection to d_model, applied to the tokens of that cluster; the
    // output is scaled by sqrt(d_model). The relative-position biases u and v (r_w_bias,
    // r_r_bias, n_head x d_head each) are shared by every layer and counted here.
    Layer emb{.name = "embedding", .ops = {}, .params = 2 * adh, .repeat = 1};
    if (!adaptive_input) {
        emb.ops.push_back(lookup("token_embed", q, h));
        emb.params += v * h;
    } else {
        for (std::size_t i = 0; i < clusters.size(); ++i) {
            const Cluster& c = clusters[i];
            const double rows = c.share * q;
            emb.ops.push_back(lookup(txl_embed_names[i], rows, c.d));
            emb.ops.push_back(matmul(txl_embed_proj_names[i], rows, h, c.d, h * c.d, rows * c.d,
                                     TpSplit::none));
            emb.params += c.size() * c.d + h * c.d;
        }
    }
    emb.ops.push_back(pointwise("embed_scale", OpClass::elementwise, q, h, 1, 1, 2 * q * h, 0,
                                TpSplit::m));
    if (x.dropout) emb.ops.push_back(dropout("embed_dropout", q, h, 1, TpSplit::m));
    w.layers.push_back(std::move(emb));

    // RelPartialLearnableDecoderLayer, post-norm. The memory is concatenated before the
    // layer's QKV projection, which DLE applies to all tgt_len + mem_len rows (the queries of
    // the memory rows are computed and dropped). The memory carries no gradient, but the
    // input gradient of the concatenation is computed whole by the dgrad GEMM.
    const double probs = a * q * kl;
    const double block_params = h * 3 * adh + h * adh + adh * h + (h * f + f) + (f * h + h) +
                                2 * norm_params(NormKind::layer_norm, h);
    Layer blk{.name = "block", .ops = {}, .params = block_params, .repeat = x.layers};
    auto& ops = blk.ops;
    // The previous segment's hidden states stay resident for the step: counted as stash.
    if (mem > 0)
        ops.push_back(pointwise("mem_concat", OpClass::elementwise, kl, h, 1, 0, 2 * kl * h,
                                mem * h, TpSplit::m));
    ops.push_back(matmul("qkv", kl, 3 * adh, h, h * 3 * adh, kl * h, TpSplit::n));
    // r_net projects the sinusoidal position embeddings of the kl distances, the same for
    // every sample: once per micro-batch, no input gradient. Its input (one kl x h table)
    // and output (kl x a d_head, read by attn_bd) are per micro-batch and left out of the
    // stash.
    Op r_net = matmul("r_net", kl, adh, h, h * adh, 0, TpSplit::n);
    r_net.samples = SampleDim::none;
    r_net.input_grad = false;
    ops.push_back(r_net);
    // q + u and q + v (the shared biases are counted with the embedding).
    ops.push_back(pointwise("rel_bias_add", OpClass::elementwise, q, adh, 1, 2 * add_flops,
                            3 * q * adh, 0, TpSplit::n));
    // Content scores AC = (q + u) K^T and position scores BD = (q + v) R^T, both q x kl per
    // head. R is shared by the samples, so BD stacks the micro-batch's queries along m.
    ops.push_back(attention("attn_ac", a, q, kl, dh, q * adh + kl * adh + probs,
                            q * adh + kl * adh));
    Op bd = attention("attn_bd", a, q, kl, dh, q * adh + kl * adh + probs, q * adh);
    bd.samples = SampleDim::m;
    ops.push_back(bd);
    // _rel_shift (pad, reshape: a copy), add_and_scale (TorchScript: (AC + BD) * scale),
    // masked_fill_, softmax: separate kernels over the q x kl scores.
    ops.push_back(pointwise("rel_shift", OpClass::elementwise, q, kl, a, 0, 2 * probs, 0,
                            TpSplit::batch));
    ops.push_back(pointwise("score_add_scale", OpClass::elementwise, q, kl, a, 2 * add_flops,
                            3 * probs, 0, TpSplit::batch));
    ops.push_back(pointwise("attn_mask", OpClass::elementwise, q, kl, a, 1, 2 * probs, 0,
                            TpSplit::batch));
    ops.push_back(pointwise("attn_softmax", OpClass::softmax, q, kl, a, softmax_flops,
                            2 * probs, probs, TpSplit::batch));
    if (x.attn_dropout) ops.push_back(dropout("attn_dropout", q, kl, a, TpSplit::batch));
    ops.push_back(attention("attn_context", a, q, dh, kl, probs + kl * adh + q * adh,
                            (x.attn_dropout ? probs : 0) + kl * adh));
    ops.push_back(matmul("attn_proj", q, h, adh, adh * h, q * adh, TpSplit::k));
    if (x.dropout) ops.push_back(dropout("attn_out_dropout", q, h, 1, TpSplit::m));
    ops.push_back(add("attn_residual", q, h, TpSplit::m));
    ops.push_back(norm("attn_norm", NormKind::layer_norm, q, h, TpSplit::m));
    // PositionwiseFF: Linear, ReLU (in place), Dropout, Linear, Dropout. The ReLU output is
    // stashed by the ReLU when a dropout follows, else by mlp_down, which reads it.
    ops.push_back(matmul("mlp_up", q, f, h, h * f + f, q * h, TpSplit::n));
    ops.push_back(pointwise("relu", OpClass::elementwise, q, f, 1, relu_flops, 2 * q * f,
                            x.dropout ? q * f : 0, TpSplit::n));
    if (x.dropout) ops.push_back(dropout("mlp_inner_dropout", q, f, 1, TpSplit::n));
    ops.push_back(matmul("mlp_down", q, h, f, f * h + h, q * f, TpSplit::k));
    if (x.dropout) ops.push_back(dropout("mlp_dropout", q, h, 1, TpSplit::m));
    ops.push_back(add("mlp_residual", q, h, TpSplit::m));
    ops.push_back(norm("mlp_norm", NormKind::layer_norm, q, h, TpSplit::m));
    w.layers.push_back(std::move(blk));

    // Output dropout, the memory update (torch.stack of every layer's input) and the
    // ProjectedAdaptiveLogSoftmax. The head scores every token over the shortlist plus one
    // logit per tail cluster; each tail scores only its tokens (share by Zipf) over its own
    // words. Output weights are the input tables (tied); new parameters: the cluster logits'
    // weights and biases, the output biases and, with div_val > 1, the head projection
    // (tie_projs[0] is false).
    const Cluster& head_c = clusters.front();
    const double head_n = head_c.size() + tails;
    Layer head{.name = "head", .ops = {},
               .params = tails * h + tails + v + (adaptive_input ? h * head_c.d : 0),
               .repeat = 1};
    if (x.dropout) head.ops.push_back(dropout("final_dropout", q, h, 1, TpSplit::m));
    if (mem > 0)
        head.ops.push_back(pointwise("mem_update", OpClass::elementwise, q, h, L, 0,
                                     2 * L * q * h, 0, TpSplit::none));
    double head_in = h;
    if (adaptive_input) {
        head.ops.push_back(matmul(txl_proj_names[0], q, head_c.d, h, h * head_c.d, q * h,
                                  TpSplit::none));
        head_in = head_c.d;
    }
    head.ops.push_back(matmul(txl_logit_names[0], q, head_n, head_in,
                              head_n * head_in + head_n, q * head_in, TpSplit::n));
    head.ops.push_back(loss_softmax(txl_logsoftmax_names[0], q, head_n, TpSplit::n));
    if (tails > 0) {
        double tail_rows = 0;
        for (std::size_t i = 1; i < clusters.size(); ++i) tail_rows += clusters[i].share * q;
        head.ops.push_back(pointwise("tail_gather", OpClass::elementwise, tail_rows, h, 1, 0,
                                     2 * tail_rows * h, 0, TpSplit::none));
    }
    for (std::size_t i = 1; i < clusters.size(); ++i) {
        const Cluster& c = clusters[i];
        const double rows = c.share * q;
        double in = h;
        if (adaptive_input) {  // tied to the input projection of the cluster
            head.ops.push_back(matmul(txl_proj_names[i], rows, c.d, h, h * c.d, rows * h,
                                      TpSplit::none));
            in = c.d;
        }
        head.ops.push_back(matmul(txl_logit_names[i], rows, c.size(), in, c.size() * in + c.size(),
                                  rows * in, TpSplit::n));
        head.ops.push_back(loss_softmax(txl_logsoftmax_names[i], rows, c.size(), TpSplit::n));
    }
    w.layers.push_back(std::move(head));
    return w;
}

std::span<const Preset> gpt_presets() { return preset_table; }

const Preset* find_gpt_preset(std::string_view name) {
    const auto it = std::find_if(preset_table.begin(), preset_table.end(),
                                 [name](const Preset& p) { return p.name == name; });
    return it == preset_table.end() ? nullptr : &*it;
}

std::span<const TxlPreset> txl_presets() { return txl_table; }

const TxlPreset* find_txl_preset(std::string_view name) {
    const auto it = std::find_if(txl_table.begin(), txl_table.end(),
                                 [name](const TxlPreset& p) { return p.name == name; });
    return it == txl_table.end() ? nullptr : &*it;
}

std::span<const ModelInfo> model_names() { return model_table; }

const Registry<const Preset*>& model_registry() {
    static const Registry<const Preset*> registry = [] {
        std::vector<RegistryEntry<const Preset*>> entries;
        for (const ModelInfo& m : model_table) entries.push_back({m.name, find_gpt_preset(m.name), m.description});
        return Registry<const Preset*>("model", std::move(entries));
    }();
    return registry;
}

}  // namespace rentsim::work
