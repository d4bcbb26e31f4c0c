// Example observers. The engine keeps its own fingerprint, so these are for statistics.
#pragma once

#include <cstdint>
#include <map>

#include "sim/engine.hpp"

namespace rentsim::sim {

// Counts executed events per kind, and the runs that ended.
class CountingObserver final : public Observer {
public:
    void on_event(const EventInfo& e) override {
        ++per_kind_[e.kind];
        ++total_;
    }
    void on_run_end(Time t) override {
        ++runs_;
        last_run_end_ = t;
    }

    std::uint64_t count(std::uint32_t kind) const {
        const auto it = per_kind_.find(kind);
        return it == per_kind_.end() ? 0 : it->second;
    }
    std::uint64_t total() const { return total_; }
    std::uint64_t runs() const { return runs_; }
    Time last_run_end() const { return last_run_end_; }
    const std::map<std::uint32_t, std::uint64_t>& per_kind() const { return per_kind_; }

private:
    std::map<std::uint32_t, std::uint64_t> per_kind_;
    std::uint64_t total_ = 0;
    std::uint64_t runs_ = 0;
    Time last_run_end_ = 0;
};

}  // namespace rentsim::sim
