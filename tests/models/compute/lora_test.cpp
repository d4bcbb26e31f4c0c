// LoRA fine-tuning in the step model: frozen block weights beside rank-r adapters, no weight
// gradients for the frozen weights, optimizer state and gradients for the adapters only.
#include <doctest/doctest.h>

#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {

// One pre-norm block of width 4,096 (16,384 feed-forward), 32 heads, 2,048 tokens, fused QKV.
work::Workload one_block() {
    return work::gpt(work::GptShape{.layers = 1, .hidden = 4096, .heads = 32, .seq_len = 2048, .vocab = 32000,
                                    .attention = work::AttentionKind::flash});
}

compute::StepCost step(int rank) {
    const compute::GpuModel gpu(compute::find_gpu("h100-sxm5-80gb"), compute::prior_calibration(compute::find_gpu("h100-sxm5-80gb")));
    compute::StepConfig cfg;
    cfg.precision = Precision::bf16;
    cfg.micro_batch = 1;
    cfg.lora_rank = rank;
    return compute::plan_step(one_block(), gpu, cfg);
}

}  // namespace

TEST_CASE("LoRA adapters: r (k + n) per linear weight of the block, 16 r h for a GPT block") {
    // qkv 1,024 -> 3,072: r (h + 3h); attn_proj r (h + h); mlp_up r (h + 4h); mlp_down r (4h + h).
    const auto full = step(0), lora = step(8);
    CHECK(lora.trainable_params == doctest::Approx(16.0 * 8 * 4096));
    CHECK(full.trainable_params == doctest::Approx(full.params));
    // The adapters are held beside every frozen weight (embeddings and head included).
    CHECK(lora.params == doctest::Approx(full.params + 16.0 * 8 * 4096));
}

TEST_CASE("LoRA memory: 16-bit frozen weights, gradients and Adam state for the adapters only") {
    const auto full = step(0), lora = step(8);
    const double adapters = 16.0 * 8 * 4096;
    CHECK(lora.memory.weights.value == doctest::Approx(2.0 * lora.params));
    CHECK(lora.memory.gradients.value == doctest::Approx(2.0 * adapters));
    CHECK(lora.memory.optimizer.value == doctest::Approx(12.0 * adapters));
    CHECK(full.memory.optimizer.value == doctest::Approx(12.0 * full.params));
    CHECK(lora.gradient_bytes.value == doctest::Approx(2.0 * adapters));
    // Activations are the same: the frozen layers' inputs are still needed for the adapters.
    CHECK(lora.memory.activations.value == doctest::Approx(full.memory.activations.value));
}

TEST_CASE("LoRA time: no weight gradients of the frozen weights, the adapters' small GEMMs added") {
    const auto full = step(0), lora = step(8);
    CHECK(lora.bwd.value < full.bwd.value);
    CHECK(lora.fwd.value > full.fwd.value);            // the adapters run beside every linear layer
    CHECK(lora.fwd.value < 1.2 * full.fwd.value);
    CHECK(lora.optimizer.value < 0.05 * full.optimizer.value);
    // Model FLOPs: forward and input gradients, 2x the forward instead of 3x.
    CHECK(lora.model_flops_per_sample.value < full.model_flops_per_sample.value * 0.7);
    // A larger rank costs more.
    CHECK(step(64).fwd.value > lora.fwd.value);
}
