// The cost of a FlashAttention op (OpClass::fused_attention) on the GPU roofline: FLOPs at
// attention_eff x the 16-bit peak, wave-quantised over query blocks, or traffic over the
// effective bandwidth, whichever is longer.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {

compute::Calibration attention_cal() {
    compute::Calibration c;
    c.gpu = "a100-sxm4-80gb";
    c.matmul_eff = {0.5, 0.5, 0.5, 0.5, 0.5};
    c.conv_eff = 1.0;
    c.k_fill = 0.0;
    c.mem_eff = 0.5;
    c.kernel_overhead_s = 0.0;
    return c;  // attention_eff: the 0.6 prior
}

const work::Op& find_op(const work::Workload& w, std::string_view name) {
    for (const auto& l : w.layers)
        for (const auto& o : l.ops)
            if (o.name == name) return o;
    FAIL("no op " << name);
    return w.layers.front().ops.front();
}

// 27 heads of 128 over 2048 causal tokens: 16 query blocks x 27 heads = 432 thread blocks,
// exactly 4 waves on an A100's 108 SMs.
work::Workload flash_gpt(work::AttentionKind kind = work::AttentionKind::flash) {
    return work::gpt(work::GptShape{.layers = 1, .hidden = 27 * 128, .heads = 27, .seq_len = 2048,
                                    .vocab = 1000, .dropout = false, .attention = kind});
}

}  // namespace

TEST_CASE("the attention efficiency prior is FlashAttention-2's 60% of peak") {
    CHECK(compute::Calibration{}.attention_eff == 0.6);
}

TEST_CASE("a compute-bound flash op that fills whole waves runs at attention_eff x the 16-bit peak") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    const auto w = flash_gpt();
    const work::Op& f = find_op(w, "flash_attn");
    const double s = 2048, d = 128, a = 27;
    const double flops = (4 * s * s * d * a + 5 * s * s * a) / 2;
    REQUIRE(f.fwd_flops == flops);
    // Traffic: Q, K, V, O (s a d each) and the logsumexp (2 s a), 56.8 MB: 56 us at half of
    // 2039 GB/s, against 157 us of compute at 0.6 x 312 TFLOP/s.
    const auto c = gpu.op_cost(f, 1, Precision::bf16);
    CHECK(c.flops.value == flops);
    CHECK(c.bytes.value == doctest::Approx((4 * s * a * d + 2 * s * a) * 2));
    CHECK(c.time.value == doctest::Approx(flops / (312e12 * 0.6)));
    // fp16 is the same peak on an A100.
    CHECK(gpu.op_cost(f, 1, Precision::fp16).time.value == doctest::Approx(c.time.value));
    // Two samples: twice the blocks (8 waves) and the FLOPs.
    CHECK(gpu.op_cost(f, 2, Precision::bf16).time.value == doctest::Approx(2 * c.time.value));
}

TEST_CASE("the backward kernel costs 2.5x the forward when compute bound") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    const auto w = flash_gpt();
    const work::Op& f = find_op(w, "flash_attn");
    const auto bwd = work::backward_ops(f);
    REQUIRE(bwd.size() == 1);
    const double fwd_t = gpu.op_cost(f, 1, Precision::bf16).time.value;
    CHECK(gpu.op_cost(bwd[0], 1, Precision::bf16).time.value == doctest::Approx(2.5 * fwd_t));
}

TEST_CASE("attention stays in bf16 under fp8 training") {
    // H100 SXM: bf16 989.4 TFLOP/s, fp8 1978.9. 432 blocks on 132 SMs: 4 waves of 132.
    const compute::GpuModel gpu(compute::find_gpu("h100-sxm5-80gb"), attention_cal());
    const auto w = flash_gpt();
    const work::Op& f = find_op(w, "flash_attn");
    CHECK(gpu.attention_precision(Precision::fp8) == Precision::bf16);
    CHECK(gpu.attention_rate(Precision::fp8).value == doctest::Approx(989.4e12 * 0.6));
    const double fp8 = gpu.op_cost(f, 1, Precision::fp8).time.value;
    CHECK(fp8 == doctest::Approx(gpu.op_cost(f, 1, Precision::bf16).time.value));
    CHECK(fp8 == doctest::Approx(f.fwd_flops * (4 * 132.0 / 432) / (989.4e12 * 0.6)));
}

TEST_CASE("fp32 attention runs at the tf32 peak where the GPU has one") {
    const compute::GpuModel a100(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    CHECK(a100.attention_precision(Precision::fp32) == Precision::tf32);
    CHECK(a100.attention_precision(Precision::tf32) == Precision::tf32);
    CHECK(a100.attention_precision(Precision::bf16) == Precision::bf16);
    const auto w = flash_gpt();
    const work::Op& f = find_op(w, "flash_attn");
    // 4-byte activations: 114 MB take 111 us; the FLOPs 313 us at 0.6 x 156 TFLOP/s.
    CHECK(a100.op_cost(f, 1, Precision::fp32).time.value == doctest::Approx(f.fwd_flops / (156e12 * 0.6)));
    CHECK(a100.op_cost(f, 1, Precision::fp32).bytes.value == doctest::Approx(2 * a100.op_cost(f, 1, Precision::bf16).bytes.value));
    // V100: no bf16 units: an error, not a number; fp16: 432 blocks in 6 waves of 80 SMs.
    const compute::GpuModel v100(compute::find_gpu("v100-sxm2-32gb"), attention_cal());
    CHECK_THROWS_AS((void)v100.op_cost(f, 1, Precision::bf16), std::invalid_argument);
    CHECK(v100.op_cost(f, 1, Precision::fp16).time.value == doctest::Approx(f.fwd_flops * (6 * 80.0 / 432) / (125e12 * 0.6)));
}

TEST_CASE("one query block more than a wave costs a whole extra wave") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    const double flops = 1e12, rate = 312e12 * 0.6;
    CHECK(gpu.attention_time(flops, 108, 0, Precision::bf16).value == doctest::Approx(flops / rate));
    CHECK(gpu.attention_time(flops, 109, 0, Precision::bf16).value == doctest::Approx(flops * 216 / 109 / rate));
    // Memory bound: bytes over half of 2039 GB/s.
    CHECK(gpu.attention_time(1, 108, 1e9, Precision::bf16).value == doctest::Approx(1e9 / (2039e9 * 0.5)));
}

TEST_CASE("tensor parallelism splits the flash op by head") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    const auto w = flash_gpt();
    const work::Op& f = find_op(w, "flash_attn");
    const auto one = gpu.op_cost(f, 1, Precision::bf16, 1);
    const auto three = gpu.op_cost(f, 1, Precision::bf16, 3);  // 9 heads per rank
    CHECK(three.flops.value == doctest::Approx(one.flops.value / 3));
    CHECK(three.bytes.value == doctest::Approx(one.bytes.value / 3));
    // 144 blocks: 2 waves of 108 for a third of the FLOPs.
    CHECK(three.time.value == doctest::Approx(one.flops.value / 3 * (216.0 / 144) / (312e12 * 0.6)));
}

TEST_CASE("a flash step is faster and stashes less than the unfused one") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), attention_cal());
    compute::StepConfig cfg;
    cfg.precision = Precision::bf16;
    cfg.micro_batch = 1;
    const auto flash = compute::plan_step(flash_gpt(), gpu, cfg);
    const auto unfused = compute::plan_step(flash_gpt(work::AttentionKind::unfused), gpu, cfg);
    CHECK(flash.fwd.value < unfused.fwd.value);
    CHECK(flash.bwd.value < unfused.bwd.value);
    // Stash: the softmax output (a s^2 elements) becomes the logsumexp (2 s a).
    const double s = 2048, a = 27;
    CHECK(unfused.memory.activations.value - flash.memory.activations.value ==
          doctest::Approx((a * s * s - 2 * s * a) * 2));
    // The step counts 3x the ops' forward FLOPs: the causal half flash skips shows there.
    CHECK(flash.model_flops_per_sample.value < unfused.model_flops_per_sample.value);
}
