// Automatic parallel-layout search: when a scenario omits `parallelism` (or writes "auto"),
// rentsim enumerates the layouts the frameworks allow (tp, pp, virtual stages, cp, dp,
// micro-batch, recomputation, ZeRO stage) and asks a caller-supplied evaluator for each one's
// memory, step time and cost. The search knows no cost model: it is a pure, deterministic
// function of the problem and the evaluator, so the planning layer plugs its model in and the
// tests plug in hand-computable ones.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/step.hpp"

namespace rentsim::analysis {

// One parallel layout on `tp * pp * cp * dp` GPUs. sequence_parallel is tp > 1 for
// transformers (Megatron-Core turns it on with TP; Korthikanti et al. 2022) and is not
// searched separately. zero: 0 plain DDP, 1 sharded optimizer (Megatron distributed optimizer,
// PyTorch ZeroRedundancyOptimizer), 2 sharded gradients too (FSDP SHARD_GRAD_OP),
// 3 sharded parameters too (FSDP FULL_SHARD).
struct Layout {
    int tp = 1, pp = 1, virtual_stages = 1, cp = 1, dp = 1;
    int micro_batch = 1;             // samples per micro-batch on one data-parallel rank
    bool sequence_parallel = false;
    compute::Recompute recompute = compute::Recompute::none;
    int recompute_every = 1;         // a written layout's (the search recomputes every block)
    int zero = 0;
    friend bool operator==(const Layout&, const Layout&) = default;
};

// What bounds the candidates. Preconditions (else std::invalid_argument): gpus, gpus_per_node,
// global_batch >= 1, micro_batches non-empty and all >= 1; for transformers also layers,
// heads, seq_len >= 1 and kv_heads >= 0. Shape fields are ignored for non-transformers.
struct LayoutProblem {
    int gpus = 1, gpus_per_node = 8;
    int layers = 1;                  // transformer blocks
    int heads = 1;                   // attention (query) heads
    int kv_heads = 0;                // key/value heads = query groups (GQA); 0: heads (MHA)
    int seq_len = 1;                 // tokens per sample
    int global_batch = 1;            // samples per optimizer step, fixed by the caller
    bool transformer = true;         // false (vision, CNN): only dp, micro-batch and zero vary
    std::vector<int> micro_batches = {1, 2, 4, 8};  // candidate micro-batches, in this order
    int max_tp = 0;                  // 0: gpus_per_node (TP stays inside a node's NVLink domain)
    int max_pp = 64;                 // search-space bound on pipeline stages, not physics
    int min_tokens_per_cp_rank = 1024;  // search-space bound: seq_len / cp >= this, not physics
    // ZeRO stages to try; empty: {0, 1, 3} for transformers (DDP, distributed optimizer, FSDP
    // full shard) and {0, 1, 2, 3} otherwise (PyTorch DDP, ZeroRedundancyOptimizer, FSDP).
    std::vector<int> zero_stages;
    int max_evaluations = 20000;     // stop calling the evaluator after this many calls
    // The device's whole memory, GiB (0: unknown, taken to be the evaluator's available_gib).
    // Only the smallest_change sentence uses it, to name a GPU size from a usable size.
    double gpu_memory_gib = 0;
};

enum class Objective { time, cost };

// The evaluator's verdict on one layout, per GPU of its largest pipeline stage. memory_gib is
// the sum of the five parts; available_gib is what the GPU leaves to the job. step_s and
// cost_usd must be finite for a fitting layout (cost_usd: any quantity comparable across
// layouts, e.g. the whole job's bill); a fitting layout that has them non-finite is refused.
struct LayoutEval {
    bool fits = false;
    double memory_gib = 0;
    double params_gib = 0, grads_gib = 0, optimizer_gib = 0, activations_gib = 0, workspace_gib = 0;
    double available_gib = 0;
    double step_s = 0;               // one optimizer step, seconds
    double cost_usd = 0;
};

using LayoutEvaluator = std::function<LayoutEval(const Layout&)>;

struct LayoutChoice {
    Layout layout;
    LayoutEval eval;
};

// The search's answer. best and runner_up are the two best fitting layouts by the objective;
// ties go to the other objective (cost for time, time for cost), then to less memory, then to
// the earlier candidate in enumeration order (less model parallelism first, see search_layout).
// Every candidate is either fitting or counted once in `refused` under its first failed rule,
// so the refused counts add up to candidates - fitting.
struct LayoutSearchResult {
    std::optional<LayoutChoice> best, runner_up;
    int candidates = 0;              // layouts enumerated
    int evaluated = 0;               // evaluator calls
    int fitting = 0;
    bool evaluation_limit_reached = false;  // some valid candidates were never evaluated
    std::map<std::string, int> refused;     // reason -> count
    // When nothing fits: the evaluated candidate needing the least memory (the earliest on
    // ties), and a sentence naming the smallest change that would make it fit (empty when
    // something fits): the fewest GPUs at which that candidate, with tp, cp, dp and the ZeRO
    // stage changed, fits by these scaling rules of its breakdown: parameters, gradients and
    // optimizer state shrink with tp, and with dp as the ZeRO stage shards them (optimizer
    // from 1, gradients from 2, parameters at 3); activations shrink with tp x cp; pp,
    // micro-batch, recompute and the workspace are kept. And the GPU memory that would hold
    // it as it is. When no candidate passes the rules, it names the most frequent refusal.
    std::optional<LayoutChoice> closest_misfit;
    std::string smallest_change;
};

// Enumerates, checks and evaluates every candidate. The rules, in the order they refuse:
//  - tp: powers of two <= max_tp (and <= gpus); must divide heads and kv_heads (Megatron-Core:
//    TP splits attention heads and query groups evenly). 1 for non-transformers.
//  - cp: powers of two with seq_len / cp >= min_tokens_per_cp_rank (a search bound) and
//    tp * cp <= gpus; cp > 1 needs seq_len % (2 cp) == 0 (Megatron-Core splits the sequence
//    into 2 cp chunks to balance causal attention); sequence parallelism needs
//    (seq_len / cp) % tp == 0 (it scatters the sequence over TP ranks). 1 for non-transformers.
//  - pp: divisors of layers, <= max_pp and <= gpus / (tp cp) (Megatron-Core: equal layers per
//    stage). dp = gpus / (tp pp cp) must be whole. 1 for non-transformers.
//  - micro-batch: global_batch % (dp x micro_batch) == 0 (whole accumulation steps).
//  - virtual stages in {1, 2, 4}, > 1 only with pp > 1: layers % (pp v) == 0 and the
//    micro-batches per step (global_batch / dp / micro_batch) a multiple of pp (Megatron's
//    interleaved 1F1B schedule).
//  - zero in zero_stages; 3 only with pp == 1 (FSDP full shard is rarely combined with
//    pipelines; Megatron-Core's distributed optimizer is ZeRO-1).
//  - recompute: none, selective, full for transformers (selective is Korthikanti et al.'s
//    attention-core recomputation); none for others.
//  - then the evaluator: "does not fit in memory", or refused for non-finite time or cost.
// Order: (tp, cp, pp) triples by tp cp pp ascending, then tp, cp, pp; inside each, virtual
// stages, micro-batches (in the problem's order), zero stages, recompute none < selective <
// full. Nothing is pruned on memory; after max_evaluations evaluator calls, the remaining
// valid candidates are counted as refused "not evaluated: evaluation limit reached".
LayoutSearchResult search_layout(const LayoutProblem& problem, const LayoutEvaluator& evaluate,
                                 Objective objective = Objective::time);

// "tp 4, pp 2 (virtual 2), cp 1, dp 8, micro-batch 1, sequence parallel, selective recompute,
// zero 1"; "no recompute" when none, and no sequence-parallel clause when off.
std::string describe(const Layout& layout);

}  // namespace rentsim::analysis
