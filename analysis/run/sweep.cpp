#include "analysis/run/sweep.hpp"

#include <atomic>
#include <exception>
#include <thread>

namespace rentsim::analysis {

std::vector<Result> run_all(const ScenarioSet& set, int jobs, const RunOptions& options) {
    const std::size_t n = set.points.size();
    std::vector<Result> results(n);
    std::vector<std::exception_ptr> errors(n);
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
        for (std::size_t i = next++; i < n; i = next++) {
            try {
                results[i] = run_scenario(set.points[i], options);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, jobs)), n);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return results;
}

}  // namespace rentsim::analysis
