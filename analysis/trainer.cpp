#include "analysis/trainer.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include "sim/activity.hpp"
#include "sim/resource.hpp"

namespace rentsim::analysis {

namespace {

// Event kinds in the fingerprint.
enum Kind : std::uint32_t { k_batch_built = 1, k_micro_step = 2, k_step_done = 3 };

// Beyond this many simulated steps without an exact repeat, the last window is taken as
// the period (reported: Timeline::period_exact).
constexpr std::int64_t max_simulated_steps = 20000;

class TrainingSim {
public:
    TrainingSim(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* obs)
        : plan_(plan), engine_(seed), comm_(engine_, 1), graph_(engine_) {
        if (obs) engine_.add_observer(*obs);
        const auto w = static_cast<std::size_t>(plan.workers);
        ready_.assign(w, 0);
        busy_.assign(w, false);
        finish_.assign(w, 0);
        build_graph();
    }

    Timeline run() {
        for (int w = 0; w < plan_.workers; ++w) start_build(w);
        start_step();
        engine_.run();
        return finish();
    }

private:
    void build_graph() {
        if (plan_.bucket_bwd.empty() || plan_.bucket_bwd.size() != plan_.bucket_comm.size())
            throw std::invalid_argument("training plan needs one all-reduce per gradient bucket");
        auto prev = graph_.add_delay("forward", plan_.last_fwd);
        if (plan_.pipeline_bubble > 0) {
            auto bubble = graph_.add_delay("pipeline-bubble", plan_.pipeline_bubble);
            graph_.precede(bubble, prev);
        }
        std::vector<sim::ActivityGraph::Handle> comms;
        for (std::size_t b = 0; b < plan_.bucket_bwd.size(); ++b) {
            auto bwd = graph_.add_delay("backward." + std::to_string(b), plan_.bucket_bwd[b]);
            graph_.precede(prev, bwd);
            auto ar = graph_.add_resource_use("all-reduce." + std::to_string(b), comm_, plan_.bucket_comm[b]);
            graph_.precede(bwd, ar);
            comms.push_back(ar);
            prev = bwd;
        }
        auto opt = graph_.add_delay("optimizer", plan_.optimizer + plan_.step_overhead);
        graph_.precede(prev, opt);
        for (auto c : comms) graph_.precede(c, opt);
    }

    // ---- input pipeline -------------------------------------------------------------
    void start_build(int w) {
        const auto i = static_cast<std::size_t>(w);
        busy_[i] = true;
        finish_[i] = engine_.now() + plan_.batch_build;
        engine_.schedule_in(plan_.batch_build, [this, w] { on_built(w); }, k_batch_built, static_cast<std::uint32_t>(w));
    }

    void on_built(int w) {
        const auto i = static_cast<std::size_t>(w);
        busy_[i] = false;
        ++ready_[i];
        if (ready_[i] < plan_.prefetch_factor) start_build(w);
        if (waiting_ && next_worker() == w) {
            waiting_ = false;
            stall_ += engine_.now() - wait_start_;
            take(w);
            on_batch();
        }
    }

    int next_worker() const { return static_cast<int>(next_batch_ % plan_.workers); }

    void take(int w) {
        const auto i = static_cast<std::size_t>(w);
        --ready_[i];
        ++next_batch_;
        if (!busy_[i]) start_build(w);  // the consumed slot is handed a new batch index
    }

    void request_batch() {
        if (plan_.workers == 0) return on_batch();
        const int w = next_worker();
        if (ready_[static_cast<std::size_t>(w)] > 0) {
            take(w);
            on_batch();
        } else {
            waiting_ = true;
            wait_start_ = engine_.now();
        }
    }

    // ---- steps ------------------------------------------------------------------------
    void on_batch() {
        if (micro_ + 1 < plan_.micro_steps) {
            engine_.schedule_in(plan_.micro_fwd_bwd, [this] {
                ++micro_;
                request_batch();
            }, k_micro_step);
        } else {
            graph_.start([this](sim::Time) { on_step_done(); });
        }
    }

    void on_step_done() {
        ++step_;
        engine_.schedule_in(0, [this] { start_step(); }, k_step_done);
    }

    std::vector<std::int64_t> signature() const {
        std::vector<std::int64_t> sig;
        const int w0 = plan_.workers ? next_worker() : 0;
        for (int k = 0; k < plan_.workers; ++k) {
            const auto i = static_cast<std::size_t>((w0 + k) % plan_.workers);
            sig.push_back(ready_[i]);
            sig.push_back(busy_[i] ? finish_[i] - engine_.now() : -1);
        }
        return sig;
    }

    void start_step() {
        starts_.push_back(engine_.now());
        stalls_.push_back(stall_);
        if (step_ == plan_.iterations) return engine_.stop();
        auto [it, fresh] = seen_.try_emplace(signature(), step_);
        if (!fresh) {
            period_start_ = it->second;
            return engine_.stop();
        }
        if (step_ >= max_simulated_steps) {
            period_start_ = step_ - 1000;
            exact_ = false;
            return engine_.stop();
        }
        micro_ = 0;
        request_batch();
    }

    Timeline finish() {
        Timeline t;
        t.events = engine_.events_executed();
        t.fingerprint = engine_.fingerprint();
        t.simulated_iterations = step_;
        const sim::Time compute = static_cast<sim::Time>(plan_.micro_steps - 1) * plan_.micro_fwd_bwd +
                                  plan_.last_fwd + sum(plan_.bucket_bwd) + plan_.optimizer + plan_.step_overhead -
                                  static_cast<sim::Time>(plan_.micro_steps) * plan_.micro_comm;
        const auto at = [this](std::int64_t i) { return starts_[static_cast<std::size_t>(i)]; };
        const auto stall_at = [this](std::int64_t i) { return stalls_[static_cast<std::size_t>(i)]; };
        std::int64_t j, p;
        if (period_start_ >= 0) {
            j = period_start_;
            p = step_ - j;
            const std::int64_t remaining = plan_.iterations - step_;
            const std::int64_t n = remaining / p, r = remaining % p;
            t.total = at(step_) + n * (at(step_) - at(j)) + (at(j + r) - at(j));
            t.period = p;
        } else {
            // Ran to the end: the last step is the steady state.
            j = step_ - 1;
            p = 1;
            t.total = at(step_);
        }
        t.period_exact = exact_ && period_start_ >= 0;
        t.period_time = at(j + p) - at(j);
        t.iteration = t.period_time / p;
        t.compute = compute;
        t.input_stall = (stall_at(j + p) - stall_at(j)) / p;
        t.pipeline_bubble = plan_.pipeline_bubble;
        t.exposed_comm = std::max<sim::Time>(0, t.iteration - compute - t.input_stall - t.pipeline_bubble);
        return t;
    }

    static sim::Time sum(const std::vector<sim::Time>& v) {
        sim::Time s = 0;
        for (auto x : v) s += x;
        return s;
    }

    const TrainingPlan& plan_;
    sim::Engine engine_;
    sim::FifoResource comm_;
    sim::ActivityGraph graph_;

    std::vector<int> ready_;
    std::vector<bool> busy_;
    std::vector<sim::Time> finish_;
    std::int64_t next_batch_ = 0;
    bool waiting_ = false;
    sim::Time wait_start_ = 0;
    sim::Time stall_ = 0;

    int micro_ = 0;
    std::int64_t step_ = 0;
    std::vector<sim::Time> starts_, stalls_;
    std::map<std::vector<std::int64_t>, std::int64_t> seen_;
    std::int64_t period_start_ = -1;
    bool exact_ = true;
};

}  // namespace

Timeline simulate_training(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* observer) {
    if (plan.iterations < 1) throw std::invalid_argument("training plan needs at least one step");
    if (plan.micro_steps < 1) throw std::invalid_argument("training plan needs at least one micro-step");
    TrainingSim s(plan, seed, observer);
    return s.run();
}

}  // namespace rentsim::analysis
