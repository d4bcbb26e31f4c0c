// Autoregressive generation (models/compute/generation.hpp): the K/V cache by hand, decode
// steps bound by reading the weights, and the directions every physical change must move it.
#include <doctest/doctest.h>

#include <stdexcept>

#include "models/compute/generation.hpp"
#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {

work::Workload preset(const char* name, int seq_len) {
    work::GptShape s = work::find_gpt_preset(name)->shape;
    s.seq_len = seq_len;
    s.attention = work::AttentionKind::flash;
    return work::gpt(s, name);
}

compute::GpuModel h100() {
    const auto& spec = compute::find_gpu("h100-sxm5-80gb");
    return compute::GpuModel(spec, compute::prior_calibration(spec));
}

double params(const work::Workload& w) {
    double n = 0;
    for (const auto& l : w.layers) n += l.params * l.repeat;
    return n;
}

}  // namespace

TEST_CASE("the K/V cache of Llama 2 7B: 0.5 MiB per token in 16-bit, 1 GiB for 2,048 tokens") {
    // 2 (K and V) x 32 layers x 32 heads x 128 x 2 B = 524,288 B per token.
    const auto c = compute::generation_cost(preset("llama2-7b", 2048), h100(), Precision::bf16, 1, 1024, 1024);
    CHECK(c.kv_cache.value == 1024.0 * 1024 * 1024);
    // Llama 3 8B keeps 8 K/V heads for 32 query heads: a quarter of that.
    const auto gqa = compute::generation_cost(preset("llama3-8b", 2048), h100(), Precision::bf16, 1, 1024, 1024);
    CHECK(gqa.kv_cache.value == 256.0 * 1024 * 1024);
    // Batch and tensor parallelism: 8 sequences, split over 2 GPUs.
    const auto tp2 = compute::generation_cost(preset("llama2-7b", 2048), h100(), Precision::bf16, 8, 1024, 1024, 2);
    CHECK(tp2.kv_cache.value == 4.0 * 1024 * 1024 * 1024);
}

TEST_CASE("a decode step of one sequence reads every weight once: HBM-bound") {
    const auto gpu = h100();
    const auto w = preset("llama2-7b", 512);
    const int response = 257;
    const auto c = compute::generation_cost(w, gpu, Precision::bf16, 1, 256, response);
    const double step = c.decode.value / (response - 1);
    const double launches = c.kernels_per_token * gpu.calibration().kernel_overhead_s;
    const double weights = params(w) * 2 / gpu.memory_rate().value;
    // The weights' bytes at the effective bandwidth, plus a little for the cache (under 1% of
    // the weights at 512 tokens) and the activations; the launches on top.
    CHECK(step - launches >= weights * 0.99);
    CHECK(step - launches <= weights * 1.05);
    // So a step is the weights over the effective bandwidth plus the launches, within 5%.
    CHECK(step == doctest::Approx(weights + launches).epsilon(0.05));
}

TEST_CASE("generation costs move the way the hardware and the work say") {
    const auto w = preset("gpt3-1.3b", 2048);
    const auto gpu = h100();
    const auto base = compute::generation_cost(w, gpu, Precision::bf16, 32, 1024, 1024);
    // Longer responses: more decode steps, each over a longer cache.
    const auto longer = compute::generation_cost(w, gpu, Precision::bf16, 32, 1024, 2048);
    CHECK(longer.decode.value > 2 * base.decode.value);
    CHECK(longer.prefill.value == base.prefill.value);
    // A larger batch shares each weight read: per sequence, cheaper.
    const auto wide = compute::generation_cost(w, gpu, Precision::bf16, 128, 1024, 1024);
    CHECK(wide.decode.value < 4 * base.decode.value);
    CHECK(wide.decode.value > base.decode.value);
    // More bandwidth never slows it down.
    compute::GpuSpec faster = compute::find_gpu("h100-sxm5-80gb");
    faster.hbm_gbps *= 2;
    const compute::GpuModel fast_gpu(faster, gpu.calibration());
    CHECK(compute::generation_cost(w, fast_gpu, Precision::bf16, 32, 1024, 1024).total().value < base.total().value);
    // fp8 training generates in bf16.
    CHECK(compute::generation_cost(w, gpu, Precision::fp8, 32, 1024, 1024).total().value == base.total().value);
    // One token: the prefill's logits, no decode step.
    CHECK(compute::generation_cost(w, gpu, Precision::bf16, 32, 1024, 1).decode.value == 0);
}

TEST_CASE("generation refuses what it cannot price") {
    const auto gpu = h100();
    CHECK_THROWS_WITH_AS(compute::generation_cost(work::resnet50(), gpu, Precision::bf16, 1, 8, 8),
                         "generation needs a decoder-only transformer, not 'resnet50'", std::invalid_argument);
    const auto w = preset("gpt3-1.3b", 64);
    CHECK_THROWS_WITH_AS(compute::generation_cost(w, gpu, Precision::bf16, 0, 8, 8),
                         "generation needs a positive batch, prompt and response", std::invalid_argument);
    CHECK_THROWS_WITH_AS(compute::generation_cost(w, gpu, Precision::bf16, 1, 8, 8, 3),
                         "generation: tp 3 does not divide the 16 heads", std::invalid_argument);
}
