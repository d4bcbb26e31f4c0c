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

    double head_dim() const { return h / heads; }
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

// Megatron-style self-attention without fused kernels: the stash matches Korthikanti et al.
// 2022 (Reducing Activation Recomputation, Sec. 4.1): QKV input, Q and K, softmax output,
// dropout mask and output, V, projection input, projection dropout mask.
void append_attention(std::vector<Op>& ops, const Block& b) {
    const double s = b.s, h = b.h, d = b.head_dim(), a = b.heads;
    const double kv = b.kv_heads * d;  // width of K (and of V)
    const double probs = a * s * s;
    ops.push_back(matmul("qkv", s, b.qkv_width(), h, h * b.qkv_width() + b.bias(b.qkv_width()),
                         s * h, TpSplit::n));
    if (b.rotary)
        ops.push_back(pointwise("rotary", OpClass::elementwise, s, a * d + kv, 1, rotary_flops,
                                2 * s * (a * d + kv), 0, TpSplit::n));
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
    }
    ops.push_back(matmul("mlp_down", s, h, f, f * h + b.bias(h), s * f, TpSplit::k));
    if (b.dropout) ops.push_back(dropout("mlp_dropout", s, h, 1, TpSplit::m));
}

// Pre-norm (GPT): x + attn(norm(x)), then x + mlp(norm(x)).
Layer pre_norm_block(const Block& b, int repeat) {
    Layer layer{.name = "block", .ops = {}, .params = b.params(), .repeat = repeat};
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

Workload bert_common(std::string_view size, int seq_len, std::string_view suffix) {
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
                    .ffn = static_cast<double>(cfg.ffn)};
    w.layers.push_back(post_norm_block(blk, cfg.layers));
    return w;
}

// ---------------------------------------------------------------------------------------
// GPT presets.

constexpr int gpt3_vocab = 50257;  // GPT-2 BPE
constexpr int gpt3_context = 2048;
constexpr int llama_vocab = 32000;
constexpr int llama2_context = 4096;

constexpr GptShape gpt3(int layers, int hidden, int heads) {
    return GptShape{.layers = layers, .hidden = hidden, .heads = heads, .seq_len = gpt3_context,
                    .vocab = gpt3_vocab};
}

constexpr GptShape llama2(int layers, int hidden, int heads, int kv_heads, int ffn) {
    return GptShape{.layers = layers, .hidden = hidden, .heads = heads,
                    .seq_len = llama2_context, .vocab = llama_vocab, .ffn_hidden = ffn,
                    .kv_heads = kv_heads, .gated_mlp = true, .norm = NormKind::rms_norm,
                    .learned_positions = false, .tied_embeddings = false, .biases = false,
                    .dropout = false};
}

// GPT-3: Brown et al. 2020, Table 2.1 (n_layers, d_model, n_heads; d_ff = 4 d_model; context
// 2048). Two rows are not self-consistent and are adjusted so that heads * d_head = d_model:
// XL lists 24 heads of 128 for d_model 2048 (16 heads kept), 13B lists d_model 5140 with 40
// heads of 128 (5120 kept). Llama 2: Touvron et al. 2023 and the released configurations
// (hidden, heads, kv heads, SwiGLU width).
constexpr std::array<Preset, 11> preset_table{{
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
}};

constexpr std::array<ModelInfo, 4> builder_models{{
    {"resnet50", "ResNet-50 v1.5 image classifier (torchvision layout), 25.6M parameters"},
    {"bert-base", "BERT-Base pretraining (MLM + NSP): 12 layers, hidden 768, 12 heads"},
    {"bert-large", "BERT-Large pretraining (MLM + NSP): 24 layers, hidden 1024, 16 heads"},
    {"gpt", "GPT-style decoder of a custom shape (layers, hidden, heads, seq_len, vocab, ...)"},
}};

constexpr auto model_table = [] {
    std::array<ModelInfo, builder_models.size() + preset_table.size()> all{};
    std::size_t i = 0;
    for (const ModelInfo& m : builder_models) all[i++] = m;
    for (const Preset& p : preset_table) all[i++] = {p.name, p.description};
    return all;
}();

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
    head.ops.push_back(pointwise("loss_softmax", OpClass::softmax, 1, classes, 1, softmax_flops,
                                 2 * classes, classes, TpSplit::none));
    for (const Op& op : head.ops) head.params += op.weight_elems;
    w.layers.push_back(std::move(head));
    return w;
}

Workload bert(std::string_view size, int seq_len) {
    Workload w = bert_common(size, seq_len, "");
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
    heads.ops.push_back(pointwise("mlm_loss_softmax", OpClass::softmax, masked, v, 1, softmax_flops,
                                  2 * masked * v, masked * v, TpSplit::n));
    // The NSP input is the pooler's tanh output, which the tanh already stashes.
    heads.ops.push_back(matmul("nsp", 1, 2, h, 2 * h + 2, 0, TpSplit::none));
    heads.ops.push_back(pointwise("nsp_loss_softmax", OpClass::softmax, 1, 2, 1, softmax_flops, 4,
                                  2, TpSplit::none));
    w.layers.push_back(std::move(heads));
    return w;
}

Workload bert_squad(std::string_view size, int seq_len) {
    Workload w = bert_common(size, seq_len, "-squad");
    const double s = seq_len, h = w.hidden;
    // Devlin et al. 2019, Sec. 4.2: start and end vectors over the final hidden states; the
    // pooler is unused (Hugging Face BertForQuestionAnswering builds none).
    Layer head{.name = "qa_head", .ops = {}, .params = 2 * h + 2, .repeat = 1};
    head.ops.push_back(matmul("qa_outputs", s, 2, h, 2 * h + 2, s * h, TpSplit::none));
    head.ops.push_back(pointwise("span_loss_softmax", OpClass::softmax, 2, s, 1, softmax_flops,
                                 4 * s, 2 * s, TpSplit::none));
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
    double ffn = shape.ffn_hidden;
    if (ffn == 0)
        ffn = shape.gated_mlp ? 256 * std::ceil(8.0 * shape.hidden / 3 / 256) : 4.0 * shape.hidden;

    const double s = shape.seq_len, h = shape.hidden, v = shape.vocab;
    Workload w{.name = std::move(name), .domain = Domain::language, .seq_len = s, .layers = {},
               .vocab = v, .hidden = h, .n_layers = shape.layers, .heads = shape.heads,
               .kv_heads = kv_heads, .ffn_hidden = ffn, .gated_mlp = shape.gated_mlp};

    Layer emb{.name = "embedding", .ops = {},
              .params = v * h + (shape.learned_positions ? s * h : 0), .repeat = 1};
    emb.ops.push_back(lookup("token_embed", s, h));
    if (shape.learned_positions) {
        emb.ops.push_back(lookup("pos_embed", s, h));
        emb.ops.push_back(add("embed_sum", s, h, TpSplit::m));
    }
    if (shape.dropout) emb.ops.push_back(dropout("embed_dropout", s, h, 1, TpSplit::m));
    w.layers.push_back(std::move(emb));

    const Block blk{.s = s, .h = h, .heads = static_cast<double>(shape.heads),
                    .kv_heads = static_cast<double>(kv_heads), .ffn = ffn,
                    .gated = shape.gated_mlp, .biases = shape.biases, .dropout = shape.dropout,
                    .rotary = !shape.learned_positions, .norm = shape.norm};
    w.layers.push_back(pre_norm_block(blk, shape.layers));

    // The output projection has no bias in GPT-2/3 or Llama; when tied, its weights are the
    // token embedding's and counted there.
    Layer head{.name = "head", .ops = {},
               .params = norm_params(shape.norm, h) + (shape.tied_embeddings ? 0 : v * h),
               .repeat = 1};
    head.ops.push_back(norm("final_norm", shape.norm, s, h, TpSplit::m));
    head.ops.push_back(matmul("logits", s, v, h, v * h, s * h, TpSplit::n));
    head.ops.push_back(pointwise("loss_softmax", OpClass::softmax, s, v, 1, softmax_flops,
                                 2 * s * v, s * v, TpSplit::n));
    w.layers.push_back(std::move(head));
    return w;
}

std::span<const Preset> gpt_presets() { return preset_table; }

const Preset* find_gpt_preset(std::string_view name) {
    const auto it = std::find_if(preset_table.begin(), preset_table.end(),
                                 [name](const Preset& p) { return p.name == name; });
    return it == preset_table.end() ? nullptr : &*it;
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
