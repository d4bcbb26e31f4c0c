// The workload zoo: builders for ResNet-50, BERT and GPT-style decoders, and the explicit
// registry of model names a scenario may use. Shapes, sources and FLOP conventions are in
// models/workloads/README.md. Builders throw std::invalid_argument on a bad shape or name.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "models/registry.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::work {

enum class NormKind { layer_norm, rms_norm };

// A decoder-only transformer. Zero ffn_hidden means 4 * hidden (8/3 * hidden rounded up to
// a multiple of 256 when gated, the Llama rule); zero kv_heads means kv_heads = heads.
// hidden must divide by heads and heads by kv_heads. The trailing switches default to
// GPT-3 (GPT-2 layout); Llama sets RMSNorm, rotary positions, an untied output projection,
// no biases and no dropout.
struct GptShape {
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int seq_len = 0;
    int vocab = 0;
    int ffn_hidden = 0;
    int kv_heads = 0;
    bool gated_mlp = false;             // SwiGLU: gate, up and down matrices
    NormKind norm = NormKind::layer_norm;
    bool learned_positions = true;      // false: rotary, no position table
    bool tied_embeddings = true;        // output projection shares the token embedding
    bool biases = true;                 // biases on every linear layer
    bool dropout = true;                // dropout after attention probs, projections, embedding
};

// ResNet-50 v1.5 (torchvision layout) for square images of side `image` pixels (>= 32).
Workload resnet50(int image = 224);
// BERT pretraining: encoder, pooler, MLM head on the masked 15% of positions, NSP head.
// size is "base" or "large"; 1 <= seq_len <= 512.
Workload bert(std::string_view size, int seq_len);
// BERT fine-tuning for SQuAD: encoder and the start/end span head, no pooler.
Workload bert_squad(std::string_view size, int seq_len = 384);
Workload gpt(const GptShape& s, std::string name = "gpt");

struct Preset {
    std::string_view name;
    std::string_view description;
    GptShape shape;
};
// GPT-3 sizes (Brown et al. 2020, Table 2.1) and Llama 2 (Touvron et al. 2023, Table 1).
std::span<const Preset> gpt_presets();
// nullptr when no preset has this name.
const Preset* find_gpt_preset(std::string_view name);

struct ModelInfo {
    std::string_view name;
    std::string_view description;
};
// Every model name a scenario may use: "resnet50", "bert-base", "bert-large", "gpt" (a
// custom shape) and every preset name, each with a one-line description.
std::span<const ModelInfo> model_names();
// The same names, in the same order. The value is the GPT preset of that name, or nullptr
// for the models that take their shape from the scenario (resnet50, bert-base, bert-large, gpt).
const Registry<const Preset*>& model_registry();

}  // namespace rentsim::work
