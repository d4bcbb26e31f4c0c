#include "analysis/plan/layout.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace rentsim::analysis {

namespace {

// Refusal reasons, the keys of LayoutSearchResult::refused.
constexpr const char* tp_heads = "tp does not divide the attention heads";
constexpr const char* tp_groups = "tp does not divide the query groups (kv_heads)";
constexpr const char* cp_sequence = "cp > 1 needs the sequence to split into 2 cp chunks";
constexpr const char* sp_sequence = "sequence parallelism needs tp to divide the tokens per cp rank";
constexpr const char* dp_whole = "tp x cp x pp does not divide the GPUs";
constexpr const char* mb_batch = "micro-batch does not divide the batch per data-parallel rank";
constexpr const char* v_layers = "pp x virtual stages does not divide the layers";
constexpr const char* v_micro = "interleaving needs the micro-batches per step to be a multiple of pp";
constexpr const char* zero3_pp = "zero 3 (FSDP) is not combined with pipeline parallelism";
constexpr const char* no_fit = "does not fit in memory";
constexpr const char* non_finite = "evaluator gave a non-finite time or cost";
constexpr const char* limit = "not evaluated: evaluation limit reached";

int kv_heads_of(const LayoutProblem& p) { return p.kv_heads > 0 ? p.kv_heads : p.heads; }
int max_tp_of(const LayoutProblem& p) { return std::min(p.max_tp > 0 ? p.max_tp : p.gpus_per_node, p.gpus); }

void check(const LayoutProblem& p) {
    auto fail = [](const char* what) { throw std::invalid_argument(std::string("layout search: ") + what); };
    if (p.gpus < 1) fail("gpus must be >= 1");
    if (p.gpus_per_node < 1) fail("gpus_per_node must be >= 1");
    if (p.global_batch < 1) fail("global_batch must be >= 1");
    if (p.micro_batches.empty()) fail("micro_batches must not be empty");
    for (int m : p.micro_batches)
        if (m < 1) fail("micro_batches must all be >= 1");
    for (int z : p.zero_stages)
        if (z < 0 || z > 3) fail("zero_stages must lie in 0..3");
    if (p.max_tp < 0 || p.max_pp < 0 || p.max_evaluations < 0 || p.min_tokens_per_cp_rank < 0)
        fail("max_tp, max_pp, max_evaluations and min_tokens_per_cp_rank must be >= 0");
    if (p.transformer && (p.layers < 1 || p.heads < 1 || p.seq_len < 1 || p.kv_heads < 0))
        fail("a transformer needs layers, heads and seq_len >= 1 and kv_heads >= 0");
}

// The first rule `l` breaks (header order), or nullptr. dp is already gpus / (tp pp cp) when
// that is whole.
const char* refusal(const LayoutProblem& p, const Layout& l) {
    if (p.transformer) {
        if (p.heads % l.tp != 0) return tp_heads;
        if (kv_heads_of(p) % l.tp != 0) return tp_groups;
        if (l.cp > 1 && p.seq_len % (2 * l.cp) != 0) return cp_sequence;
        if (l.sequence_parallel && (p.seq_len % l.cp != 0 || (p.seq_len / l.cp) % l.tp != 0)) return sp_sequence;
    }
    if (p.gpus % (l.tp * l.cp * l.pp) != 0) return dp_whole;
    if (p.global_batch % (l.dp * l.micro_batch) != 0) return mb_batch;
    if (l.virtual_stages > 1) {
        if (p.layers % (l.pp * l.virtual_stages) != 0) return v_layers;
        if ((p.global_batch / (l.dp * l.micro_batch)) % l.pp != 0) return v_micro;
    }
    if (l.zero == 3 && l.pp > 1) return zero3_pp;
    return nullptr;
}

std::vector<int> powers_of_two_up_to(int n) {
    std::vector<int> v;
    for (int x = 1; x <= n; x *= 2) v.push_back(x);
    return v;
}

// (tp, cp, pp) triples in search order: least model parallelism first.
std::vector<std::array<int, 3>> model_parallel_triples(const LayoutProblem& p) {
    if (!p.transformer) return {{1, 1, 1}};
    std::vector<std::array<int, 3>> out;
    for (int tp : powers_of_two_up_to(max_tp_of(p))) {
        for (int cp = 1; tp * cp <= p.gpus; cp *= 2) {
            if (cp > 1 && static_cast<long long>(cp) * p.min_tokens_per_cp_rank > p.seq_len) break;
            for (int pp = 1; pp <= std::min(p.layers, p.max_pp) && tp * cp * pp <= p.gpus; ++pp)
                if (p.layers % pp == 0) out.push_back({tp, cp, pp});
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(a[0] * a[1] * a[2], a[0], a[1], a[2]) < std::make_tuple(b[0] * b[1] * b[2], b[0], b[1], b[2]);
    });
    return out;
}

// Lexicographic key of the objective; smaller is better.
std::array<double, 3> key(const LayoutEval& e, Objective o) {
    if (o == Objective::cost) return {e.cost_usd, e.step_s, e.memory_gib};
    return {e.step_s, e.cost_usd, e.memory_gib};
}

std::string gib(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

std::vector<int> divisors(int n) {
    std::vector<int> lo, hi;
    for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
        if (n % d == 0) {
            lo.push_back(d);
            if (d != n / d) hi.push_back(n / d);
        }
    lo.insert(lo.end(), hi.rbegin(), hi.rend());
    return lo;
}

// The misfit's memory, in GiB, at g (its tp, cp, dp and zero changed, the rest kept), by these
// rules: parameters, gradients and optimizer state split over tp (pp is kept), and over dp
// when the ZeRO stage shards them (optimizer >= 1, gradients >= 2, parameters 3; at the
// misfit's own dp its parts are taken as they are); activations split over tp x cp (sequence
// parallelism with TP, Korthikanti et al. 2022; CP splits the tokens); the workspace is fixed.
double scaled_memory(const LayoutChoice& m, const Layout& g) {
    const Layout& l = m.layout;
    const LayoutEval& e = m.eval;
    const double t = static_cast<double>(l.tp) / g.tp;
    // Unshard the misfit's parts first (its dp under its own stage), then shard at g's.
    auto dp_factor = [&](int stage) {
        return (l.zero >= stage ? static_cast<double>(l.dp) : 1.0) / (g.zero >= stage ? g.dp : 1);
    };
    return e.params_gib * t * dp_factor(3) + e.grads_gib * t * dp_factor(2) + e.optimizer_gib * t * dp_factor(1)
         + e.activations_gib * static_cast<double>(l.tp * l.cp) / (g.tp * g.cp) + e.workspace_gib;
}

// The smallest GPU count above p.gpus at which the misfit, with tp, cp, dp and the ZeRO stage
// changed (the candidate rules still holding), fits by scaled_memory; nullopt when none does.
// Ties go to the smaller tp, then cp, zero stage (in `zeros` order) and dp.
std::optional<Layout> fewest_more_gpus(const LayoutProblem& p, const std::vector<int>& zeros, const LayoutChoice& m) {
    const Layout& l = m.layout;
    std::optional<Layout> best;
    long long best_gpus = 0;
    const std::vector<int> dps = divisors(p.global_batch / l.micro_batch);
    const int tp_cap = p.transformer ? std::max(max_tp_of(p), l.tp) : 1;
    for (int tp2 = l.tp; tp2 <= tp_cap; tp2 *= 2) {
        for (int cp2 = l.cp; cp2 == 1 || (p.transformer && cp2 <= p.seq_len); cp2 *= 2) {
            if (cp2 > l.cp && static_cast<long long>(cp2) * p.min_tokens_per_cp_rank > p.seq_len) break;
            for (int z : zeros)
                for (int dp2 : dps) {
                    Layout g = l;
                    g.tp = tp2, g.cp = cp2, g.dp = dp2, g.zero = z, g.sequence_parallel = p.transformer && tp2 > 1;
                    const long long n = static_cast<long long>(tp2) * l.pp * cp2 * dp2;
                    if (n <= p.gpus || n > std::numeric_limits<int>::max() || (best && n >= best_gpus)) continue;
                    if (scaled_memory(m, g) > m.eval.available_gib + 1e-9) continue;
                    LayoutProblem q = p;
                    q.gpus = static_cast<int>(n);
                    if (refusal(q, g)) continue;
                    best = g, best_gpus = n;
                }
            if (!p.transformer) break;
        }
        if (!p.transformer) break;
    }
    return best;
}

std::string smallest_change(const LayoutProblem& p, const std::vector<int>& zeros, const LayoutChoice& m) {
    const LayoutEval& e = m.eval;
    const double reserve = p.gpu_memory_gib > 0 ? p.gpu_memory_gib - e.available_gib : 0;
    const int gpu_gib = static_cast<int>(std::ceil(e.memory_gib + reserve - 1e-9));
    const std::string closest = describe(m.layout) + ", " + gib(e.memory_gib) + " of " + gib(e.available_gib) + " GiB";
    if (e.memory_gib <= e.available_gib)
        return "the evaluator refuses every layout although the closest (" + closest + ") is within memory";
    std::string s = "needs " + gib(e.memory_gib - e.available_gib) + " GiB more per GPU (closest: " + closest + "): ";
    if (const auto g = fewest_more_gpus(p, zeros, m)) {
        s += "use " + std::to_string(g->tp * g->pp * g->cp * g->dp) + " GPUs (tp " + std::to_string(g->tp) + ", pp "
           + std::to_string(g->pp) + ", cp " + std::to_string(g->cp) + ", dp " + std::to_string(g->dp) + ", zero "
           + std::to_string(g->zero) + "), or ";
    } else {
        s += "more GPUs do not help by the scaling rules; use ";
    }
    return s + "a GPU with at least " + std::to_string(gpu_gib) + " GiB";
}

}  // namespace

LayoutSearchResult search_layout(const LayoutProblem& p, const LayoutEvaluator& evaluate, Objective objective) {
    check(p);
    std::vector<int> zeros = p.zero_stages;
    if (zeros.empty()) zeros = p.transformer ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 1, 2, 3};
    std::vector<compute::Recompute> recomputes{compute::Recompute::none};
    if (p.transformer) recomputes = {compute::Recompute::none, compute::Recompute::selective, compute::Recompute::full};

    LayoutSearchResult r;
    auto better = [&](const LayoutEval& a, const LayoutEval& b) { return key(a, objective) < key(b, objective); };
    for (const auto& [tp, cp, pp] : model_parallel_triples(p)) {
        const std::vector<int> virtuals = pp > 1 ? std::vector<int>{1, 2, 4} : std::vector<int>{1};
        for (int v : virtuals)
            for (int mb : p.micro_batches)
                for (int z : zeros)
                    for (compute::Recompute rc : recomputes) {
                        Layout l;
                        l.tp = tp, l.cp = cp, l.pp = pp, l.virtual_stages = v, l.micro_batch = mb, l.zero = z;
                        l.dp = std::max(1, p.gpus / (tp * cp * pp));
                        l.sequence_parallel = p.transformer && tp > 1;
                        l.recompute = rc;
                        ++r.candidates;
                        if (const char* why = refusal(p, l)) {
                            ++r.refused[why];
                            continue;
                        }
                        if (r.evaluated >= p.max_evaluations) {
                            r.evaluation_limit_reached = true;
                            ++r.refused[limit];
                            continue;
                        }
                        ++r.evaluated;
                        LayoutChoice c{l, evaluate(l)};
                        if (!c.eval.fits) {
                            ++r.refused[no_fit];
                            if (!r.closest_misfit || c.eval.memory_gib < r.closest_misfit->eval.memory_gib)
                                r.closest_misfit = c;
                            continue;
                        }
                        if (!std::isfinite(c.eval.step_s) || !std::isfinite(c.eval.cost_usd) || !std::isfinite(c.eval.memory_gib)) {
                            ++r.refused[non_finite];
                            continue;
                        }
                        ++r.fitting;
                        if (!r.best || better(c.eval, r.best->eval)) {
                            r.runner_up = std::move(r.best);
                            r.best = std::move(c);
                        } else if (!r.runner_up || better(c.eval, r.runner_up->eval)) {
                            r.runner_up = std::move(c);
                        }
                    }
    }

    if (r.best) {
        r.closest_misfit.reset();
    } else if (r.closest_misfit) {
        r.smallest_change = smallest_change(p, zeros, *r.closest_misfit);
    } else if (!r.refused.empty()) {
        const auto most = std::max_element(r.refused.begin(), r.refused.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
        r.smallest_change = "no candidate passes the layout rules; most often: " + most->first + " ("
                          + std::to_string(most->second) + " of " + std::to_string(r.candidates) + ")";
    }
    return r;
}

namespace {
// 2 -> "2nd", 3 -> "3rd", 11 -> "11th".
std::string ordinal(int n) {
    const int tens = n % 100, ones = n % 10;
    const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
    return std::to_string(n) + suffix;
}
}  // namespace

std::string describe(const Layout& l) {
    std::string s = "tp " + std::to_string(l.tp) + ", pp " + std::to_string(l.pp);
    if (l.virtual_stages > 1) s += " (virtual " + std::to_string(l.virtual_stages) + ")";
    s += ", cp " + std::to_string(l.cp) + ", dp " + std::to_string(l.dp) + ", micro-batch " + std::to_string(l.micro_batch);
    if (l.sequence_parallel) s += ", sequence parallel";
    switch (l.recompute) {
        case compute::Recompute::none: s += ", no recompute"; break;
        case compute::Recompute::selective: s += ", selective recompute"; break;
        case compute::Recompute::op: s += ", op-level selective recompute"; break;
        case compute::Recompute::full:
            s += l.recompute_every > 1 ? ", full recompute of every " + ordinal(l.recompute_every) + " block" : ", full recompute";
            break;
    }
    return s + ", zero " + std::to_string(l.zero);
}

}  // namespace rentsim::analysis
