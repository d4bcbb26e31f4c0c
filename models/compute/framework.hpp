// Framework profiles: what a software stack does to a training step, as physical defaults.
//
// A profile says which kernels the stack fuses, which attention kernel it runs, whether
// fp32 requests run on TF32 tensor cores, the memory layout of convolutions, the default
// ZeRO/FSDP stage and which communication it overlaps with compute. A scenario names one
// (`workload.framework`) and may override each default with its own key; validation maps
// each measured row's `framework` column to one. Every default names its source.
#pragma once

#include <string_view>

#include "models/registry.hpp"

namespace rentsim::compute {

// NCHW convolutions on tensor cores: cuDNN transposes each convolution's input and output
// to NHWC and back (NVIDIA Deep Learning Performance Guide, "Tensor Layouts in Memory: NCHW
// vs NHWC", read 2026-12-01). NHWC runs the tensor-core kernels directly.
enum class ConvLayout { nchw, nhwc };
const Registry<ConvLayout>& conv_layout_registry();

// How the optimizer update runs (the names of torchtitan's `optimizer.implementation` and
// PyTorch's torch.optim `fused` / `foreach` arguments, read 2026-12-05):
//   fused:    one multi-tensor kernel reads weights, gradients and state once and writes them
//             once (apex FusedAdam/FusedLAMB, Transformer Engine, torch.optim fused=True);
//   foreach:  each step of the update is one multi-tensor pass over all parameters
//             (torch._foreach_* ops; PyTorch's default on CUDA since 2.0);
//   for-loop: the same passes, one kernel per parameter tensor each (PyTorch's single-tensor
//             path);
//   bert-adam: DeepLearningExamples' BertAdam (PyTorch/LanguageModeling/BERT/optimization.py,
//             which run_squad.py builds for fp32/TF32 fine-tuning), a Python loop over the
//             parameter tensors that clips each tensor's gradient to norm 1 on its own
//             (torch.nn.utils.clip_grad_norm_) and then runs Adam, its weight decay and its
//             learning-rate scaling as separate eager kernels (compute::bert_adam_* in step.hpp).
enum class OptimizerKernel { fused, foreach, for_loop, bert_adam };
const Registry<OptimizerKernel>& optimizer_kernel_registry();

// Gradient clipping by the global norm before the update:
//   none:   no clipping;
//   global: the global L2 norm of every gradient, then a scale of every gradient when it
//           exceeds the threshold: two multi-tensor passes over the fp32 gradients
//           (apex's multi_tensor_l2norm and multi_tensor_scale, Megatron's clip_grad_norm_fp32,
//           torch.nn.utils.clip_grad_norm_ on its foreach path), priced as in step.hpp
//           (grad_clip_bytes_per_param). Each rank clips the gradients it updates: its shard
//           under ZeRO/FSDP and the distributed optimizer.
enum class GradClip { none, global };
const Registry<GradClip>& grad_clip_registry();

// How the loss softmax over a head's classes runs (a vocabulary's worth per token in a
// language model; compute::plan_step prices it):
//   eager: PyTorch's log_softmax and NLL in the training precision, as the op's own traffic
//          (three reads and a write forward, aten/src/ATen/native/cuda/SoftMax.cu; the NLL
//          gradient's fill and the softmax backward after it);
//   fp32:  the same kernels on logits cast to fp32 first, as autocast runs log_softmax and
//          nll_loss (torch.amp docs, "CUDA Ops that can autocast to float32", read
//          2026-12-05) and as torchtitan (`cross_entropy(pred.flatten(0, 1).float(), ...)`)
//          and Megatron-Core (VocabParallelCrossEntropy.calculate_logits_max: `.float()`)
//          write it: 4-byte traffic and stash, plus the cast up before and the gradient's
//          cast down after;
//   fused: one kernel per direction on the 16-bit logits (flash-attn's Triton
//          CrossEntropyLoss, llm-foundry's default `loss_fn: fused_crossentropy`): forward
//          reads the logits once, backward reads them once and writes their gradient.
enum class LossKernel { eager, fp32, fused };
const Registry<LossKernel>& loss_kernel_registry();

// The width in which data-parallel gradients are reduced in 16-bit (fp16, bf16, fp8) training:
//   param: the 16-bit parameters' own gradients (apex amp O2 casts the model to fp16; FSDP's
//          PURE mixed precision, llm-foundry's benchmark default; Megatron-LM in fp16, whose
//          --accumulate-allreduce-grads-in-fp32 is off by default; DeepSpeed);
//   fp32:  4-byte gradients: autocast leaves the parameters, and so their gradients, in fp32
//          (torch.amp documentation, read 2026-12-05), and DDP reduces param.grad as it is;
//          Megatron-LM turns --accumulate-allreduce-grads-in-fp32 on for bf16 ("bfloat16
//          requires gradient accumulation and all-reduce to be performed in fp32",
//          megatron/training/arguments.py); torchtitan's mixed_precision_reduce is "float32".
// fp32 and tf32 training reduce 4-byte gradients either way.
enum class GradReduce { param, fp32 };
const Registry<GradReduce>& grad_reduce_registry();

struct Framework {
    bool fused_elementwise = false;   // elementwise ops fused: one kernel per run (StepConfig)
    bool flash_attention = false;     // fused attention kernel for decoder LLMs (sm80 and newer, 16-bit)
    bool flash_encoders = false;      // the same for encoders (BERT): only stacks that ship one
    bool tf32_matmul = false;         // fp32 matmuls run on TF32 tensor cores where the GPU has them
    bool tf32_conv = false;           // fp32 convolutions run on TF32 tensor cores where the GPU has them
    ConvLayout conv_layout = ConvLayout::nchw;
    int zero = 0;                     // ZeRO/FSDP stage when the scenario gives none (0..3)
    bool overlap_param_gather = false;  // ZeRO-1/2 parameter all-gathers behind the next forward (ZeRO-3 always prefetches)
    bool overlap_grad_reduce = true;    // gradient reductions overlap the rest of backward
    bool tp_comm_overlap = false;       // tensor-parallel collectives overlapped with GEMMs
    std::string_view source;          // where each default comes from, and when it was read
    // Padding tokens are removed before the encoder (sequence packing or variable-length
    // kernels): a dataset's `padding_fraction` of each sample costs nothing.
    bool removes_padding = false;
    OptimizerKernel optimizer_kernel = OptimizerKernel::fused;
    LossKernel loss_kernel = LossKernel::eager;
    GradReduce grad_reduce_fp16 = GradReduce::param;  // gradient reduction width in fp16 training
    GradReduce grad_reduce_bf16 = GradReduce::param;  // in bf16, fp8 and fp4 training (16-bit master copies)
    // Encoders (BERT) run NVIDIA's fused multi-head attention (work::AttentionKind::fmha) where
    // it runs (sm80/sm90, fp16) and flash_encoders does not apply; unfused attention elsewhere.
    bool fmha_encoders = false;
    // ZeRO-3 as FSDP2 runs it (per-parameter sharding): each all-gather lands in one flat
    // buffer that the compute stream then copies into the parameters' own unsharded tensors
    // (torch.split_with_sizes_copy in foreach_all_gather_copy_out), a read and a write of the
    // gathered 16-bit weights per gather, forward and backward, not overlapped with compute.
    // FSDP1's flat parameters are views into the gathered buffer: no copy.
    bool gather_copy_out = false;
    GradClip grad_clip = GradClip::none;  // gradient clipping before the update
    // Pipeline stages cut as Megatron-LM cuts them: the transformer layers evenly, the
    // embedding on the first stage and the output layer on the last; off: stages balanced by
    // time (the smallest largest stage), a stand-in for splitters that balance by parameters
    // or by layer weights (DeepSpeed's partition_method, torchtitan's split points).
    bool even_stages = false;
    // Megatron's mixed-precision optimizers: gradients accumulate in a main-gradient buffer of
    // the reduction's width (fp32 where bf16 reduces in fp32), beside fp32 main parameters; an
    // fp16 model's 16-bit gradients are also copied to fp32 in the (sharded) optimizer state.
    // Off: 16-bit gradients and fp32 master weights, 16 B per parameter with Adam.
    bool main_grads = false;
    // ZeRO-3 in backward: true when each layer's all-gather is issued only once the layer above
    // it (the one backward runs first) has computed its gradients (PyTorch FSDP's
    // BackwardPrefetch.BACKWARD_POST, "less overlap": the gather overlaps that layer's
    // reduce-scatter, not its gradient computation), so every backward gather is exposed;
    // false: gathered ahead of compute (BACKWARD_PRE, FSDP2).
    bool gather_after_grads = false;

    bool operator==(const Framework&) const = default;
};

// The profiles, by name: pytorch-ddp, nvidia-dle, pytorch-fsdp, torchtitan, megatron-lm,
// megatron-core, nemo, deepspeed, horovod-tensorflow, tensorflow-xla, jax-xla, mxnet,
// mlperf-nvidia. "pytorch-ddp" is the default of a scenario that names none.
const Registry<Framework>& framework_registry();
inline constexpr std::string_view default_framework = "pytorch-ddp";

}  // namespace rentsim::compute
