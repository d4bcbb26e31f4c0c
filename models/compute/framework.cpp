#include "models/compute/framework.hpp"

namespace rentsim::compute {

const Registry<ConvLayout>& conv_layout_registry() {
    static const Registry<ConvLayout> r{"convolution layout",
                                        {{"nchw", ConvLayout::nchw, "channels first (PyTorch's default memory format)"},
                                         {"nhwc", ConvLayout::nhwc, "channels last (TensorFlow's default, cuDNN's tensor-core layout)"}}};
    return r;
}

const Registry<OptimizerKernel>& optimizer_kernel_registry() {
    static const Registry<OptimizerKernel> r{
        "optimizer kernel",
        {{"fused", OptimizerKernel::fused, "one multi-tensor kernel per update (apex FusedAdam, Transformer Engine, torch.optim fused=True)"},
         {"foreach", OptimizerKernel::foreach, "one multi-tensor pass per elementwise step of the update (torch.optim's default on CUDA)"},
         {"for-loop", OptimizerKernel::for_loop, "one kernel per elementwise step and parameter tensor (torch.optim foreach=False)"},
         {"bert-adam", OptimizerKernel::bert_adam, "DeepLearningExamples' BertAdam: per tensor, a norm clip and Adam as separate eager kernels (run_squad.py without --fp16)"}}};
    return r;
}

const Registry<GradClip>& grad_clip_registry() {
    static const Registry<GradClip> r{
        "gradient clipping",
        {{"none", GradClip::none, "no clipping"},
         {"global", GradClip::global, "global-norm clipping: a norm pass and a scale pass over the fp32 gradients (Megatron --clip-grad, torchtitan max_norm, apex GradientClipper)"}}};
    return r;
}

const Registry<LossKernel>& loss_kernel_registry() {
    static const Registry<LossKernel> r{
        "loss kernel",
        {{"eager", LossKernel::eager, "PyTorch's log_softmax and NLL kernels in the training precision"},
         {"fp32", LossKernel::fp32, "the same kernels on logits cast to fp32 (autocast, torchtitan, Megatron-Core)"},
         {"fused", LossKernel::fused, "one kernel per direction on the 16-bit logits (flash-attn's CrossEntropyLoss)"}}};
    return r;
}

const Registry<GradReduce>& grad_reduce_registry() {
    static const Registry<GradReduce> r{
        "gradient reduction",
        {{"param", GradReduce::param, "the 16-bit parameters' gradients, 2 bytes each (apex O2, FSDP PURE, Megatron-LM fp16, DeepSpeed)"},
         {"fp32", GradReduce::fp32, "fp32 gradients, 4 bytes each (autocast's fp32 parameters, Megatron-LM in bf16, torchtitan)"}}};
    return r;
}

namespace {

// Defaults shared by the sources below, read 2026-12-01:
// - PyTorch "CUDA semantics: TensorFloat-32 (TF32) on Ampere (and later) devices":
//   torch.backends.cuda.matmul.allow_tf32 is False since PyTorch 1.12, while
//   torch.backends.cudnn.allow_tf32 (convolutions) stays True.
// - TensorFlow 2.4 release notes: TF32 is enabled by default on Ampere.
// - JAX: `jax_default_matmul_precision` "default" lets XLA use TF32 on Ampere and newer.
// - Megatron-LM arguments.py: --use-distributed-optimizer, --overlap-grad-reduce,
//   --overlap-param-gather and --tp-comm-overlap all default to off; bias-GeLU,
//   bias-dropout-add and scaled-masked-softmax fusions default to on.
// - Megatron-LM before Megatron-Core (arguments.py `--DDP-impl`, default "local"; training.py
//   train_step, 2020 to August 2023, read 2026-12-06): the local DDP all-reduces its gradient
//   buffer after forward_backward_func has returned (the "backward-params-all-reduce" timer),
//   so no gradient reduction overlaps backward; only `--DDP-impl torch` overlapped.
// - NeMo 2.0 LLM recipes (llama3_8b.py, llama3_70b.py): distributed optimizer with
//   overlap_grad_reduce and overlap_param_gather on; tp_comm_overlap on for TP > 1.
// - PyTorch FSDP (FullyShardedDataParallel, BackwardPrefetch.BACKWARD_PRE default) and FSDP2
//   (fully_shard: implicit forward and backward prefetch): all-gathers run ahead of compute on a
//   separate stream, reduce-scatters overlap the rest of backward. FSDP2's all-gather lands in
//   one flat buffer per parameter group and foreach_all_gather_copy_out copies it into each
//   parameter's unsharded tensor on the compute stream after waiting for the gather
//   (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, split_with_sizes_copy; read
//   2026-12-06); FSDP1's flat parameter is the gathered buffer itself.
// - DeepSpeed configuration JSON: "overlap_comm" defaults to false for ZeRO stages 1 and 2.
//   Their optimizer (deepspeed/runtime/zero/stage_1_and_2.py, step(), read 2026-12-06)
//   all-gathers the updated 16-bit weights before returning, under its "optimizer_allgather"
//   timer, so that they are "ready for next round forward": nothing overlaps that gather.
// - NVIDIA DeepLearningExamples ResNet-50 v1.5 (PyTorch): mixed-precision configs train with
//   --memory-format nhwc and DALI; NGC containers enable TF32.
// - Optimizer kernels: apex FusedAdam/FusedLAMB in Megatron, NeMo, DeepLearningExamples' mixed-
//   precision recipes and the MLPerf submissions; torch.optim's foreach default (PyTorch >= 2.0,
//   "torch.optim" documentation); torchtitan's optimizer.implementation "fused"; XLA fuses the
//   optimizer's elementwise steps; TensorFlow's Adam is one ResourceApplyAdam kernel per variable.
// - NVIDIA MLPerf Training submissions (v0.7-v3.1): NHWC convolutions with fused BN-add-ReLU,
//   fused bias-GeLU and bias-dropout-add, fused multi-head attention (FMHA) in BERT.
RegistryEntry<Framework> entry(std::string_view name, std::string_view description, Framework f) {
    return {name, f, description};
}

}  // namespace

const Registry<Framework>& framework_registry() {
    using L = ConvLayout;
    static const Registry<Framework> r{
        "framework",
        {entry("pytorch-ddp", "PyTorch eager with DistributedDataParallel: unfused kernels, SDPA flash attention in decoders, NCHW, TF32 for convolutions only, foreach optimizer",
               {false, true, false, false, true, L::nchw, 0, false, true, false,
                "PyTorch CUDA semantics (TF32 defaults, PyTorch >= 1.12); scaled_dot_product_attention picks the flash kernel for 16-bit inputs (PyTorch >= 2.0); DDP gradient buckets overlap backward; ZeroRedundancyOptimizer's parameter broadcast follows the step; torch.optim runs foreach kernels on CUDA unless told otherwise (PyTorch >= 2.0); autocast runs the loss softmax in fp32 and keeps the parameters, so the gradients DDP reduces, in fp32",
                false, OptimizerKernel::foreach, LossKernel::fp32, GradReduce::fp32, GradReduce::fp32}),
         entry("nvidia-dle", "NVIDIA DeepLearningExamples recipes (NGC containers): NHWC, DALI, TF32 on, unfused elementwise",
               {false, false, false, true, true, L::nhwc, 0, false, true, false,
                "NVIDIA DeepLearningExamples READMEs and configs (memory format nhwc in mixed precision; NGC TF32 default)"}),
         entry("pytorch-fsdp", "PyTorch FSDP: flash attention, full sharding, prefetched all-gathers, unfused optimizer",
               {false, true, false, false, true, L::nchw, 3, true, true, false,
                "PyTorch FSDP documentation (BACKWARD_PRE prefetch); llm-foundry MPT configs (attn_impl flash); torch.optim's foreach default (PyTorch >= 2.0); llm-foundry's MPT loss_fn defaults to fused_crossentropy (flash-attn's CrossEntropyLoss)",
                false, OptimizerKernel::foreach, LossKernel::fused}),
         entry("composer", "MosaicML Composer (llm-foundry): PyTorch FSDP with Composer's defaults, each backward all-gather after the gradients of the layer above",
               {false, true, false, false, true, L::nchw, 3, true, true, false,
                "Composer dist_strategy.py (v0.13 to v0.21, read 2026-12-07): fsdp_config backward_prefetch defaults to BACKWARD_POST, forward_prefetch to False; PyTorch's BackwardPrefetch documentation: BACKWARD_POST prefetches the next parameters after the current gradient computation and overlaps the current reduce-scatter, \"less overlap\" than BACKWARD_PRE; llm-foundry MPT configs (attn_impl flash, FULL_SHARD); torch.optim's foreach default (PyTorch >= 2.0); MPT's loss_fn defaults to fused_crossentropy (flash-attn's CrossEntropyLoss)",
                false, OptimizerKernel::foreach, LossKernel::fused, GradReduce::param, GradReduce::param, false, false, GradClip::none, false, false, true}),
         entry("torchtitan", "torchtitan: FSDP2, SDPA flash attention; torch.compile (fused elementwise) is opt-in",
               {false, true, false, false, true, L::nchw, 3, true, true, false,
                "torchtitan docs and train configs (FSDP2 fully_shard, SDPA; compile = false by default; optimizer.implementation = fused by default; the loss is cross_entropy on pred.float(); training.mixed_precision_reduce = float32; training.max_norm = 1.0, clip_grad_norm_ by the global norm); PyTorch TF32 defaults",
                false, OptimizerKernel::fused, LossKernel::fp32, GradReduce::fp32, GradReduce::fp32, false, true, GradClip::global}),
         entry("megatron-lm", "Megatron-LM before Megatron-Core (2019-2022): fused bias-GeLU/bias-dropout-add, unfused attention core",
               {true, false, false, false, true, L::nchw, 0, false, false, false,
                "Megatron-LM arguments.py defaults (fusions on, overlaps off; --DDP-impl local); transformer layers split evenly over the pipeline stages, the embedding on the first and the output layer on the last (num_layers must divide by the stages); Megatron Core user guide, Distributed Optimizer (read 2026-12-07): bytes per parameter 20 for fp16 parameters and gradients, 18 for bf16 parameters with fp32 gradients, 16 in fp32 (4 + 16/d, 6 + 12/d, 8 + 8/d distributed over d ranks); training.py train_step all-reduces the local DDP's gradient buffer after forward_backward_func returns, so no reduction overlaps backward; Narayanan et al. 2021; vocab_parallel_cross_entropy on output.float(); bf16 turns --accumulate-allreduce-grads-in-fp32 on; --clip-grad defaults to 1.0 (\"Gradient clipping based on global L2 norm\")",
                false, OptimizerKernel::fused, LossKernel::fp32, GradReduce::param, GradReduce::fp32, false, false, GradClip::global, true, true}),
         entry("megatron-core", "Megatron-Core with Transformer Engine: fused kernels and attention, overlaps off by default",
               {true, true, true, false, true, L::nchw, 0, false, false, false,
                "Megatron-LM arguments.py defaults (--overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap off; bf16 reduces gradients in fp32; transformer layers split evenly over the pipeline stages, the embedding on the first and the output layer on the last; the Distributed Optimizer guide's bytes per parameter, 20 / 18 / 16 for fp16 / bf16 with fp32 gradients / fp32; --clip-grad 1.0, global L2 norm); VocabParallelCrossEntropy casts the logits to fp32",
                false, OptimizerKernel::fused, LossKernel::fp32, GradReduce::param, GradReduce::fp32, false, false, GradClip::global, true, true}),
         entry("nemo", "NVIDIA NeMo 2.0 recipes on Megatron-Core: distributed optimizer, every overlap on",
               {true, true, true, false, true, L::nchw, 1, true, true, true,
                "NeMo 2.0 LLM recipes (distributed optimizer, overlap_grad_reduce, overlap_param_gather, tp_comm_overlap; Megatron-Core's even split of the layers over the pipeline stages and its main-gradient buffers; the bf16 mixed-precision plugin's grad_reduce_in_fp32; recipes/optim/adam.py distributed_fused_adam_with_cosine_annealing's clip_grad=1.0); Megatron-Core's VocabParallelCrossEntropy casts the logits to fp32",
                false, OptimizerKernel::fused, LossKernel::fp32, GradReduce::param, GradReduce::fp32, false, false, GradClip::global, true, true}),
         entry("deepspeed", "DeepSpeed ZeRO: unfused model code, overlap_comm off by default",
               {false, true, false, false, true, L::nchw, 1, false, false, false,
                "DeepSpeed configuration JSON (overlap_comm false by default; ZeRO-3 prefetch buckets; optimizer type Adam runs DeepSpeed's FusedAdam); ZeRO-1/2 all-gather the updated weights at the end of the optimizer step (stage_1_and_2.py step(): all_gather_dp_groups, \"ready for next round forward\")"}),
         entry("horovod-tensorflow", "TensorFlow with Horovod: NHWC, TF32 on, unfused without XLA",
               {false, false, false, true, true, L::nhwc, 0, false, true, false,
                "TensorFlow 2.4 release notes (TF32 default); Horovod tensor fusion overlaps backward"}),
         entry("tensorflow-xla", "TensorFlow with XLA: fused elementwise, NHWC, TF32 on",
               {true, false, false, true, true, L::nhwc, 0, false, true, false,
                "TensorFlow XLA documentation (operation fusion); TensorFlow 2.4 release notes (TF32)"}),
         entry("jax-xla", "JAX on XLA: fused elementwise, NHWC, TF32 on",
               {true, false, false, true, true, L::nhwc, 0, false, true, false,
                "JAX documentation (jax_default_matmul_precision; XLA fusion)"}),
         entry("mxnet", "MXNet (NGC): NHWC convolutions, TF32 on, unfused elementwise",
               {false, false, false, true, true, L::nhwc, 0, false, true, false,
                "NVIDIA DeepLearningExamples MXNet ResNet-50 README (NHWC layout, NGC TF32 default)"}),
         entry("mlperf-nvidia", "NVIDIA MLPerf Training submissions: NHWC, fused BN-add-ReLU, apex FMHA in BERT, no padding, TF32 on",
               {true, true, false, true, true, L::nhwc, 0, false, true, false,
                "NVIDIA MLPerf Training v0.7-v3.1 result code (fused NHWC kernels, BERT sequences unpadded from v0.7, apex's fused multi-head attention (fmha.py, --unpad_fmha) from v1.0 to v2.1)",
                true, OptimizerKernel::fused, LossKernel::eager, GradReduce::param, GradReduce::param, true})}};
    return r;
}

}  // namespace rentsim::compute
