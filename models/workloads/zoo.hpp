// The workload zoo: builders for ResNet-50, BERT, GPT-style decoders and Transformer-XL, and
// the explicit registry of model names a scenario may use. Shapes, sources and FLOP conventions are in
// models/workloads/README.md. Builders throw std::invalid_argument on a bad shape or name.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "models/registry.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::work {

enum class NormKind { layer_norm, rms_norm };

// How a transformer computes attention.
// unfused: Megatron-style separate kernels (scores GEMM, softmax, dropout, context GEMM) that
//   write the s x s probabilities to memory and stash them for backward; the full square is
//   computed, causal mask or not.
// flash: one FlashAttention kernel (op "flash_attn", OpClass::fused_attention) that keeps the
//   scores on chip, skips the blocks a causal mask hides and stashes only the row logsumexp
//   (Dao et al. 2022; Dao 2023, FlashAttention-2).
// fmha: the fused multi-head attention kernel of NVIDIA's MLPerf BERT (apex contrib fmha): one
//   kernel per direction like flash, but the forward writes the s x s probabilities (with the
//   dropout mask in their sign bits) to memory and stashes them, and the backward reads them
//   instead of recomputing the scores, then overwrites them with dP (apex
//   contrib/csrc/fmha/fmha_api.cpp, mha_fwd and mha_bwd). It runs on sm80 and sm90 only, in
//   fp16, with head size 64 and sequences of at most 512 (the checks in mha_fwd).
enum class AttentionKind { unfused, flash, fmha };

// Where a decoder's position information comes from.
// learned: a trained s x h table added to the token embedding (GPT-2/3, MPT as llm-foundry
//   benchmarks it); rotary: Q and K rotated per position (Llama), no parameters; alibi: a
//   per-head linear bias on the scores (Press et al. 2022), no parameters and no separate op
//   (the unfused softmax and the flash kernel add it in passing, uncounted).
enum class Positions { learned, rotary, alibi };

// A decoder-only transformer. Zero ffn_hidden means 4 * hidden (8/3 * hidden rounded up to
// a multiple of 256 when gated, the Llama rule); zero kv_heads means kv_heads = heads.
// hidden must divide by heads and heads by kv_heads. The trailing switches default to
// GPT-3 (GPT-2 layout, unfused attention); Llama sets RMSNorm, rotary positions, an untied
// output projection, no biases, no dropout and FlashAttention.
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
    Positions positions = Positions::learned;
    bool tied_embeddings = true;        // output projection shares the token embedding
    bool biases = true;                 // biases on every linear layer
    bool dropout = true;                // dropout after attention probs, projections, embedding
                                        // (flash: applied in-kernel, no mask stashed)
    AttentionKind attention = AttentionKind::unfused;
    bool causal = true;                 // decoder mask: flash skips the masked half
    int window = 0;                     // sliding-window span (Mistral: 4096); 0: every earlier
                                        // position. Only the flash form skips the keys outside it.
};

// Transformer-XL language model (Dai et al. 2019) as NVIDIA DeepLearningExamples trains it
// (PyTorch/LanguageModeling/Transformer-XL, mem_transformer.py, attn_type 0): post-norm
// layers whose keys and values span the tgt_len tokens of the segment plus mem_len cached
// hidden states of the previous segment (no gradient), relative positional attention (the
// extra position-score GEMM, tgt_len x (tgt_len + mem_len) x d_head per head), ReLU FFN,
// adaptive input and adaptive softmax (Grave et al. 2017; Baevski and Auli 2019) with the
// given cutoffs (zeros: unused; all zero: one full softmax over the vocabulary) and div_val,
// output layers tied to the input embedding. Unfused attention, as the reference code.
struct TxlShape {
    int layers = 0;
    int d_model = 0;
    int heads = 0;
    int d_head = 0;
    int d_inner = 0;
    int tgt_len = 0;                  // tokens predicted per segment (the sample's seq_len)
    int mem_len = 0;                  // cached positions of the previous segment
    int vocab = 0;
    std::array<int, 3> cutoffs{};     // ascending, below vocab; zeros are unused
    int div_val = 1;                  // embedding width of cluster i: d_model / div_val^i
    bool dropout = true;              // `dropout` > 0: embedding, FFN, projection, output
    bool attn_dropout = false;        // `dropatt` > 0: on the attention probabilities
};

// ResNet-50 v1.5 (torchvision layout) for square images of side `image` pixels (>= 32).
Workload resnet50(int image = 224);
// BERT pretraining: encoder, pooler, MLM head on the masked 15% of positions, NSP head.
// size is "base" or "large"; 1 <= seq_len <= 512. BERT attends both ways (not causal).
Workload bert(std::string_view size, int seq_len, AttentionKind attention = AttentionKind::unfused);
// BERT fine-tuning for SQuAD: encoder and the start/end span head, no pooler.
Workload bert_squad(std::string_view size, int seq_len = 384,
                    AttentionKind attention = AttentionKind::unfused);
Workload gpt(const GptShape& s, std::string name = "gpt");
// PointNet++ SSG semantic segmentation (Qi et al. 2017): four set-abstraction levels (farthest
// point sampling of `centres`, ball query of `neighbours`, shared MLPs 32-32-64, 64-64-128,
// 128-128-256, 256-256-512, max-pool), four feature-propagation levels (256-256, 256-256,
// 256-128, 128-128-128) and a per-point head (128, dropout, classes). The defaults are the
// reference code's ScanNet configuration (charlesq34/pointnet2, models/pointnet2_sem_seg.py
// and scannet/train.py), model name "pointnet2-ssg-scannet"; ops and sources in
// models/workloads/README.md.
struct PointNet2Shape {
    int points = 8192;                           // xyz points per sample
    int in_features = 0;                         // per-point input features beside xyz
    int classes = 21;
    std::array<int, 4> centres{1024, 256, 64, 16};  // per level, decreasing, the first <= points
    int neighbours = 32;                         // ball-query group size
    bool conv_bias = true;                       // tf_util convs add a bias before their BatchNorm;
                                                 // openpoints' convs before a norm have none
};
Workload pointnet2_semseg(const PointNet2Shape& shape = {});
Workload transformer_xl(const TxlShape& s, std::string name = "transformer-xl");

struct Preset {
    std::string_view name;
    std::string_view description;
    GptShape shape;
};
// GPT-3 sizes (Brown et al. 2020, Table 2.1), Llama 2 (Touvron et al. 2023), Llama 3 and
// 3.1 (Dubey et al. 2024), Mistral 7B (Jiang et al. 2023) and MPT as llm-foundry trains it;
// sources in models/workloads/README.md.
std::span<const Preset> gpt_presets();
// nullptr when no preset has this name.
const Preset* find_gpt_preset(std::string_view name);

struct TxlPreset {
    std::string_view name;
    std::string_view description;
    TxlShape shape;
};
// transformer-xl-base and transformer-xl (large), WikiText-103, as NVIDIA DeepLearningExamples
// configures them (pytorch/wt103_base.yaml, wt103_large.yaml).
std::span<const TxlPreset> txl_presets();
// nullptr when no Transformer-XL preset has this name.
const TxlPreset* find_txl_preset(std::string_view name);

struct ModelInfo {
    std::string_view name;
    std::string_view description;
};
// Every model name a scenario may use: "resnet50", "pointnet2-ssg-scannet", "bert-base",
// "bert-large", "gpt" (a custom shape), every GPT preset name and every Transformer-XL preset
// name, each with a one-line description.
std::span<const ModelInfo> model_names();
// The same names, in the same order. The value is the GPT preset of that name, or nullptr
// for the others: the models that take their shape from the scenario (resnet50,
// pointnet2-ssg-scannet, bert-base, bert-large, gpt) and the Transformer-XL presets
// (find_txl_preset).
const Registry<const Preset*>& model_registry();

}  // namespace rentsim::work
