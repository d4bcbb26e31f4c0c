// Ratios between the figures of one benchmark run, printed after the benchmarks: a console
// reporter that keeps each benchmark's time per iteration, and the ratios asked of it. A
// ratio whose benchmark did not run (filtered out) is printed as "not run".
#pragma once

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rentsim::bench {

// One line of the table. Kinds:
//   of:          time of `name` / time of `base`             (x: how many times slower)
//   anchor:      `seconds` / time of `name`                  (x: how many times faster)
//   anchor_per:  `seconds` x counter `per` / time of `name`  (a published time per unit of work)
//   rate_anchor: counter `per` of `name` (a rate, per second) / `rate`
struct Ratio {
    enum class Kind { of, anchor, anchor_per, rate_anchor };
    Kind kind = Kind::of;
    std::string name, base, per, label;
    double reference = 0;  // seconds (anchor, anchor_per) or per second (rate_anchor)

    static Ratio of(std::string name, std::string base, std::string label) {
        return {Kind::of, std::move(name), std::move(base), {}, std::move(label), 0};
    }
    static Ratio anchor(std::string name, double seconds, std::string label) {
        return {Kind::anchor, std::move(name), {}, {}, std::move(label), seconds};
    }
    static Ratio anchor_per(std::string name, double seconds, std::string per, std::string label) {
        return {Kind::anchor_per, std::move(name), {}, std::move(per), std::move(label), seconds};
    }
    static Ratio rate_anchor(std::string name, std::string per, double rate, std::string label) {
        return {Kind::rate_anchor, std::move(name), {}, std::move(per), std::move(label), rate};
    }
};

class RatioReporter : public benchmark::ConsoleReporter {
public:
    // Colours only on a terminal, as the library's own console reporter.
    RatioReporter()
        : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.error_occurred || r.iterations <= 0) continue;
            // Wall time for benchmarks that ask for it (UseRealTime: the threaded sweep),
            // otherwise CPU time; seconds per iteration. A repeated benchmark is represented
            // by its median (the library's aggregate, or the median of the repetitions seen).
            const double total = uses_real_time(r) ? r.real_accumulated_time : r.cpu_accumulated_time;
            Sample f;
            f.seconds = total / static_cast<double>(r.iterations);
            for (const auto& [key, counter] : r.counters) f.counters[key] = counter.value;
            Figures& figures = figures_[r.run_name.str()];  // aggregates too, without their suffix
            if (r.run_type == Run::RT_Iteration) figures.repetitions.push_back(f);
            else if (r.aggregate_name == "median") figures.median = f;
        }
        ConsoleReporter::ReportRuns(runs);
    }

    void print_ratios(std::ostream& out, const std::vector<Ratio>& ratios) const {
        out << "\nRatios measured in this run (time per iteration, CPU time or wall time for real_time"
               " benchmarks; the median of repetitions when repeated)\n";
        for (const Ratio& q : ratios) {
            const std::optional<double> x = value(q);
            out << "  " << q.label << ": ";
            if (x) out << format(*x) << "x\n";
            else out << "not run\n";
        }
    }

private:
    struct Sample {
        double seconds = 0;
        std::map<std::string, double> counters;
    };
    struct Figures {
        std::vector<Sample> repetitions;
        std::optional<Sample> median;
    };

    static bool uses_real_time(const Run& r) { return r.run_name.time_type == "real_time"; }
    std::optional<Sample> find(const std::string& name) const {
        // Names are matched with or without the "/real_time" suffix.
        auto it = figures_.find(name);
        if (it == figures_.end()) it = figures_.find(name + "/real_time");
        if (it == figures_.end()) return std::nullopt;
        const Figures& f = it->second;
        if (f.median) return f.median;
        if (f.repetitions.empty()) return std::nullopt;
        std::vector<Sample> v = f.repetitions;
        std::sort(v.begin(), v.end(), [](const Sample& a, const Sample& b) { return a.seconds < b.seconds; });
        return v[(v.size() - 1) / 2];
    }
    std::optional<double> value(const Ratio& q) const {
        const std::optional<Sample> a = find(q.name);
        if (!a || a->seconds <= 0) return std::nullopt;
        switch (q.kind) {
        case Ratio::Kind::of: {
            const std::optional<Sample> b = find(q.base);
            if (!b || b->seconds <= 0) return std::nullopt;
            return a->seconds / b->seconds;
        }
        case Ratio::Kind::anchor: return q.reference / a->seconds;
        case Ratio::Kind::anchor_per: {
            const auto it = a->counters.find(q.per);
            if (it == a->counters.end()) return std::nullopt;
            return q.reference * it->second / a->seconds;
        }
        case Ratio::Kind::rate_anchor: {
            const auto it = a->counters.find(q.per);
            if (it == a->counters.end()) return std::nullopt;
            return it->second / q.reference;
        }
        }
        return std::nullopt;
    }
    static std::string format(double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
        return buf;
    }

    std::map<std::string, Figures> figures_;
};

}  // namespace rentsim::bench
