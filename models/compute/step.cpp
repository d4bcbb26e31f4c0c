#include "models/compute/step.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace rentsim::compute {

using units::Bytes;
using units::Flops;
using units::Seconds;

namespace {

// The attention core Korthikanti et al. 2022 recompute selectively: the per-head ops
// (scores, softmax, dropout, context), which tensor parallelism splits by head.
bool attention_core(const work::Op& op) { return op.tp == work::TpSplit::batch; }

// Elements of an op's stash that selective recomputation drops: softmax output, dropout
// mask and output (the 5 a s / h term); the context GEMM keeps V, the scores GEMM Q and K.
// Masks are one byte: `elem_b` converts them to activation elements.
double selective_dropped(const work::Op& op, double elem_b) {
    if (!attention_core(op)) return 0.0;
    // The fused kernel stashes Q, K, V (inputs it needs again) and its softmax statistics:
    // recomputing it drops the statistics only; FMHA's stored probabilities go too.
    if (op.cls == work::OpClass::fused_attention)
        return std::min(op.saved_elems, (op.stores_probs ? op.m * op.n : 2.0 * op.m) * op.batch);
    if (op.cls == work::OpClass::attention)
        return op.name == "attn_context" ? std::min(op.saved_elems, op.m * op.k * op.batch) : 0.0;
    return op.saved_elems + op.saved_mask_elems / elem_b;  // softmax output, dropout mask
}

// A loss softmax as the framework's loss kernel runs it (framework.hpp). fused: forward
// reads the logits once (backward: plan_step). eager and fp32: three reads and a write of a
// row longer than PyTorch keeps on chip, one of each otherwise, at the bytes of the kernel's
// elements (4 in fp32: a 20,003-class row fits on chip in 16 bits, not in fp32); the stash
// (the log-probabilities) at the same size, counted in activation elements. op_precision
// prices an fp32 kernel's traffic at fp32.
work::Op as_run(const work::Op& op, const StepConfig& cfg) {
    if (!op.loss) return op;
    work::Op o = op;
    const double elem_b = activation_bytes(cfg.precision), logits = op.m * op.n * op.batch;
    if (cfg.loss_kernel == LossKernel::fused) {
        o.fwd_elems = logits;
        return o;
    }
    const double loss_b = cfg.loss_kernel == LossKernel::fp32 ? activation_bytes(Precision::fp32) : elem_b;
    o.fwd_elems = (op.n * loss_b > work::softmax_on_chip_bytes ? 4.0 : 2.0) * logits;
    o.saved_elems *= loss_b / elem_b;
    return o;
}

// Elementwise ops under StepConfig::fused_elementwise. Consecutive elementwise ops of a layer
// run as one kernel (a run). A run right after a normalization folds into that kernel and
// costs nothing more: cuDNN's batch norm with fused add and activation
// (cudnnBatchNormalizationForwardTrainingEx, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION), which
// NVIDIA's MLPerf ResNet-50 runs, and XLA's and TorchInductor's fusion of pointwise ops into
// the reduction beside them. A run after anything else (a GEMM, convolution, attention kernel
// or softmax, which cuBLAS, cuDNN and the attention kernels take no such op into) is a kernel
// of its own: Megatron's bias-GeLU, bias-SwiGLU and bias-dropout-add
// (megatron/core/fusions/fused_bias_gelu.py, fused_bias_swiglu.py, fused_bias_dropout.py),
// Megatron-LM's attention dropout after its fused scale-mask-softmax, Transformer Engine's
// fused rotary embedding. That kernel reads the run's inputs and writes its output once: it
// moves the traffic of the run's widest op, forward and backward alike.
class FusedRun {
public:
    // How the next op of the layer is charged: `full` (not a fused elementwise op), `none`
    // (folded into the normalization before its run) or `excess` (what its time adds to the
    // widest op of its run so far).
    enum class Charge { full, none, excess };
    Charge next(const work::Op& op, bool fusing) {
        if (!fusing || op.cls != work::OpClass::elementwise) {
            after_norm_ = op.cls == work::OpClass::normalization;
            in_run_ = false;
            return charge_ = Charge::full;
        }
        head_ = !in_run_;
        if (head_) folded_ = after_norm_, fwd_ = bwd_ = Seconds{};
        in_run_ = true;
        after_norm_ = false;
        return charge_ = folded_ ? Charge::none : Charge::excess;
    }
    // The op's own forward or backward time, charged as next() said.
    Seconds forward(Seconds own) { return charged(own, fwd_); }
    Seconds backward(Seconds own) { return charged(own, bwd_); }
    // Whether the op is a kernel launch of its own: the first op of a charged run, or any op
    // outside runs.
    bool launches() const { return charge_ == Charge::full || (charge_ == Charge::excess && head_); }

private:
    Seconds charged(Seconds own, Seconds& widest) {
        if (charge_ == Charge::full) return own;
        if (charge_ == Charge::none) return Seconds{};
        const Seconds extra{std::max(0.0, own.value - widest.value)};
        widest = Seconds{std::max(widest.value, own.value)};
        return extra;
    }

    Charge charge_ = Charge::full;
    bool after_norm_ = false, in_run_ = false, folded_ = false, head_ = false;
    Seconds fwd_{}, bwd_{};
};

// 16-bit and fp8 convolutions run on tensor cores in NHWC only: cuDNN transposes NCHW
// tensors around them. TF32 has NCHW tensor-core kernels of its own (cuDNN 8 release notes):
// DeepLearningExamples' PyTorch ResNet-50 trains TF32 in NCHW (its configs.yml sets
// memory_format nhwc for AMP only), as Lambda's fork does, and their A100 rates (938 and
// 1,066 img/s, measured.csv DLE-001 and LMB-102) match TensorFlow's NHWC run under XLA
// (909 img/s, DLE-013).
bool transposed_for_tensor_cores(Precision p) {
    return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8 || p == Precision::fp4;
}

// Parameter tensors an op holds: a GEMM's or convolution's weight, and its bias where the
// op's weights exceed n x k; a normalization's gain, and its bias where it has 2 per channel
// (LayerNorm, BatchNorm; RMSNorm has 1); any other op with weights, one.
double param_tensors(const work::Op& op) {
    if (op.weight_elems <= 0) return 0;
    switch (op.cls) {
        case work::OpClass::matmul:
        case work::OpClass::conv: return op.weight_elems > op.n * op.k * (1 + 1e-9) ? 2 : 1;
        case work::OpClass::normalization: return op.n > 0 ? std::max(1.0, std::round(op.weight_elems / op.n)) : 1;
        default: return 1;
    }
}

// The matmuls one op stands for, as torchtitan's Llama block issues them: the QKV op is the
// q, k and v projections (widths: the model's hidden size, then K and V alike), the gated MLP's
// first op is w1 and w3 side by side; any other op is one matmul. Their widths, 0 past the last.
std::array<double, 3> issued_matmuls(const work::Op& op, double hidden) {
    if (op.name == "qkv" && op.n > hidden) return {hidden, (op.n - hidden) / 2, (op.n - hidden) / 2};
    if (op.name == "mlp_gate_up") return {op.n / 2, op.n / 2, 0};
    return {op.n, 0, 0};
}

// Launches of `passes` multi-tensor passes over `elems` elements in `tensors` tensors.
double multi_tensor_launches(double passes, double tensors, double elems) {
    return passes * std::max({1.0, std::ceil(tensors / foreach_tensors_per_launch), std::ceil(elems / foreach_elems_per_launch)});
}

// Kernels launched by one optimizer update over `elems` parameters in `tensors` tensors, of
// which `decayed` take weight decay.
double optimizer_launches(OptimizerKernel kernel, bool adam, double tensors, double decayed, double elems) {
    const double passes = adam ? unfused_adam_kernels : unfused_sgd_kernels;
    switch (kernel) {
        case OptimizerKernel::fused: return std::max(1.0, std::ceil(elems / foreach_elems_per_launch));
        case OptimizerKernel::foreach: return multi_tensor_launches(passes, tensors, elems);
        case OptimizerKernel::for_loop: return passes * std::max(1.0, tensors);
        case OptimizerKernel::bert_adam:
            return std::max(1.0, bert_adam_kernels * tensors + bert_adam_decay_kernels * decayed);
    }
    return 1;
}

// Parameter tensors of an op that take weight decay: its weight, not its bias or a norm's.
double decayed_tensors(const work::Op& op) {
    return op.weight_elems > 0 && op.cls != work::OpClass::normalization ? 1 : 0;
}

}  // namespace

Precision op_precision(const work::Op& op, const GpuSpec& gpu, const StepConfig& cfg) {
    if (op.loss && cfg.loss_kernel == LossKernel::fp32) return Precision::fp32;
    const bool has_tf32 = gpu.has(Precision::tf32);
    switch (op.cls) {
        case work::OpClass::matmul:
        case work::OpClass::attention:
            if (cfg.precision == Precision::fp32 && cfg.tf32_matmul && has_tf32) return Precision::tf32;
            if ((cfg.precision == Precision::fp8 || cfg.precision == Precision::fp4) && op.cls == work::OpClass::attention)
                return Precision::bf16;
            return cfg.precision;
        case work::OpClass::conv:
            if (cfg.precision == Precision::fp32 && cfg.tf32_conv && has_tf32) return Precision::tf32;
            // NVFP4 recipes quantise linear layers only; convolutions stay in bf16.
            if (cfg.precision == Precision::fp4) return Precision::bf16;
            return cfg.precision;
        default: return cfg.precision;
    }
}

StepCost plan_step(const work::Workload& w, const GpuModel& gpu, const StepConfig& cfg) {
    StepCost out;
    // BertAdam is Adam whatever the model's usual optimizer.
    out.optimizer_kind = w.domain == work::Domain::vision && !w.adam && cfg.optimizer_kernel != OptimizerKernel::bert_adam
                             ? Optimizer::sgd_momentum
                             : Optimizer::adam;
    const double tp = cfg.tp;
    const double elem_b = activation_bytes(cfg.precision);
    // Stash per tensor-parallel rank (Korthikanti et al. 2022, Sec. 4.2): without sequence
    // parallelism the norms, dropouts and the replicated inputs of column-parallel GEMMs are
    // kept whole on every rank (their 10 s b h term); with it everything is divided.
    const auto divisor = [&](const work::Op& op) {
        if (op.tp == work::TpSplit::none) return 1.0;
        const bool replicated = op.tp == work::TpSplit::m ||
                                (op.tp == work::TpSplit::n && op.cls == work::OpClass::matmul);
        return replicated && !cfg.sequence_parallel ? 1.0 : tp;
    };
    double fwd_flops = 0, recomputed_flops = 0, saved_elems = 0, tf32_fwd_flops = 0;
    // Layers that replay their forward, and the largest stash of one of them (it lives while
    // that layer's backward runs).
    int replayed_layers = 0;
    double replayed_stash_max = 0;
    for (const auto& layer : w.layers) {
        LayerCost lc{layer.name, Seconds{}, Seconds{}, 0.0, 0.0, 0, 0, 0, Bytes{}, Bytes{}, Seconds{}, Seconds{}};
        double layer_saved = 0, layer_flops = 0, layer_recomputed = 0, layer_adapters = 0, layer_tf32_flops = 0;
        double layer_tensors = 0, layer_decayed = 0, layer_op_weights = 0, adapted_tensors = 0;
        const bool adapted = cfg.lora_rank > 0 && layer.transformer_block;
        Seconds recompute_time{};
        bool split = false, vocab_parallel = false;
        const bool block = layer.transformer_block || layer.repeat > 1;
        lc.block = block;
        int matmuls_issued = 0;  // op-level checkpointing: matmuls of this block so far
        // One instance's time by op class: forward, backward, replayed by selective or
        // op-level recomputation; and the extra kernels around ops, forward and backward.
        ClassTimes by_fwd, by_bwd, by_replay;
        FusedRun run;
        bool after_matmul = false;  // the op before this one is a GEMM
        for (const auto& layer_op : layer.ops) {
            const work::Op op = as_run(layer_op, cfg);
            // In the GEMM's epilogue (StepConfig::gemm_epilogue): no run of its own.
            const bool epilogue = cfg.gemm_epilogue && op.activation && after_matmul;
            after_matmul = op.cls == work::OpClass::matmul;
            const bool folded = epilogue || run.next(op, cfg.fused_elementwise) == FusedRun::Charge::none;
            const Precision p = op_precision(op, gpu.spec(), cfg);
            auto f = gpu.op_cost(op, cfg.micro_batch, p, cfg.tp, cfg.sequence_parallel);
            f.time = epilogue ? Seconds{} : run.forward(f.time);
            // Extra streaming kernels around the op: layout transposes of an NCHW convolution
            // on tensor cores (input and output in forward; twice that in backward, for dgrad
            // and wgrad), fp8 cast-transposes of a linear layer's input and weight (forward)
            // and of its output gradient (backward).
            Seconds extra_fwd{}, extra_bwd{};
            const double tp_div = op.tp != work::TpSplit::none && cfg.tp > 1 ? tp : 1.0;
            if (op.cls == work::OpClass::conv && cfg.conv_layout == ConvLayout::nchw && transposed_for_tensor_cores(p)) {
                const Bytes t{2.0 * op.fwd_elems * cfg.micro_batch * elem_b};
                extra_fwd = gpu.stream_time(t);
                extra_bwd = gpu.stream_time(t * 2.0);
                lc.kernels += 3;
            }
            if (op.cls == work::OpClass::matmul && (p == Precision::fp8 || p == Precision::fp4)) {
                const double input = op.m * op.k * cfg.micro_batch, weight = op.weight_elems,
                             output = op.m * op.n * cfg.micro_batch;
                const double cast_b = p == Precision::fp8 ? fp8_cast_bytes_per_elem : fp4_cast_bytes_per_elem;
                extra_fwd += gpu.stream_time(Bytes{(input + weight) / tp_div * cast_b});
                extra_bwd += gpu.stream_time(Bytes{output / tp_div * cast_b});
                lc.kernels += 2;
            }
            // fp32 loss in a 16-bit run: the logits cast up before it, their gradient cast
            // down after it (Megatron's `.float()` is its own kernel even where its other
            // elementwise ops are fused).
            if (op.loss && cfg.loss_kernel == LossKernel::fp32 && elem_b < activation_bytes(Precision::fp32)) {
                const Bytes cast{op.m * op.n * op.batch * cfg.micro_batch / tp_div * (elem_b + activation_bytes(Precision::fp32))};
                extra_fwd += gpu.stream_time(cast);
                extra_bwd += gpu.stream_time(cast);
                lc.kernels += 2;
            }
            // LoRA: beside a frozen weight W (k x n) run x A (k x r) and (x A) B (r x n) in forward,
            // and their input and weight gradients in backward (twice the forward's GEMMs).
            if (adapted && op.cls == work::OpClass::matmul && op.weight_elems > 0) {
                const double r = cfg.lora_rank, tokens = op.m * cfg.micro_batch;
                const double k = op.k / (op.tp == work::TpSplit::k ? tp_div : 1.0);
                const double n = op.n / (op.tp == work::TpSplit::n ? tp_div : 1.0);
                const Seconds adapter = gpu.gemm_time(tokens, r, k, 1, p) + gpu.gemm_time(tokens, n, r, 1, p);
                extra_fwd += adapter;
                extra_bwd += adapter * 2.0;
                lc.kernels += 6;
                layer_adapters += r * (k + n);
                layer_flops += 2 * op.m * r * (op.k + op.n);
            }
            layer_tensors += param_tensors(op);
            layer_decayed += decayed_tensors(op);
            layer_op_weights += op.weight_elems;
            if (adapted && op.cls == work::OpClass::matmul && op.weight_elems > 0) adapted_tensors += 2;
            lc.fwd += f.time + extra_fwd;
            lc.bwd += extra_bwd;
            const auto slot = static_cast<std::size_t>(op.cls);
            by_fwd.op[slot] += f.time;
            by_fwd.extra += extra_fwd;
            by_bwd.extra += extra_bwd;
            layer_flops += op.fwd_flops;
            if (p == Precision::tf32 && cfg.precision == Precision::fp32) layer_tf32_flops += op.fwd_flops;
            // Dropout masks are one byte whatever the precision: count them in activation elements.
            double saved = op.saved_elems + op.saved_mask_elems / elem_b;
            if (cfg.recompute == Recompute::selective) {
                saved -= selective_dropped(op, elem_b);
                if (attention_core(op)) {
                    recompute_time += f.time;
                    by_replay.op[slot] += f.time;
                    layer_recomputed += op.fwd_flops;
                }
            } else if (cfg.recompute == Recompute::op && block && op.cls != work::OpClass::fused_attention) {
                // The share of the op replayed: all of it, or for a matmul the width of its
                // even-numbered matmuls in the block (the 2nd, 4th, ...); a replayed op stashes nothing.
                double share = 1.0;
                if (op.cls == work::OpClass::matmul) {
                    double replayed_width = 0, width = 0;
                    for (double n : issued_matmuls(op, w.hidden)) {
                        if (n <= 0) break;
                        width += n;
                        if (++matmuls_issued % 2 == 0) replayed_width += n;
                    }
                    share = width > 0 ? replayed_width / width : 0.0;
                } else {
                    saved = 0;
                }
                recompute_time += f.time * share;
                by_replay.op[slot] += f.time * share;
                layer_recomputed += op.fwd_flops * share;
            }
            layer_saved += saved / divisor(op);
            split = split || op.tp != work::TpSplit::none;
            // Under tensor parallelism the token table is split by vocabulary (Megatron's
            // VocabParallelEmbedding, torchtitan's RowwiseParallel tok_embeddings): each rank
            // looks up the ids in its range and the partial outputs are summed across ranks
            // like a row-parallel matmul's, one collective per embedding layer.
            if (cfg.tp > 1 && op.cls == work::OpClass::embedding && !vocab_parallel) {
                vocab_parallel = true;
                ++lc.tp_fwd_collectives;
                lc.tp_collective_bytes = Bytes{std::max(lc.tp_collective_bytes.value,
                                                        op.m * op.n * cfg.micro_batch * elem_b)};
            }
            if (attention_core(op)) lc.attention_fwd += f.time;
            for (work::Op b : work::backward_ops(op)) {
                if (folded) continue;
                // A fused loss kernel's backward reads the logits once and writes their gradient.
                if (op.loss && cfg.loss_kernel == LossKernel::fused) b.fwd_elems = 2.0 * op.m * op.n * op.batch;
                // Under LoRA every original weight is frozen (the head's too): only input gradients.
                if (cfg.lora_rank > 0 && op.cls == work::OpClass::matmul && op.weight_elems > 0 && b.name == "wgrad") continue;
                const Seconds t = run.backward(gpu.op_cost(b, cfg.micro_batch, op_precision(b, gpu.spec(), cfg), cfg.tp, cfg.sequence_parallel).time);
                lc.bwd += t;
                by_bwd.op[slot] += t;
                if (attention_core(op)) lc.attention_bwd += t;
                if (run.launches()) ++lc.kernels;
            }
            if (!epilogue && run.launches()) ++lc.kernels;
            if (cfg.tp > 1 && op.cls == work::OpClass::matmul) {
                // Row-parallel output summed in forward; column-parallel input gradient in backward.
                if (op.tp == work::TpSplit::k) {
                    ++lc.tp_fwd_collectives;
                    lc.tp_collective_bytes = Bytes{std::max(lc.tp_collective_bytes.value,
                                                            op.m * op.n * cfg.micro_batch * elem_b)};
                } else if (op.tp == work::TpSplit::n) {
                    ++lc.tp_bwd_collectives;
                    lc.tp_collective_bytes = Bytes{std::max(lc.tp_collective_bytes.value,
                                                            op.m * op.k * cfg.micro_batch * elem_b)};
                }
            }
        }
        // Full recomputation replays the forward during backward, collectives included: in
        // every layer, or in every k-th instance of a repeated block.
        LayerCost replayed = lc;
        replayed.bwd += lc.fwd;
        replayed.tp_bwd_collectives += lc.tp_fwd_collectives;
        const int every = std::max(1, cfg.recompute_every);
        const auto replays = [&](int r) {
            return cfg.recompute == Recompute::full && (every == 1 || (block && r % every == 0));
        };
        if (cfg.recompute == Recompute::selective || cfg.recompute == Recompute::op) lc.bwd += recompute_time;
        // Megatron's scatter/gather optimisation sends 1/tp of the boundary activation.
        lc.boundary_bytes = Bytes{w.seq_len * w.hidden * cfg.micro_batch * elem_b / tp};
        lc.params = layer.params / (split || vocab_parallel ? tp : 1.0);
        lc.trainable_params = cfg.lora_rank > 0 ? layer_adapters : lc.params;
        lc.params += cfg.lora_rank > 0 ? layer_adapters : 0.0;
        // Parameters outside the ops (embedding tables) are one more tensor.
        if (layer.params > layer_op_weights * (1 + 1e-9)) {
            layer_tensors += 1;
            layer_decayed += 1;
        }
        out.param_tensors += (cfg.lora_rank > 0 ? adapted_tensors : layer_tensors) * layer.repeat;
        out.decayed_tensors += (cfg.lora_rank > 0 ? adapted_tensors : layer_decayed) * layer.repeat;
        replayed.boundary_bytes = lc.boundary_bytes;
        replayed.params = lc.params;
        replayed.trainable_params = lc.trainable_params;
        for (int r = 0; r < layer.repeat; ++r) {
            const bool replay = replays(r);
            out.layers.push_back(replay ? replayed : lc);
            out.bwd += replay ? replayed.bwd : lc.bwd;
            // Full recomputation replays the whole forward, extra kernels included.
            const ClassTimes& again = replay ? by_fwd : by_replay;
            for (std::size_t c = 0; c < op_class_count; ++c)
                out.by_class.op[c] += by_fwd.op[c] + by_bwd.op[c] + again.op[c];
            out.by_class.extra += by_fwd.extra + by_bwd.extra + again.extra;
            recomputed_flops += replay ? layer_flops : layer_recomputed;
            if (replay) {
                ++replayed_layers;
                replayed_stash_max = std::max(replayed_stash_max, layer_saved);
            } else {
                saved_elems += layer_saved;
            }
        }
        out.fwd += lc.fwd * layer.repeat;
        out.params += lc.params * layer.repeat;
        out.trainable_params += lc.trainable_params * layer.repeat;
        fwd_flops += layer_flops * layer.repeat;
        tf32_fwd_flops += layer_tf32_flops * layer.repeat;
    }
    // Forward, input gradients and weight gradients: 3x the forward. Under LoRA the frozen
    // weights have no weight gradient: 2x, the adapters' share being negligible at small rank.
    const double passes = cfg.lora_rank > 0 ? 2.0 : 3.0;
    out.model_flops_per_sample = Flops{passes * fwd_flops};
    out.hardware_flops_per_sample = Flops{passes * fwd_flops + recomputed_flops};
    out.tf32_flops_share = fwd_flops > 0 ? tf32_fwd_flops / fwd_flops : 0.0;

    const bool adam = out.optimizer_kind == Optimizer::adam;
    const double shard = cfg.zero >= 1 ? static_cast<double>(cfg.dp) : 1.0;
    const double updated = out.trainable_params / shard;
    double update_bytes = cfg.optimizer_kernel == OptimizerKernel::bert_adam ? bert_adam_bytes_per_param
                          : cfg.optimizer_kernel == OptimizerKernel::fused   ? (adam ? adam_bytes_per_param : sgd_bytes_per_param)
                                                                             : (adam ? unfused_adam_bytes_per_param : unfused_sgd_bytes_per_param);
    double launches = optimizer_launches(cfg.optimizer_kernel, adam, out.param_tensors, out.decayed_tensors, updated);
    if (cfg.grad_clip == GradClip::global) {
        update_bytes += grad_clip_bytes_per_param;
        launches += multi_tensor_launches(grad_clip_passes, out.param_tensors, updated);
    }
    // One streaming pass over the bytes, and every further launch's overhead.
    out.optimizer = gpu.stream_time(Bytes{updated * update_bytes}) + gpu.stream_time(Bytes{}) * (launches - 1);

    const double grad_elem = is_mixed(cfg.precision) ? 2.0 : 4.0;
    out.gradient_bytes = Bytes{out.trainable_params * reduced_gradient_bytes(cfg.precision, cfg.grad_reduce)};

    MemoryUse& m = out.memory;
    const double weight_b = is_mixed(cfg.precision) ? 2.0 : 4.0;
    const double grad_shard = cfg.zero >= 2 ? cfg.dp : 1.0;
    const double weight_shard = cfg.zero >= 3 ? cfg.dp : 1.0;
    const double state_b = adam ? (is_mixed(cfg.precision) ? 12.0 : 8.0) : (is_mixed(cfg.precision) ? 8.0 : 4.0);
    // Megatron's main gradients: the buffer has the reduction's width (fp32 under bf16), and
    // 16-bit gradients get an fp32 copy beside the fp32 main parameters, sharded as the
    // optimizer state is but not checkpointed (the Megatron Core guide's 20 / 18 / 16 bytes per
    // parameter, Framework::main_grads).
    double grad_b = grad_elem, main_grad_copy_b = 0;
    if (cfg.main_grads && is_mixed(cfg.precision)) {
        grad_b = reduced_gradient_bytes(cfg.precision, cfg.grad_reduce);
        if (grad_b < 4.0) main_grad_copy_b = 4.0;
    }
    m.weights = Bytes{out.params * weight_b / weight_shard};
    // ZeRO-3/FSDP gathers one layer's full parameters for its compute and prefetches the
    // next one's (FSDP's default of one prefetched all-gather; Zhao et al. 2023, PyTorch FSDP,
    // Sec. 3.3): two unsharded layers live beside the shards.
    if (cfg.zero >= 3 && cfg.dp > 1) {
        double largest = 0;
        for (const auto& layer : w.layers) largest = std::max(largest, layer.params);
        m.weights = m.weights + Bytes{2.0 * largest * weight_b};
    }
    // Frozen weights (LoRA) keep only their 16-bit copy: no gradient, master copy or moments.
    m.gradients = Bytes{out.trainable_params * (grad_b / grad_shard + main_grad_copy_b / shard)};
    m.optimizer = Bytes{out.trainable_params * state_b / shard};
    double act = saved_elems * cfg.micro_batch * activation_bytes(cfg.precision);
    if (cfg.recompute == Recompute::full && std::max(1, cfg.recompute_every) > 1) {
        // The layers that do not replay stash as without recomputation; those that do keep
        // their input (divided by tp under sequence parallelism), and one of them its whole
        // stash while its backward runs.
        const double input = w.seq_len * w.hidden / (cfg.sequence_parallel ? tp : 1.0);
        act += (replayed_layers * input + (replayed_layers > 0 ? replayed_stash_max : 0.0)) * cfg.micro_batch * elem_b;
    } else if (cfg.recompute == Recompute::full) {
        // One input per layer boundary plus one layer's activations live at a time.
        double per_layer_max = 0;
        for (const auto& layer : w.layers) {
            double s = 0;
            for (const auto& layer_op : layer.ops) {
                const work::Op op = as_run(layer_op, cfg);
                s += (op.saved_elems + op.saved_mask_elems / elem_b) / divisor(op);
            }
            per_layer_max = std::max(per_layer_max, s);
        }
        // Only each layer's input is stashed (divided by tp under sequence parallelism).
        const double inputs = static_cast<double>(w.n_layers) * w.seq_len * w.hidden /
                              (cfg.sequence_parallel ? tp : 1.0);
        act = (per_layer_max + inputs) * cfg.micro_batch * elem_b;
    }
    m.activations = Bytes{act};
    m.reserved = units::gib(reserved_gib);
    return out;
}

}  // namespace rentsim::compute
