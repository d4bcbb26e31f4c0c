// Backward passes and workload totals on hand-built ops.
#include <doctest/doctest.h>

#include <stdexcept>

#include "models/workloads/workload.hpp"

using namespace rentsim::work;

namespace {

// GPT-3 125M's first MLP GEMM for one 2048-token sequence: [2048 x 768] x [768 x 3072].
Op mlp_up() {
    const double m = 2048, n = 3072, k = 768;
    return Op{.name = "mlp_up", .cls = OpClass::matmul, .m = m, .n = n, .k = k, .batch = 1,
              .fwd_flops = 2 * m * n * k, .fwd_elems = m * k + m * n, .weight_elems = k * n + n,
              .saved_elems = m * k, .tp = TpSplit::n};
}

double flops(const std::vector<Op>& ops) {
    double f = 0;
    for (const Op& op : ops) f += op.fwd_flops;
    return f;
}

}  // namespace

TEST_CASE("a GEMM's backward is a transposed dgrad and wgrad costing twice the forward") {
    const Op fwd = mlp_up();
    const auto bwd = backward_ops(fwd);
    REQUIRE(bwd.size() == 2);
    CHECK(flops(bwd) == 2 * fwd.fwd_flops);

    // dX[2048 x 768] = dY[2048 x 3072] W^T[3072 x 768]
    const Op& d = bwd[0];
    CHECK(d.name == "dgrad");
    CHECK(d.m == 2048);
    CHECK(d.n == 768);
    CHECK(d.k == 3072);
    CHECK(d.samples == SampleDim::m);
    CHECK(d.tp == TpSplit::k);  // column-parallel forward, row-parallel dgrad

    // dW[768 x 3072] = X^T[768 x 2048] dY[2048 x 3072], summed over the micro-batch
    const Op& w = bwd[1];
    CHECK(w.name == "wgrad");
    CHECK(w.m == 768);
    CHECK(w.n == 3072);
    CHECK(w.k == 2048);
    CHECK(w.samples == SampleDim::k);
    CHECK(w.tp == TpSplit::n);

    for (const Op& op : bwd) {
        CHECK(op.cls == OpClass::matmul);
        CHECK(op.fwd_elems == fwd.fwd_elems);
        CHECK(op.weight_elems == fwd.weight_elems);
        CHECK(op.saved_elems == 0);
    }
}

TEST_CASE("a row-parallel GEMM has a column-parallel dgrad and a wgrad split along its rows") {
    Op fwd = mlp_up();
    std::swap(fwd.n, fwd.k);  // mlp_down: [2048 x 3072] x [3072 x 768]
    fwd.tp = TpSplit::k;
    const auto bwd = backward_ops(fwd);
    REQUIRE(bwd.size() == 2);
    CHECK(bwd[0].tp == TpSplit::n);
    CHECK(bwd[1].tp == TpSplit::m);
    CHECK(bwd[1].m == 3072);
}

TEST_CASE("the backward of a per-head attention GEMM keeps the heads as its batch") {
    // GPT-3 125M scores: 12 heads of Q[2048 x 64] K^T[64 x 2048].
    const Op fwd{.name = "attn_scores", .cls = OpClass::attention, .m = 2048, .n = 2048, .k = 64,
                 .batch = 12, .fwd_flops = 2.0 * 2048 * 2048 * 64 * 12, .tp = TpSplit::batch,
                 .samples = SampleDim::batch};
    const auto bwd = backward_ops(fwd);
    REQUIRE(bwd.size() == 2);
    CHECK(flops(bwd) == 2 * fwd.fwd_flops);
    // dQ[2048 x 64] = dS[2048 x 2048] K[2048 x 64]
    CHECK(bwd[0].name == "dgrad_lhs");
    CHECK((bwd[0].m == 2048 && bwd[0].n == 64 && bwd[0].k == 2048));
    // dK^T[64 x 2048] = Q^T[64 x 2048] dS[2048 x 2048]
    CHECK(bwd[1].name == "dgrad_rhs");
    CHECK((bwd[1].m == 64 && bwd[1].n == 2048 && bwd[1].k == 2048));
    for (const Op& op : bwd) {
        CHECK(op.batch == 12);
        CHECK(op.samples == SampleDim::batch);
        CHECK(op.tp == TpSplit::batch);
    }
}

TEST_CASE("an op whose input needs no gradient gets only its weight gradient") {
    Op fwd = mlp_up();
    fwd.input_grad = false;
    const auto bwd = backward_ops(fwd);
    REQUIRE(bwd.size() == 1);
    CHECK(bwd[0].name == "wgrad");
    CHECK(bwd[0].fwd_flops == fwd.fwd_flops);
}

TEST_CASE("a streaming op's backward costs its forward FLOPs (twice for norms), 1.5x traffic") {
    const Op gelu{.name = "gelu", .cls = OpClass::elementwise, .m = 2048, .n = 3072,
                  .fwd_flops = 9.0 * 2048 * 3072, .fwd_elems = 2.0 * 2048 * 3072,
                  .saved_elems = 2048.0 * 3072, .tp = TpSplit::n};
    auto bwd = backward_ops(gelu);
    REQUIRE(bwd.size() == 1);
    CHECK(bwd[0].name == "bwd");
    CHECK(bwd[0].fwd_flops == gelu.fwd_flops);
    CHECK(bwd[0].fwd_elems == 1.5 * gelu.fwd_elems);
    CHECK(bwd[0].saved_elems == 0);
    CHECK(bwd[0].tp == TpSplit::n);

    Op ln = gelu;
    ln.cls = OpClass::normalization;
    CHECK(backward_ops(ln)[0].fwd_flops == 2 * ln.fwd_flops);

    // The embedding's forward is a gather; its backward scatter-adds one row per token.
    const Op emb{.name = "token_embed", .cls = OpClass::embedding, .m = 2048, .n = 768,
                 .fwd_elems = 2.0 * 2048 * 768};
    CHECK(backward_ops(emb)[0].fwd_flops == 2048.0 * 768);
}

TEST_CASE("workload totals count every layer times its repeat") {
    Workload w{.name = "toy", .domain = Domain::language, .seq_len = 2048, .layers = {},
               .vocab = 0, .hidden = 768, .n_layers = 3};
    Layer block{.name = "block", .ops = {mlp_up()}, .params = 768.0 * 3072 + 3072, .repeat = 3};
    Layer head{.name = "head", .ops = {}, .params = 10, .repeat = 1};
    w.layers = {block, head};
    const Op op = mlp_up();
    CHECK(w.params() == 3 * (768.0 * 3072 + 3072) + 10);
    CHECK(w.fwd_flops_per_sample() == 3 * op.fwd_flops);
    CHECK(w.train_flops_per_sample() == 9 * op.fwd_flops);
    CHECK(w.matmul_params() == 3 * op.weight_elems);
    CHECK(w.model_flops_per_token() == 6 * 3 * op.weight_elems + 12.0 * 3 * 768 * 2048);
}

TEST_CASE("model FLOPs per token are refused for a vision workload") {
    const Workload w{.name = "cnn", .domain = Domain::vision};
    CHECK_THROWS_AS(static_cast<void>(w.model_flops_per_token()), std::logic_error);
}
