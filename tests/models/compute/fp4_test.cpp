// NVFP4 training: a precision only Blackwell parts have, GEMMs at the fp4 peak, attention in
// bf16, and casts that write 4-bit values with one scale per 16 (3.125 B per element).
#include <doctest/doctest.h>

#include <cstddef>

#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {

double tflops(const char* name, Precision p) { return compute::find_gpu(name).peak_tflops[static_cast<std::size_t>(p)]; }

compute::Calibration flat_cal(const char* gpu) {
    compute::Calibration c;
    c.gpu = gpu;
    c.matmul_eff = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    c.conv_eff = 1.0;
    c.k_fill = 0.0;
    c.mem_eff = 0.5;
    c.kernel_overhead_s = 0.0;
    return c;
}

}  // namespace

TEST_CASE("fp4 peaks are the Blackwell spec tables, dense, and zero on every other part") {
    CHECK(tflops("b200", Precision::fp4) == doctest::Approx(9000.0));    // HGX B200: 18 PFLOPS sparse
    CHECK(tflops("gb200", Precision::fp4) == doctest::Approx(10000.0));  // GB200 NVL72: 20 PFLOPS sparse
    CHECK(tflops("b300", Precision::fp4) == doctest::Approx(14000.0));   // Verda's per-GPU table
    CHECK(tflops("gb300", Precision::fp4) == doctest::Approx(15000.0));  // 1,080 dense PFLOPS / 72
    for (const auto& g : compute::gpu_catalog()) {
        CAPTURE(g.name);
        CHECK((g.peak_tflops[static_cast<std::size_t>(Precision::fp4)] > 0.0) == (g.family == "blackwell"));
    }
}

TEST_CASE("fp4 keeps bf16 activations and fp32 master weights, like fp8") {
    CHECK(compute::activation_bytes(Precision::fp4) == 2.0);
    CHECK(compute::is_mixed(Precision::fp4));
    CHECK(compute::parse_precision("fp4") == Precision::fp4);
}

TEST_CASE("an fp4 step on a B200: GEMMs twice as fast as fp8, attention unchanged, casts cheaper") {
    const compute::GpuModel gpu(compute::find_gpu("b200"), flat_cal("b200"));
    CHECK(gpu.attention_precision(Precision::fp4) == Precision::bf16);
    CHECK(gpu.matmul_rate(Precision::fp4).value == doctest::Approx(2 * gpu.matmul_rate(Precision::fp8).value));
    const auto w = work::gpt(work::GptShape{.layers = 2, .hidden = 4096, .heads = 32, .seq_len = 4096, .vocab = 32000,
                                            .attention = work::AttentionKind::flash});
    compute::StepConfig cfg;
    cfg.micro_batch = 1;
    cfg.precision = Precision::fp8;
    const auto fp8 = compute::plan_step(w, gpu, cfg);
    cfg.precision = Precision::fp4;
    const auto fp4 = compute::plan_step(w, gpu, cfg);
    cfg.precision = Precision::bf16;
    const auto bf16 = compute::plan_step(w, gpu, cfg);
    // Faster than fp8, but less than twice: attention, norms and casts do not speed up.
    CHECK(fp4.fwd.value < fp8.fwd.value);
    CHECK(fp4.fwd.value > 0.5 * fp8.fwd.value);
    CHECK(fp8.fwd.value < bf16.fwd.value);
    // Memory is the same recipe: bf16 activations, fp32 master weights and Adam state.
    CHECK(fp4.memory.activations.value == doctest::Approx(fp8.memory.activations.value));
    CHECK(fp4.params == doctest::Approx(fp8.params));
}

TEST_CASE("the fp4 cast writes 4-bit values and one E4M3 scale per 16, row- and column-wise") {
    CHECK(compute::fp4_cast_bytes_per_elem == doctest::Approx(2.0 + 2 * (0.5 + 1.0 / 16)));
}
