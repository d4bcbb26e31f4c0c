// A training workload as data: layers of operations, each with its GEMM shape, FLOPs and
// memory traffic for ONE sample (one image or one sequence).
//
// The compute model scales an op to a micro-batch along `samples` and divides it by the
// tensor-parallel degree along `tp`; the memory model sums parameters and `saved_elems`.
// Counts are plain doubles: elements and floating-point operations, never bytes, so the
// same workload serves every precision.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rentsim::work {

// fused_attention is a whole FlashAttention kernel (scores, softmax, context in one pass over
// SRAM tiles, Dao et al. 2022/2023): it never writes the s x s scores to memory.
enum class OpClass {
    matmul,
    conv,
    attention,
    elementwise,
    normalization,
    embedding,
    softmax,
    fused_attention
};

// The dimension tensor parallelism divides: column-parallel GEMMs split n, row-parallel
// GEMMs split k, attention heads split batch, sequence-parallel elementwise/norm ops split m.
enum class TpSplit { none, n, k, batch, m };

// The dimension that grows with the micro-batch: rows (tokens, pixels) stack along m,
// per-head attention GEMMs stack along batch, weight-gradient GEMMs reduce over k. `none`:
// the op runs once per micro-batch whatever its size (Transformer-XL projects the position
// embeddings, shared by every sample, once); its fwd_flops and traffic are per micro-batch.
enum class SampleDim { m, k, batch, none };

// One operation, per sample.
// GEMM view (matmul, conv, attention): C[m x n] += A[m x k] B[k x n], `batch` independent
// GEMMs, and fwd_flops = 2 m n k batch exactly. A conv is its implicit GEMM (m = output
// pixels, n = output channels, k = in_channels * kh * kw).
// fused_attention (FlashAttention): m queries, n keys, k = head dim, `batch` heads;
// fwd_flops is the two GEMMs (halved when causal) plus the softmax, fwd_elems its HBM
// traffic (Q, K, V in; O and the row logsumexp out; with stores_probs, O and the m x n
// probabilities per head out), see models/workloads/README.md.
// Other classes: m x n x batch is the tensor the op streams over, k = 0, and fwd_flops is a
// per-element count stated in models/workloads/README.md.
struct Op {
    std::string_view name{};  // static string, e.g. "qkv", "attn_scores", "conv2_3x3"
    OpClass cls = OpClass::elementwise;
    double m = 0, n = 0, k = 0, batch = 1;
    double fwd_flops = 0;         // forward FLOPs per sample
    double fwd_elems = 0;         // activation elements read + written per sample, no weights
    double weight_elems = 0;      // parameter-sized elements read or written once per micro-batch
    double saved_elems = 0;       // activation elements per sample stashed for backward; each
                                  // stashed tensor is counted once, on one op
    double saved_mask_elems = 0;  // one-byte elements per sample stashed for backward (dropout
                                  // masks), whatever the activation precision
    TpSplit tp = TpSplit::none;
    SampleDim samples = SampleDim::m;
    bool input_grad = true;  // false where the op's input needs no gradient (the image); a
                             // non-GEMM op with false computes indices only (farthest point
                             // sampling, neighbour search) and has no backward op at all
    // Dependent rounds the op runs one after another in each micro-batch, the samples side by
    // side (one thread block each): farthest point sampling picks its centres one at a time,
    // each round a scan over the points and a block-wide arg-max. The compute model adds
    // serial_round_latency_s per round (models/compute/gpu_model.hpp) to the op's traffic
    // time. 0: an ordinary data-parallel kernel.
    double serial_rounds = 0;
    // A loss softmax over classes (the logits of a classifier or language-model head): how it
    // runs is the framework's loss kernel (compute::LossKernel), not the op's own traffic alone.
    bool loss = false;
    // fused_attention only: the kernel writes the s x s probabilities (m x n per head) for
    // backward instead of recomputing them from the row logsumexp (apex FMHA, not
    // FlashAttention).
    bool stores_probs = false;
    // An activation (GeLU, ReLU) that cuBLASLt can apply in a GEMM's epilogue when it follows
    // that GEMM (compute::StepConfig::gemm_epilogue).
    bool activation = false;
};

// PyTorch's softmax kernels (aten/src/ATen/native/cuda/SoftMax.cu, host_softmax) keep a row
// on chip when it fits: one warp per row up to 1,024 elements, one block caching the row in
// its 48 KiB of shared memory beyond that. A longer row is read three times (its maximum, the
// sum of exponentials, the output) and written once; a row on chip is read once.
inline constexpr double softmax_on_chip_bytes = 48.0 * 1024;

// Layer::params counts one instance; identical blocks are stored once with repeat = L.
struct Layer {
    std::string_view name{};
    std::vector<Op> ops{};
    double params = 0;
    int repeat = 1;
    // One of the model's repeated transformer blocks: LoRA fine-tuning adapts these layers'
    // linear weights and freezes everything else (embeddings, output head).
    bool transformer_block = false;
};

enum class Domain { vision, language };

struct Workload {
    std::string name{};
    Domain domain = Domain::vision;
    double seq_len = 0;  // tokens per sample; 0 for vision
    std::vector<Layer> layers{};
    double vocab = 0;
    double hidden = 0;
    int n_layers = 0;
    int heads = 0;
    int kv_heads = 0;
    double ffn_hidden = 0;
    bool gated_mlp = false;
    // The optimizer the reference trainer uses: language models train with Adam and vision
    // models with SGD + momentum (models/compute/step.hpp) unless this is set (PointNet++'s
    // reference trainer uses Adam).
    bool adam = false;

    // Parameter count, every layer times its repeat (tied weights counted once).
    double params() const;
    // Forward FLOPs per sample, every op of every layer times its repeat.
    double fwd_flops_per_sample() const;
    // Forward plus the backward_ops of every op: 3x forward for GEMM-class ops that need
    // their input gradient, 2x for the image-facing conv; see backward_ops for the rest.
    double train_flops_per_sample() const;
    // Parameters each token is multiplied by: weights and biases of every matmul op, scaled
    // by the share of the sample's tokens the op sees (ops run once per micro-batch, with
    // SampleDim::none, are left out). For a decoder LM: all parameters but the norms, the
    // position table and (when untied) the input embedding.
    double matmul_params() const;
    // Training FLOPs per token by the PaLM MFU convention (Chowdhery et al. 2022, App. B):
    // 6 N + 12 l h s with N = matmul_params(), whatever the attention kernel (unfused or
    // FlashAttention, causal or not). Throws std::logic_error for vision workloads.
    double model_flops_per_token() const;
};

// The backward pass of one forward op.
// GEMM classes: dgrad dA[m x k] = dC[m x n] B^T (m, n, k) -> (m, k, n) and wgrad
// dB[k x n] = A^T[k x m] dC (m, n, k) -> (k, n, m), named "dgrad"/"wgrad" (attention, whose
// B is an activation too: "dgrad_lhs"/"dgrad_rhs"); dgrad is dropped when !input_grad.
// fused_attention: one op "flash_attn_bwd" with 2.5x the forward FLOPs (5 GEMMs against 2,
// the scores recomputed; Dao 2023, FlashAttention-2, Sec. 2.3.2 and 4.1) that reads Q, K, V,
// O, dO and the logsumexp and writes dQ, dK, dV: 2 fwd_elems - 2 m batch elements. With
// stores_probs (apex FMHA): two ops, "fmha_bwd_dv" and "fmha_bwd_dq_dk", of the forward's
// FLOPs each (4 GEMMs in all, the stored probabilities replacing the scores'
// recomputation); the first reads dO, V and the probabilities and writes dS over them and
// dV, the second reads dS, Q and K and writes dQ and dK (models/workloads/README.md).
// Other classes: one op named "bwd" with 1x the forward FLOPs (2x for normalization; the
// m x n adds of the scatter for embedding) and 1.5x the forward traffic; none when the op has
// input_grad = false (an index computation).
std::vector<Op> backward_ops(const Op& fwd);

}  // namespace rentsim::work
