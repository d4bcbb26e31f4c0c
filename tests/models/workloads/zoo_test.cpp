// The zoo against published parameter counts and FLOP formulas; each source is named
// beside its figure.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/workloads/zoo.hpp"

using namespace rentsim::work;

namespace {

double rel_err(double actual, double published) { return std::abs(actual / published - 1); }

Workload preset(std::string_view name) {
    const Preset* p = find_gpt_preset(name);
    REQUIRE(p != nullptr);
    return gpt(p->shape, std::string(name));
}

const Layer& layer(const Workload& w, std::string_view name) {
    for (const Layer& l : w.layers)
        if (l.name == name) return l;
    FAIL("no layer " << name << " in " << w.name);
    return w.layers.front();
}

const Op& op(const Layer& l, std::string_view name) {
    for (const Op& o : l.ops)
        if (o.name == name) return o;
    FAIL("no op " << name << " in layer " << l.name);
    return l.ops.front();
}

double gemm_macs(const Workload& w) {
    double macs = 0;
    for (const Layer& l : w.layers)
        for (const Op& o : l.ops)
            if (o.cls == OpClass::conv || o.cls == OpClass::matmul)
                macs += o.m * o.n * o.k * o.batch * l.repeat;
    return macs;
}

std::vector<Workload> whole_zoo() {
    std::vector<Workload> all{resnet50(), resnet50(160), bert("base", 128), bert("large", 512),
                              bert_squad("base"), bert_squad("large", 512),
                              bert("large", 512, AttentionKind::flash),
                              bert_squad("base", 384, AttentionKind::flash)};
    for (const Preset& p : gpt_presets()) all.push_back(gpt(p.shape, std::string(p.name)));
    for (const TxlPreset& p : txl_presets()) all.push_back(transformer_xl(p.shape, std::string(p.name)));
    return all;
}

}  // namespace

// ---- ResNet-50 ---------------------------------------------------------------------------

TEST_CASE("ResNet-50 has torchvision's 25.56M parameters") {
    // torchvision.models.ResNet50_Weights.IMAGENET1K_V1 meta: num_params 25,557,032.
    const Workload w = resnet50();
    INFO("params " << w.params());
    CHECK(rel_err(w.params(), 25'557'032) < 0.005);
    CHECK(w.params() == 25'557'032);  // conv and fc weights, fc bias, BN scale and shift
}

TEST_CASE("ResNet-50 costs about 4.1 G multiply-accumulates per 224x224 image") {
    // torchvision ResNet50_Weights meta: 4.09 GFLOPS, counted as multiply-accumulates of the
    // convolutions and the classifier (He et al. 2016, Table 1: 3.8e9 for v1, whose stride
    // sits on the first 1x1 conv).
    const Workload w = resnet50();
    INFO("GEMM MACs " << gemm_macs(w) << ", forward FLOPs " << w.fwd_flops_per_sample());
    CHECK(rel_err(gemm_macs(w), 4.09e9) < 0.01);
    // With 2 FLOPs per MAC and batch-norm, ReLU and pooling FLOPs added: ~8.2 GFLOP.
    CHECK(rel_err(w.fwd_flops_per_sample(), 8.2e9) < 0.03);
}

TEST_CASE("ResNet-50 convolution work grows with the image area") {
    // 448 = 2 x 224 keeps every stride exact, so the GEMM work is 4x (the fc is fixed).
    const double fc_macs = 2048.0 * 1000;
    CHECK(rel_err(gemm_macs(resnet50(448)) - fc_macs, 4 * (gemm_macs(resnet50()) - fc_macs)) <
          1e-12);
    CHECK(op(layer(resnet50(), "head"), "fc").k == 2048);
}

TEST_CASE("ResNet-50 v1.5 strides on the 3x3 conv and skips the image gradient") {
    const Workload w = resnet50();
    const Layer& first = layer(w, "layer2.0");
    CHECK(op(first, "conv1_1x1").m == 56.0 * 56);  // stride 1
    CHECK(op(first, "conv2_3x3").m == 28.0 * 28);  // stride 2
    CHECK(layer(w, "layer3.1+").repeat == 5);
    const Op& stem = op(layer(w, "stem"), "conv1_7x7");
    CHECK_FALSE(stem.input_grad);
    CHECK(backward_ops(stem).size() == 1);
}

// ---- BERT --------------------------------------------------------------------------------

TEST_CASE("BERT-Base and BERT-Large have the published 110M and 340M parameters, heads included") {
    // Devlin et al. 2019, Sec. 3: BERT-BASE 110M, BERT-LARGE 340M. Counted: embeddings,
    // encoder, pooler and the pretraining heads (MLM transform, decoder bias, NSP); the MLM
    // decoder weights are the word embeddings.
    const Workload base = bert("base", 512);
    const Workload large = bert("large", 512);
    INFO("base " << base.params() << ", large " << large.params());
    CHECK(rel_err(base.params(), 110e6) < 0.02);
    CHECK(rel_err(large.params(), 340e6) < 0.02);
}

TEST_CASE("BERT encoders with pooler match the Hugging Face parameter counts exactly") {
    // bert-base-uncased: 109,482,240 and bert-large-uncased: 335,141,888 parameters in
    // BertModel (embeddings, encoder, pooler).
    for (const auto& [size, published] : {std::pair{"base", 109'482'240.0},
                                          std::pair{"large", 335'141'888.0}}) {
        const Workload w = bert(size, 128);
        const double model = w.params() - layer(w, "pretraining_heads").params;
        CHECK(model == published);
    }
}

TEST_CASE("BERT's MLM head predicts only the masked 15% of positions") {
    const Workload w = bert("base", 512);
    const Op& decoder = op(layer(w, "pretraining_heads"), "mlm_decoder");
    CHECK(decoder.m == doctest::Approx(0.15 * 512));
    CHECK(decoder.n == 30522);
    CHECK(decoder.k == 768);
}

// PyTorch keeps a softmax row on chip up to 48 KiB of 16-bit data (24,576 classes) and reads a
// longer one three times and writes it once; a short row is read and written once.
TEST_CASE("a vocabulary-wide loss softmax streams its logits four times, a short one twice") {
    const Workload b = bert("base", 512);
    const Op& mlm = op(layer(b, "pretraining_heads"), "mlm_loss_softmax");
    CHECK(mlm.fwd_elems == doctest::Approx(4 * 0.15 * 512 * 30522));
    CHECK(mlm.saved_elems == doctest::Approx(0.15 * 512 * 30522));
    const Workload r = resnet50();
    CHECK(op(layer(r, "head"), "loss_softmax").fwd_elems == 2 * 1000);
}

TEST_CASE("BERT for SQuAD has a two-way span head and no pooler") {
    const Workload w = bert_squad("base");
    CHECK(w.seq_len == 384);
    CHECK(w.params() == 109'482'240.0 - (768.0 * 768 + 768) + (2 * 768 + 2));
    CHECK(op(layer(w, "qa_head"), "qa_outputs").n == 2);
}

// ---- GPT ---------------------------------------------------------------------------------

TEST_CASE("GPT-3 sizes match Table 2.1 of the GPT-3 paper within 3%") {
    // Brown et al. 2020, Table 2.1.
    const std::pair<std::string_view, double> table[] = {
        {"gpt3-125m", 125e6}, {"gpt3-350m", 350e6}, {"gpt3-760m", 760e6},
        {"gpt3-1.3b", 1.3e9}, {"gpt3-2.7b", 2.7e9}, {"gpt3-6.7b", 6.7e9},
        {"gpt3-13b", 13.0e9}, {"gpt3-175b", 175.0e9}};
    for (const auto& entry : table) {
        const auto name = entry.first;
        const auto published = entry.second;
        const double params = preset(name).params();
        INFO(name << ": " << params);
        CHECK(rel_err(params, published) < 0.03);
    }
    CHECK(rel_err(preset("gpt3-175b").params(), 175e9) < 0.01);
}

TEST_CASE("Llama 2 sizes match the released models within 1.5%") {
    // Touvron et al. 2023 (Llama 2); the released checkpoints hold 6.74B, 13.0B and 69.0B
    // parameters (6,738,415,616 / 13,015,864,320 / 68,976,648,192).
    const std::pair<std::string_view, double> table[] = {
        {"llama2-7b", 6.74e9}, {"llama2-13b", 13.0e9}, {"llama2-70b", 69.0e9}};
    for (const auto& entry : table) {
        const auto name = entry.first;
        const auto published = entry.second;
        const double params = preset(name).params();
        INFO(name << ": " << params);
        CHECK(rel_err(params, published) < 0.015);
    }
    CHECK(preset("llama2-7b").params() == 6'738'415'616.0);
    CHECK(preset("llama2-70b").params() == 68'976'648'192.0);
}

TEST_CASE("grouped-query attention narrows the K and V projections") {
    const Workload w = preset("llama2-70b");
    const Op& qkv = op(layer(w, "block"), "qkv");
    CHECK(w.kv_heads == 8);
    CHECK(qkv.n == 8192 + 2 * 8 * 128);
    CHECK(qkv.weight_elems == 8192.0 * (8192 + 2 * 8 * 128));
    CHECK(op(layer(w, "block"), "flash_attn").batch == 64);
    // The unfused form of the same shape keeps one scores GEMM per query head.
    GptShape unfused = find_gpt_preset("llama2-70b")->shape;
    unfused.attention = AttentionKind::unfused;
    CHECK(op(layer(gpt(unfused), "block"), "attn_scores").batch == 64);
}

TEST_CASE("GPT training FLOPs per token follow 6N + 12 l h s within 1%") {
    // PaLM (Chowdhery et al. 2022, App. B): 6N + 12 L H Q T per token, with N read as
    // nanoGPT (position table excluded, tied token embedding kept: it is the output layer)
    // and torchtitan (untied input embedding excluded) compute it. The MFU figure keeps that
    // convention whatever the attention kernel; the FLOPs the ops count follow it for
    // unfused attention (the full square), while FlashAttention skips the masked half and
    // runs 3.5x its forward in training (forward + 2.5x backward).
    for (const Preset& p : gpt_presets()) {
        const Workload w = gpt(p.shape, std::string(p.name));
        const GptShape& s = p.shape;
        const double lookup_only = s.positions == Positions::learned ? double(s.seq_len) * s.hidden
                                   : s.tied_embeddings              ? 0.0
                                                                    : double(s.vocab) * s.hidden;
        const double n = w.params() - lookup_only;
        const double attention = 12.0 * s.layers * s.hidden * s.seq_len;
        const double formula = 6 * n + attention;
        INFO(p.name << ": train/token " << w.train_flops_per_sample() / w.seq_len
                    << ", formula " << formula);
        CHECK(rel_err(w.model_flops_per_token(), formula) < 1e-3);  // norms are not in N
        if (s.attention == AttentionKind::unfused) {
            CHECK(rel_err(w.train_flops_per_sample() / w.seq_len, formula) < 0.01);
        } else {
            double flash = 0;  // per sample, every layer
            for (const Layer& l : w.layers)
                for (const Op& o : l.ops)
                    if (o.cls == OpClass::fused_attention) flash += 3.5 * o.fwd_flops * l.repeat;
            CHECK(flash > 0);
            CHECK(rel_err((w.train_flops_per_sample() - flash) / w.seq_len, 6 * n) < 0.01);
        }
    }
}

TEST_CASE("GPT-3 175B training FLOPs match Megatron's formula without recomputation within 2%") {
    // Narayanan et al. 2021 (Efficient Large-Scale Language Model Training, Sec. 5.1):
    // F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) with activation recomputation; 3/4 of it
    // without.
    const Workload w = preset("gpt3-175b");
    const double b = 1, s = 2048, l = 96, h = 12288, v = 50257;
    const double megatron = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
    INFO("ours " << w.train_flops_per_sample() << ", Megatron " << megatron);
    CHECK(rel_err(w.train_flops_per_sample(), megatron) < 0.02);
}

TEST_CASE("a GPT-3 block stashes the activations counted by Korthikanti et al.") {
    // Korthikanti et al. 2022 (Reducing Activation Recomputation), Sec. 4.1: one layer
    // stores s b h (34 + 5 a s / h) bytes with 16-bit activations and 1-byte dropout masks.
    const Workload w = preset("gpt3-13b");
    const double s = 2048, h = 5120, a = 40;
    double bytes = 0;
    for (const Op& o : layer(w, "block").ops) bytes += 2 * o.saved_elems + o.saved_mask_elems;
    CHECK(bytes == doctest::Approx(s * h * (34 + 5 * a * s / h)).epsilon(1e-12));
}

TEST_CASE("the default gated MLP width follows the Llama rule") {
    // Llama: 2/3 of 4h rounded up to a multiple of 256, so 11008 for h = 4096.
    const Workload w = gpt(GptShape{.layers = 2, .hidden = 4096, .heads = 32, .seq_len = 128,
                                    .vocab = 1000, .gated_mlp = true});
    CHECK(w.ffn_hidden == 11008);
    CHECK(gpt(GptShape{.layers = 2, .hidden = 256, .heads = 4, .seq_len = 16, .vocab = 100})
              .ffn_hidden == 1024);
}

// ---- The whole zoo -----------------------------------------------------------------------

TEST_CASE("every op of the zoo is well formed") {
    for (const Workload& w : whole_zoo()) {
        for (const Layer& l : w.layers) {
            CHECK(l.repeat >= 1);
            for (const Op& o : l.ops) {
                INFO(w.name << " / " << l.name << " / " << o.name);
                CHECK_FALSE(o.name.empty());
                CHECK(o.fwd_flops >= 0);
                CHECK(o.fwd_elems > 0);
                CHECK(o.weight_elems >= 0);
                CHECK(o.saved_elems >= 0);
                CHECK(o.m > 0);
                CHECK(o.n > 0);
                CHECK(o.batch >= 1);
                if (o.cls == OpClass::matmul || o.cls == OpClass::conv ||
                    o.cls == OpClass::attention)
                    CHECK(o.fwd_flops == 2 * o.m * o.n * o.k * o.batch);
                else if (o.cls == OpClass::fused_attention)  // at most the full square
                    CHECK(o.fwd_flops <= (4 * o.k + 7) * o.m * o.n * o.batch);
                else
                    CHECK(o.k == 0);
            }
        }
    }
}

TEST_CASE("the ops of every layer read exactly the layer's own parameters") {
    // Lookup tables are read row by row (weight_elems 0) and tied output layers read the
    // token embedding, so those layers are left out.
    for (const Workload& w : whole_zoo()) {
        for (const Layer& l : w.layers) {
            if (l.name == "embedding" || l.name == "embeddings" || l.name == "head" ||
                l.name == "pretraining_heads")
                continue;
            double read = 0;
            for (const Op& o : l.ops) read += o.weight_elems;
            INFO(w.name << " / " << l.name);
            CHECK(read == l.params);
        }
    }
}

TEST_CASE("the preset registry finds every preset by name and nothing else") {
    CHECK(find_gpt_preset("gpt3-7b") == nullptr);
    CHECK(find_gpt_preset("") == nullptr);
    CHECK(gpt_presets().size() == 26);
    for (const Preset& p : gpt_presets()) {
        CHECK(find_gpt_preset(p.name) == &p);
        CHECK_FALSE(p.description.empty());
        const Workload w = gpt(p.shape, std::string(p.name));
        CHECK(w.fwd_flops_per_sample() > 0);
        CHECK(w.train_flops_per_sample() > w.fwd_flops_per_sample());
        CHECK(w.model_flops_per_token() > 0);
    }
}

TEST_CASE("the model registry lists the builders and every preset once, each described") {
    std::set<std::string_view> names;
    for (const ModelInfo& m : model_names()) {
        CHECK(names.insert(m.name).second);
        CHECK_FALSE(m.description.empty());
    }
    for (const char* n : {"resnet50", "bert-base", "bert-large", "gpt", "pointnet2-ssg-scannet"}) CHECK(names.count(n) == 1);
    for (const Preset& p : gpt_presets()) CHECK(names.count(p.name) == 1);
    for (const TxlPreset& p : txl_presets()) CHECK(names.count(p.name) == 1);
    CHECK(names.size() == 5 + gpt_presets().size() + txl_presets().size());
}

TEST_CASE("bad shapes are rejected with the model named") {
    CHECK_THROWS_WITH_AS(gpt(GptShape{.layers = 24, .hidden = 2048, .heads = 24, .seq_len = 2048,
                                      .vocab = 50257},
                             "xl"),
                         "gpt 'xl': hidden 2048 is not a multiple of heads 24",
                         std::invalid_argument);
    CHECK_THROWS_AS(gpt(GptShape{.layers = 2, .hidden = 512, .heads = 8, .seq_len = 16,
                                 .vocab = 100, .kv_heads = 3}),
                    std::invalid_argument);
    CHECK_THROWS_AS(gpt(GptShape{}), std::invalid_argument);
    CHECK_THROWS_WITH_AS(bert("huge", 128), "bert: unknown size 'huge'; valid: base, large",
                         std::invalid_argument);
    CHECK_THROWS_AS(bert("base", 513), std::invalid_argument);
    CHECK_THROWS_AS(bert_squad("large", 0), std::invalid_argument);
    CHECK_THROWS_AS(resnet50(16), std::invalid_argument);
}

TEST_CASE("the model registry has model_names() in order, with each preset as its value") {
    const auto& reg = model_registry();
    CHECK(reg.what() == "model");
    REQUIRE(reg.entries().size() == model_names().size());
    for (std::size_t i = 0; i < model_names().size(); ++i) {
        const auto& e = reg.entries()[i];
        CHECK(e.name == model_names()[i].name);
        CHECK(e.description == model_names()[i].description);
        CHECK(e.value == find_gpt_preset(e.name));
    }
    const std::vector<std::string_view> first(reg.names().begin(), reg.names().begin() + 5);
    CHECK(first == std::vector<std::string_view>{"resnet50", "bert-base", "bert-large", "gpt", "gpt3-125m"});
    REQUIRE(reg.find("llama2-70b") != nullptr);
    CHECK((*reg.find("llama2-70b"))->shape.kv_heads == 8);
    REQUIRE(reg.find("gpt") != nullptr);
    CHECK(*reg.find("gpt") == nullptr);
    CHECK(reg.find("bert") == nullptr);
    REQUIRE(reg.find("transformer-xl") != nullptr);
    CHECK(*reg.find("transformer-xl") == nullptr);  // not a GPT preset: find_txl_preset
    CHECK(reg.unknown_message("llama2-7") ==
          "unknown model 'llama2-7'; did you mean 'llama2-7b'? valid: resnet50, bert-base, bert-large, gpt, "
          "gpt3-125m, gpt3-350m, gpt3-760m, gpt3-1.3b, gpt3-2.7b, gpt3-6.7b, gpt3-13b, gpt3-175b, llama2-7b, "
          "llama2-13b, llama2-70b, llama3-8b, llama3.1-8b, llama3-70b, llama3.1-70b, llama3.1-405b, mistral-7b, "
          "mpt-125m, mpt-350m, mpt-760m, mpt-1b, mpt-3b, mpt-7b, mpt-13b, mpt-30b, mpt-70b, transformer-xl-base, "
          "transformer-xl, pointnet2-ssg-scannet");
}
