// Cost of one training step on one GPU: per-layer forward and backward times for a
// micro-batch, the optimizer update, the gradients each layer hands to communication,
// and the memory the step needs. Pure function of the workload, the GPU model and the
// parallel layout; the engine (analysis/trainer) turns it into a timeline.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "models/compute/framework.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::compute {

// none: every activation stashed. selective: the attention core replayed (Korthikanti et al.
// 2022). full: each layer's forward replayed. op: torchtitan's op-level selective
// checkpointing of each block (torchtitan/models/llama/parallelize_llama.py, _save_list and
// _custom_policy, April 2024, read 2026-12-05): the outputs of matmuls are saved except every
// second matmul's, attention kernels' outputs are saved, every other op is replayed.
enum class Recompute { none, selective, full, op };
enum class Optimizer { sgd_momentum, adam };

struct StepConfig {
    double micro_batch = 1;        // samples per micro-batch on one GPU
    Precision precision = Precision::fp32;
    int tp = 1;                    // tensor-parallel degree
    bool sequence_parallel = false;  // norms, dropouts and residuals split along the sequence
    int dp = 1;                    // data-parallel degree (for ZeRO sharding)
    int zero = 0;                  // ZeRO stage 0..3
    Recompute recompute = Recompute::none;
    // With full recomputation, only every k-th repeated block replays its forward (blocks 0, k,
    // 2k, ...: torchtitan's layer-level selective checkpointing, selective_ac_option "k"); the
    // others stash their activations. 1: every layer, embeddings and head included.
    int recompute_every = 1;
    // Elementwise ops (ReLU, residual add, dropout, GELU, SwiGLU, rotary, pooling) run fused:
    // each run of consecutive ones is one kernel, folded at no cost into a normalization just
    // before it (cuDNN's fused BN-add-ReLU, XLA), else one pass of the run's widest op
    // (Megatron's bias-GeLU and bias-dropout-add; step.cpp, FusedRun). Their FLOPs still count.
    bool fused_elementwise = false;
    // An activation right after a GEMM runs in that GEMM's epilogue: cuBLASLt's
    // CUBLASLT_EPILOGUE_GELU_AUX_BIAS applies bias and GeLU to the output and keeps the
    // pre-activation for backward, whose DGELU_BGRAD epilogue applies the GeLU derivative to the
    // next GEMM's input gradient (apex's FusedDenseGeluDense; NVIDIA's MLPerf BERT from round
    // v2.0, --fused_gemm_gelu). The activation is then no kernel and no traffic of its own,
    // forward or backward; its FLOPs still count and its stash is the same.
    bool gemm_epilogue = false;
    // fp32 GEMMs / convolutions on TF32 tensor cores when the GPU has them (framework switches).
    bool tf32_matmul = false;
    bool tf32_conv = false;
    // NCHW convolutions on tensor cores pay a transpose of their input and output (framework.hpp).
    ConvLayout conv_layout = ConvLayout::nhwc;
    // How the optimizer update runs (framework.hpp): its HBM passes and kernel launches.
    OptimizerKernel optimizer_kernel = OptimizerKernel::fused;
    GradClip grad_clip = GradClip::none;  // clipping by the global norm before the update (framework.hpp)
    // How the loss softmax runs (framework.hpp): its bytes per element, casts and stash.
    LossKernel loss_kernel = LossKernel::eager;
    GradReduce grad_reduce = GradReduce::param;  // width of the reduced gradients in 16-bit training
    // Gradients held in a main-gradient buffer of the reduction's width, with an fp32 copy of
    // 16-bit ones in the optimizer state (Framework::main_grads); memory only.
    bool main_grads = false;
    // LoRA fine-tuning (Hu et al. 2021) at this rank; 0 trains every weight. Every linear
    // weight W (k x n) of the transformer blocks is frozen beside a trainable pair A (k x r),
    // B (r x n), the QLoRA recipe's choice of all linear layers (Dettmers et al. 2023, Sec. 4).
    // Frozen weights need no weight gradient, no optimizer state and no fp32 master copy;
    // backward still computes every input gradient.
    int lora_rank = 0;
};

// Bytes per parameter of the gradients data parallelism reduces: 2 where 16-bit training
// reduces its 16-bit parameters' gradients, 4 in fp32 and tf32 training and where the
// framework reduces in fp32 (GradReduce).
inline double reduced_gradient_bytes(Precision p, GradReduce g) {
    return is_mixed(p) && g == GradReduce::param ? 2.0 : 4.0;
}

// Precision an op runs in: fp32 GEMMs on TF32 tensor cores when the framework allows it and
// the GPU has them; attention GEMMs in bf16 under fp8 training (Transformer Engine and
// torchao cast only the linear layers to fp8).
Precision op_precision(const work::Op& op, const GpuSpec& gpu, const StepConfig& cfg);

// fp8 training with Transformer Engine: each linear layer casts its input and weight to fp8
// with a fused cast-transpose (read 2 B, write the fp8 copy and its transpose, 1 B each: 4 B
// per element) in forward, and its output gradient likewise in backward (Transformer Engine
// documentation, "FP8 primer" and the cast_transpose kernels; Hopper fp8 GEMMs take TN operands).
inline constexpr double fp8_cast_bytes_per_elem = 4.0;
// NVFP4 training (NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv:2509.25149,
// 2025; Transformer Engine's NVFP4 recipe): the same casts, each writing 4-bit values (0.5 B)
// and one E4M3 scale per block of 16 (1/16 B), row- and column-wise: 2 + 2 x 0.5625 B per
// element. The recipe's random Hadamard transform of the weight-gradient inputs runs fused in
// that cast and is not costed apart; its bf16 final layers are not modelled (every linear layer
// runs in fp4), so fp4 predictions are an upper bound on the recipe's speed.
inline constexpr double fp4_cast_bytes_per_elem = 3.125;

struct LayerCost {
    std::string_view name;
    units::Seconds fwd;            // forward of one micro-batch
    units::Seconds bwd;            // backward of one micro-batch (recomputed forward included)
    double params = 0;             // parameters of this layer held by this GPU
    double trainable_params = 0;   // of which trained (all of them, or LoRA's adapters)
    int kernels = 0;               // kernels launched per micro-batch (forward + backward)
    // Tensor-parallel collectives on the critical path (Megatron, Shoeybi et al. 2019): one
    // per row-parallel GEMM output in forward and one per column-parallel GEMM input
    // gradient in backward; with sequence parallelism each all-reduce becomes an all-gather
    // and a reduce-scatter of the same buffer (Korthikanti et al. 2022, Sec. 4.2.2). Full
    // recomputation replays the forward collectives in backward. Zero when tp = 1.
    int tp_fwd_collectives = 0;    // per micro-batch, in forward
    int tp_bwd_collectives = 0;    // per micro-batch, in backward (recomputed forward included)
    units::Bytes tp_collective_bytes;  // whole buffer of one collective (nccl-tests size)
    units::Bytes boundary_bytes;   // the activation this layer hands to the next, one micro-batch
    // Time of the attention core (per-head ops: scores, softmax, context, or the fused kernel),
    // which context parallelism's K/V ring exchange overlaps.
    units::Seconds attention_fwd{}, attention_bwd{};
    bool block = false;  // an instance of a repeated block (a transformer layer), not an embedding or head
};

struct MemoryUse {
    units::Bytes weights, gradients, optimizer, activations, reserved;
    units::Bytes total() const { return weights + gradients + optimizer + activations + reserved; }
};

// Where one micro-batch's forward and backward time goes: `op` by the class of the op that
// spends it (indexed by work::OpClass), `extra` the kernels the framework adds around ops
// (NCHW layout transposes, fp8/fp4 casts, fp32 loss casts, LoRA adapters). Recomputed forwards
// count in their ops' classes. op's sum plus extra is fwd + bwd.
inline constexpr std::size_t op_class_count = static_cast<std::size_t>(work::OpClass::fused_attention) + 1;
struct ClassTimes {
    std::array<units::Seconds, op_class_count> op{};
    units::Seconds extra{};
    units::Seconds of(work::OpClass c) const { return op[static_cast<std::size_t>(c)]; }
};

struct StepCost {
    std::vector<LayerCost> layers; // forward order, repeated blocks expanded
    units::Seconds fwd;            // sums over layers, one micro-batch
    units::Seconds bwd;
    ClassTimes by_class;           // fwd + bwd by op class
    units::Seconds optimizer;      // one update of this GPU's parameters
    double param_tensors = 0;      // parameter tensors of the whole model (weights, biases, gains)
    double decayed_tensors = 0;    // of which weights (GEMM, convolution, embedding): not biases or norms
    units::Flops model_flops_per_sample;  // 3 x forward FLOPs, no recomputation (MFU convention)
    units::Flops hardware_flops_per_sample;  // with recomputation (the replayed forward ops)
    // Of the model FLOPs of an fp32 run, the fraction its ops execute on TF32 tensor cores
    // (op_precision: where the framework allows it and the GPU has them); 0 otherwise.
    double tf32_flops_share = 0;
    double params = 0;             // parameters held by this GPU (after TP)
    double trainable_params = 0;   // of which trained: all, or LoRA's adapters
    units::Bytes gradient_bytes;   // bytes of gradients this GPU all-reduces each step
    MemoryUse memory;
    Optimizer optimizer_kind = Optimizer::adam;
};

// Bytes an optimizer update streams per parameter (reads and writes of weights, gradient and
// state, fp32 master weights in mixed precision): Adam reads w, g, m, v and writes w, m, v,
// 7 x 4 B = 28 B; SGD with momentum reads w, g, m and writes w, m, 5 x 4 B = 20 B.
inline constexpr double adam_bytes_per_param = 28.0;
inline constexpr double sgd_bytes_per_param = 20.0;
// The same updates as separate elementwise kernels, each reading and writing whole fp32
// tensors (PyTorch torch/optim/adamw.py and sgd.py, _single_tensor_* and _multi_tensor_*
// paths, v2.x, read 2026-12-05). AdamW: param.mul_ (decoupled decay, 8 B), exp_avg.lerp_
// (12 B), exp_avg_sq.mul_ and addcmul_ (8 + 12 B), sqrt, division by the bias correction and
// add eps (8 + 8 + 8 B), param.addcdiv_ (16 B): 8 kernels, 80 B. SGD with momentum and weight
// decay: grad.add (12 B), buf.mul_ and add_ (8 + 12 B), param.add_ (12 B): 4 kernels, 44 B.
inline constexpr double unfused_adam_bytes_per_param = 80.0;
inline constexpr double unfused_sgd_bytes_per_param = 44.0;
inline constexpr int unfused_adam_kernels = 8;
inline constexpr int unfused_sgd_kernels = 4;
// DeepLearningExamples' BertAdam (PyTorch/LanguageModeling/BERT/optimization.py, BertAdam.step,
// read 2026-12-07), per parameter tensor, every step a separate eager kernel on fp32 tensors:
//   clip_grad_norm_(p, 1.0) on the one tensor (torch/nn/utils/clip_grad.py): the tensor's
//   norm (reads g, 4 B), stack and norm of the one norm, + 1e-6, max_norm / that (reciprocal
//   and multiply), clamp, g.mul_ (8 B): 8 kernels, 12 B;
//   next_m.mul_ and add_ (8 + 12 B), next_v.mul_ and addcmul_ (8 + 16 B), sqrt, + eps and the
//   division (8 + 8 + 12 B), lr x update and its negation (8 + 8 B), p.add_ (12 B): 10 kernels;
//   weight decay, on every tensor but biases and LayerNorm parameters (run_squad.py's no_decay
//   list): weight_decay x p and update += (8 + 12 B), 2 kernels more.
// Bytes are counted at the decayed tensors' 132 B per parameter: biases and norms hold a
// negligible share of the elements.
inline constexpr double bert_adam_bytes_per_param = 12.0 + 100.0 + 20.0;
inline constexpr int bert_adam_kernels = 8 + 10;   // per tensor without weight decay
inline constexpr int bert_adam_decay_kernels = 2;  // more per decayed tensor
// Global-norm clipping (GradClip::global): a norm pass reading every fp32 gradient (4 B) and a
// scale pass reading and writing it (8 B), each a multi-tensor launch per list as foreach.
inline constexpr double grad_clip_bytes_per_param = 12.0;
inline constexpr int grad_clip_passes = 2;
// A foreach (multi-tensor) launch covers at most 48 tensors of a three-list op and 320
// blocks of 65,536 elements (PyTorch aten/src/ATen/native/cuda/MultiTensorApply.cuh,
// depth_to_max_tensors and depth_to_max_blocks, kChunkSize; read 2026-12-05).
inline constexpr double foreach_tensors_per_launch = 48.0;
inline constexpr double foreach_elems_per_launch = 320.0 * 65536.0;
// Memory per parameter held for training (ZeRO paper, Rajbhandari et al. 2020, section 3.1):
// Adam in mixed precision keeps 2 B fp16 weights + 2 B fp16 gradients + 12 B fp32 master
// weights, momentum and variance = 16 B; in fp32 4 + 4 + 8 = 16 B. SGD with momentum keeps
// weights, gradients and momentum: 4 + 4 + 4 = 12 B (mixed: 2 + 2 + 4 master + 4 = 12 B).
// Memory the framework holds outside tensors: CUDA context, cuBLAS/cuDNN workspaces and
// allocator slack. PyTorch's CUDA context alone takes about 0.5 GiB; 2 GiB is a planning margin.
inline constexpr double reserved_gib = 2.0;

// Activation memory is for the whole model and one micro-batch; pipeline parallelism
// (analysis/run) divides it among stages and multiplies it by the micro-batches in flight.
// Selective recomputation (Korthikanti et al. 2022, Sec. 5) replays the attention core
// (scores, softmax, dropout, context) in backward and stashes none of its 5 a s / h term.
StepCost plan_step(const work::Workload& w, const GpuModel& gpu, const StepConfig& cfg);

}  // namespace rentsim::compute
