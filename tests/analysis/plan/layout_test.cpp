#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "analysis/plan/layout.hpp"

using namespace rentsim;
using analysis::Layout;
using analysis::LayoutEval;
using analysis::LayoutProblem;
using compute::Recompute;

namespace {

double recompute_time(Recompute r) { return r == Recompute::none ? 0 : r == Recompute::selective ? 0.05 : 0.3; }
double recompute_share(Recompute r) { return r == Recompute::none ? 1 : r == Recompute::selective ? 0.5 : 0.25; }

// Hand-computable step time: 8 / tp + tp / 2 is least at tp 4; every other knob only adds.
double toy_step_s(const Layout& l) {
    return 8.0 / l.tp + 0.5 * l.tp + (l.pp - 1) + (l.cp - 1) + 0.1 * l.zero + recompute_time(l.recompute)
         + 0.01 * (l.virtual_stages - 1) + 0.02 / l.micro_batch;
}

// Everything fits; cost favours no model parallelism and big micro-batches.
LayoutEval roomy(const Layout& l) {
    LayoutEval e;
    e.fits = true;
    e.memory_gib = e.workspace_gib = 1;
    e.available_gib = 80;
    e.step_s = toy_step_s(l);
    // Quarters, so that equal costs are equal in binary and the tie-break decides.
    const double recompute_usd = l.recompute == Recompute::none ? 0 : l.recompute == Recompute::selective ? 0.25 : 1;
    e.cost_usd = 10 + l.tp + l.pp + l.cp - 0.25 * l.micro_batch + 0.25 * l.zero + recompute_usd
               + 0.25 * (l.virtual_stages - 1);
    return e;
}

// Memory by the scaling rules of the search: P GiB of weights, P of gradients, 6 P of
// optimizer state, split over tp x pp and over dp as the ZeRO stage says; activations of
// A GiB per sample split over tp x cp and cut by recomputation; a fixed workspace.
struct ToyMemory {
    double params = 16, activations = 8.8, workspace = 2, available = 10;
    LayoutEval operator()(const Layout& l) const {
        LayoutEval e;
        const double mp = l.tp * l.pp;
        e.params_gib = params / mp / (l.zero >= 3 ? l.dp : 1);
        e.grads_gib = params / mp / (l.zero >= 2 ? l.dp : 1);
        e.optimizer_gib = 6 * params / mp / (l.zero >= 1 ? l.dp : 1);
        e.activations_gib = activations * l.micro_batch / (l.tp * l.cp) * recompute_share(l.recompute);
        e.workspace_gib = workspace;
        e.memory_gib = e.params_gib + e.grads_gib + e.optimizer_gib + e.activations_gib + e.workspace_gib;
        e.available_gib = available;
        e.fits = e.memory_gib <= available;
        e.step_s = toy_step_s(l);
        e.cost_usd = e.step_s;
        return e;
    }
};

LayoutProblem small() {
    LayoutProblem p;
    p.gpus = 8, p.gpus_per_node = 8, p.layers = 4, p.heads = 8, p.seq_len = 2048, p.global_batch = 16;
    p.micro_batches = {1, 2};
    return p;
}

int refused_total(const analysis::LayoutSearchResult& r) {
    return std::accumulate(r.refused.begin(), r.refused.end(), 0, [](int s, const auto& kv) { return s + kv.second; });
}

}  // namespace

TEST_CASE("the layout search picks the fastest fitting layout and the second fastest as runner-up") {
    const auto r = analysis::search_layout(small(), roomy);
    REQUIRE(r.best);
    REQUIRE(r.runner_up);
    // 8/4 + 4/2 = 4 beats tp 2 and tp 8 (5 each); micro-batch 2 saves 0.01 s over 1.
    CHECK(analysis::describe(r.best->layout) == "tp 4, pp 1, cp 1, dp 2, micro-batch 2, sequence parallel, no recompute, zero 0");
    CHECK(r.best->eval.step_s == doctest::Approx(4.01));
    // Next: micro-batch 1 (+0.01), before selective recompute (+0.05) and zero 1 (+0.1).
    CHECK(analysis::describe(r.runner_up->layout) == "tp 4, pp 1, cp 1, dp 2, micro-batch 1, sequence parallel, no recompute, zero 0");
    CHECK(r.runner_up->eval.step_s == doctest::Approx(4.02));
    CHECK(r.fitting == r.evaluated);
    CHECK(!r.closest_misfit);
    CHECK(r.smallest_change.empty());
}

TEST_CASE("with the cost objective the layout search picks the cheapest and breaks ties by time") {
    const auto r = analysis::search_layout(small(), roomy, analysis::Objective::cost);
    REQUIRE(r.best);
    REQUIRE(r.runner_up);
    CHECK(analysis::describe(r.best->layout) == "tp 1, pp 1, cp 1, dp 8, micro-batch 2, no recompute, zero 0");
    CHECK(r.best->eval.cost_usd == 12.5);
    // Micro-batch 1, selective recompute and zero 1 all cost 12.75; micro-batch 1 is the
    // fastest of them (8.52 s against 8.56 s and 8.61 s).
    CHECK(analysis::describe(r.runner_up->layout) == "tp 1, pp 1, cp 1, dp 8, micro-batch 1, no recompute, zero 0");
    CHECK(r.runner_up->eval.cost_usd == 12.75);
}

TEST_CASE("every candidate either fits or is refused for one reason, and evaluated layouts obey the rules") {
    LayoutProblem p;
    p.gpus = 16, p.gpus_per_node = 8, p.layers = 6, p.heads = 12, p.kv_heads = 2, p.seq_len = 4096;
    p.global_batch = 24;
    std::vector<Layout> seen;
    const ToyMemory memory{4, 8.8, 2, 20};
    const auto r = analysis::search_layout(p, [&](const Layout& l) {
        seen.push_back(l);
        return memory(l);
    });
    CHECK(r.fitting > 0);
    CHECK(r.refused.at("does not fit in memory") > 0);
    CHECK(refused_total(r) == r.candidates - r.fitting);
    CHECK(r.evaluated == r.fitting + r.refused.at("does not fit in memory"));
    CHECK(r.evaluated == static_cast<int>(seen.size()));
    CHECK(r.refused.at("tp does not divide the attention heads") > 0);          // tp 8, 12 heads
    CHECK(r.refused.at("tp does not divide the query groups (kv_heads)") > 0);  // tp 4, 2 groups
    CHECK(r.refused.at("micro-batch does not divide the batch per data-parallel rank") > 0);
    CHECK(r.refused.at("zero 3 (FSDP) is not combined with pipeline parallelism") > 0);
    CHECK(!r.refused.contains("not evaluated: evaluation limit reached"));
    for (const Layout& l : seen) {
        CHECK(l.tp * l.pp * l.cp * l.dp == p.gpus);
        CHECK(l.tp <= p.gpus_per_node);
        CHECK(p.heads % l.tp == 0);
        CHECK(2 % l.tp == 0);
        CHECK(l.sequence_parallel == (l.tp > 1));
        CHECK(p.seq_len / l.cp >= 1024);
        CHECK(p.layers % (l.pp * l.virtual_stages) == 0);
        CHECK(p.global_batch % (l.dp * l.micro_batch) == 0);
        if (l.virtual_stages > 1) {
            CHECK(l.pp > 1);
            CHECK((p.global_batch / (l.dp * l.micro_batch)) % l.pp == 0);
        }
        if (l.zero == 3) CHECK(l.pp == 1);
    }
}

TEST_CASE("tensor parallelism never leaves a node nor exceeds max_tp") {
    LayoutProblem p;
    p.gpus = 64, p.gpus_per_node = 4, p.layers = 8, p.heads = 64, p.seq_len = 4096, p.global_batch = 512;
    int max_tp = 0;
    const auto eval = [&](const Layout& l) {
        max_tp = std::max(max_tp, l.tp);
        return roomy(l);
    };
    analysis::search_layout(p, eval);
    CHECK(max_tp == 4);
    p.max_tp = 2;
    max_tp = 0;
    analysis::search_layout(p, eval);
    CHECK(max_tp == 2);
}

TEST_CASE("when nothing fits the search names the closest layout and the GPU count that would fit") {
    // 8 GPUs, 10 GiB each. Least memory: tp 8, full recompute: 2 + 2 + 12 + 8.8/4/8 + 2
    // = 18.275 GiB, at dp 1 the same for every ZeRO stage (zero 0, the first, is kept). At
    // 16 GPUs (dp 2) even zero 3 needs 16 / 2 + 2.275 > 10; at 32 (dp 4) zero 1 already fits:
    // 2 + 2 + 12 / 4 + 2.275 = 9.275 GiB.
    LayoutProblem p;
    p.gpus = 8, p.gpus_per_node = 8, p.layers = 2, p.heads = 8, p.seq_len = 1024, p.global_batch = 64;
    p.micro_batches = {1};
    const ToyMemory memory;
    const auto r = analysis::search_layout(p, memory);
    CHECK(!r.best);
    CHECK(r.fitting == 0);
    CHECK(refused_total(r) == r.candidates);
    REQUIRE(r.closest_misfit);
    CHECK(analysis::describe(r.closest_misfit->layout) == "tp 8, pp 1, cp 1, dp 1, micro-batch 1, sequence parallel, full recompute, zero 0");
    CHECK(r.closest_misfit->eval.memory_gib == doctest::Approx(18.275));
    CHECK(r.smallest_change
          == "needs 8.3 GiB more per GPU (closest: tp 8, pp 1, cp 1, dp 1, micro-batch 1, sequence parallel, full "
             "recompute, zero 0, 18.3 of 10.0 GiB): use 32 GPUs (tp 8, pp 1, cp 1, dp 4, zero 1), or a GPU with at least 19 "
             "GiB");

    // The named count is right for this evaluator: 16 GPUs still fail, 32 fit.
    p.gpus = 16;
    CHECK(!analysis::search_layout(p, memory).best);
    p.gpus = 32;
    CHECK(analysis::search_layout(p, memory).best);

    // With 2 GiB of the device reserved, the GPU to name has 2 GiB more.
    p.gpus = 8;
    p.gpu_memory_gib = 12;
    CHECK(analysis::search_layout(p, memory).smallest_change.ends_with("or a GPU with at least 21 GiB"));
}

TEST_CASE("when no candidate passes the layout rules the search says which rule refused most") {
    LayoutProblem p = small();
    p.global_batch = 3;  // no dp x micro-batch divides it except dp 1 with micro-batch 1
    p.gpus = 2, p.heads = 3, p.micro_batches = {2};
    const auto r = analysis::search_layout(p, roomy);
    CHECK(!r.best);
    CHECK(!r.closest_misfit);
    CHECK(r.evaluated == 0);
    CHECK(r.smallest_change.starts_with("no candidate passes the layout rules; most often: "));
}

TEST_CASE("the layout search is deterministic") {
    LayoutProblem p;
    p.gpus = 32, p.gpus_per_node = 8, p.layers = 12, p.heads = 16, p.kv_heads = 4, p.seq_len = 8192, p.global_batch = 64;
    const ToyMemory memory{4, 8.8, 2, 12};
    const auto a = analysis::search_layout(p, memory);
    const auto b = analysis::search_layout(p, memory);
    REQUIRE(a.best);
    REQUIRE(b.best);
    CHECK(a.best->layout == b.best->layout);
    CHECK(a.runner_up->layout == b.runner_up->layout);
    CHECK(a.candidates == b.candidates);
    CHECK(a.evaluated == b.evaluated);
    CHECK(a.refused == b.refused);
}

TEST_CASE("models that are not transformers vary only data parallelism, micro-batch and ZeRO stage") {
    LayoutProblem p;
    p.gpus = 8, p.transformer = false, p.global_batch = 256;
    std::vector<Layout> seen;
    const auto r = analysis::search_layout(p, [&](const Layout& l) {
        seen.push_back(l);
        return roomy(l);
    });
    CHECK(r.candidates == 16);  // 4 micro-batches x zero 0..3
    CHECK(r.evaluated == 16);
    for (const Layout& l : seen) {
        CHECK(l.tp == 1);
        CHECK(l.pp == 1);
        CHECK(l.cp == 1);
        CHECK(l.virtual_stages == 1);
        CHECK(l.dp == 8);
        CHECK(!l.sequence_parallel);
        CHECK(l.recompute == Recompute::none);
    }
}

TEST_CASE("the evaluation limit stops the evaluator calls and is reported") {
    LayoutProblem p = small();
    const auto all = analysis::search_layout(p, roomy);
    p.max_evaluations = 5;
    int calls = 0;
    const auto r = analysis::search_layout(p, [&](const Layout& l) {
        ++calls;
        return roomy(l);
    });
    CHECK(calls == 5);
    CHECK(r.evaluated == 5);
    CHECK(r.evaluation_limit_reached);
    CHECK(r.candidates == all.candidates);
    CHECK(r.refused.at("not evaluated: evaluation limit reached") == all.evaluated - 5);
    CHECK(refused_total(r) == r.candidates - r.fitting);
}

TEST_CASE("the GPT-3 175B shape on 1024 GPUs enumerates and finishes") {
    LayoutProblem p;
    p.gpus = 1024, p.gpus_per_node = 8, p.layers = 96, p.heads = 96, p.seq_len = 2048, p.global_batch = 1536;
    const auto r = analysis::search_layout(p, [](const Layout& l) {
        LayoutEval e;
        e.fits = true;
        e.step_s = 1.0 / l.tp + 0.01 * l.pp;  // any finite value
        e.cost_usd = 1;
        return e;
    });
    // tp 1, 2, 4, 8 x cp 1, 2 (2048 / 2 >= 1024) x pp in the 11 divisors of 96 up to 48; per
    // (tp, cp, pp): 4 micro-batches x 3 ZeRO stages x 3 recomputes, x 3 virtual stages when pp > 1:
    // 8 x (36 + 10 x 108) = 8928.
    CHECK(r.candidates == 8928);
    CHECK(r.evaluated == 1692);
    CHECK(!r.evaluation_limit_reached);
    CHECK(refused_total(r) == r.candidates - r.fitting);
    REQUIRE(r.best);
    CHECK(r.best->layout.tp == 8);
    CHECK(r.best->layout.pp == 1);
}

TEST_CASE("a layout reads as one line") {
    Layout l;
    l.tp = 4, l.pp = 2, l.virtual_stages = 2, l.dp = 8, l.sequence_parallel = true, l.recompute = Recompute::selective;
    l.zero = 1;
    CHECK(analysis::describe(l) == "tp 4, pp 2 (virtual 2), cp 1, dp 8, micro-batch 1, sequence parallel, selective recompute, zero 1");
}

TEST_CASE("a layout problem that breaks a precondition is refused") {
    LayoutProblem p = small();
    p.global_batch = 0;
    CHECK_THROWS_AS(analysis::search_layout(p, roomy), std::invalid_argument);
    p = small();
    p.micro_batches.clear();
    CHECK_THROWS_AS(analysis::search_layout(p, roomy), std::invalid_argument);
    p = small();
    p.zero_stages = {4};
    CHECK_THROWS_AS(analysis::search_layout(p, roomy), std::invalid_argument);
}
