#include "models/pricing/spot_trace.hpp"

#include "models/pricing/civil_date.hpp"
#include "models/pricing/shipped_files.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace rentsim::price {

int SpotTrace::removals() const {
    return static_cast<int>(std::count_if(events.begin(), events.end(), [](const SpotTraceEvent& e) { return !e.add; }));
}

SpotTrace parse_bamboo_trace(std::string_view text, std::string name) {
    SpotTrace t;
    t.name = std::move(name);
    std::size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        const auto bad = [&](const std::string& why) {
            return std::invalid_argument("spot trace '" + t.name + "' line " + std::to_string(line_no) + ": " + why);
        };
        const auto c1 = line.find(',');
        const auto c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
        if (c2 == std::string_view::npos) throw bad("expected time_ms,event,node");
        const std::string ms(line.substr(0, c1));
        const std::string_view ev = line.substr(c1 + 1, c2 - c1 - 1);
        double time_ms = 0;
        try {
            std::size_t used = 0;
            time_ms = std::stod(ms, &used);
            if (used != ms.size() || time_ms < 0) throw std::invalid_argument(ms);
        } catch (const std::exception&) {
            throw bad("expected a time in milliseconds, got '" + ms + "'");
        }
        if (ev != "add" && ev != "remove") throw bad("expected event 'add' or 'remove', got '" + std::string(ev) + "'");
        t.events.push_back({units::seconds(time_ms / 1000.0), ev == "add", std::string(line.substr(c2 + 1)), 0});
    }
    std::stable_sort(t.events.begin(), t.events.end(),
                     [](const SpotTraceEvent& a, const SpotTraceEvent& b) { return a.time < b.time; });
    std::map<std::string, bool> alive;
    int count = 0;
    for (auto& e : t.events) {
        e.alive_before = count;
        bool& a = alive[e.node];
        if (e.add && !a) ++count;
        if (!e.add && a) --count;
        a = e.add;
    }
    t.span = t.events.empty() ? units::Seconds{} : t.events.back().time;
    return t;
}

SpotTrace parse_count_trace(std::string_view text, std::string name) {
    struct Reading {
        std::int64_t t;
        int n;
    };
    std::vector<Reading> readings;
    std::size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string line(text.substr(pos, end - pos));
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0, n = 0;
        char tail = 0;
        if (std::sscanf(line.c_str(), "%d-%d-%d, %d:%d:%d, %d%c", &y, &mo, &d, &h, &mi, &se, &n, &tail) != 7 || mo < 1 ||
            mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60 || n < 0 ||
            y < 1970 || y > 2200 || line.size() > 64)
            throw std::invalid_argument("spot trace '" + name + "' line " + std::to_string(line_no) +
                                        ": expected 'YYYY-MM-DD, HH:MM:SS, N' (year 1970 to 2200)");
        if (n > max_trace_instances)
            throw std::invalid_argument("spot trace '" + name + "' line " + std::to_string(line_no) + ": expected at most " +
                                        std::to_string(max_trace_instances) + " instances, got " + std::to_string(n));
        const std::int64_t t = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                               h * 3600 + mi * 60 + se;
        readings.push_back({t, n});
    }
    std::stable_sort(readings.begin(), readings.end(), [](const Reading& a, const Reading& b) { return a.t < b.t; });
    SpotTrace tr;
    tr.name = std::move(name);
    if (readings.empty()) return tr;
    const std::int64_t t0 = readings.front().t;
    int alive = readings.front().n;
    // Each change of the count is one event per instance: bound their number before expanding.
    std::int64_t changes = 0;
    for (std::size_t i = 1; i < readings.size(); ++i) changes += std::abs(readings[i].n - readings[i - 1].n);
    if (changes > max_trace_events)
        throw std::invalid_argument("spot trace '" + tr.name + "': " + std::to_string(changes) +
                                    " instance arrivals and removals; at most " + std::to_string(max_trace_events) +
                                    " are replayed");
    for (const auto& r : readings) {
        const units::Seconds at = units::seconds(static_cast<double>(r.t - t0));
        for (; alive > r.n; --alive) tr.events.push_back({at, false, "", alive});
        for (; alive < r.n; ++alive) tr.events.push_back({at, true, "", alive});
    }
    tr.span = units::seconds(static_cast<double>(readings.back().t - t0));
    return tr;
}

const Registry<std::string_view>& spot_trace_registry() {
    static const Registry<std::string_view> registry{
        "spot trace",
        {{"bamboo-p3", "spot-trace-bamboo-p3.csv",
          "AWS p3 spot nodes, December 2021, 11.4 h, at most 32 nodes alive (Bamboo, NSDI 2023)"},
         {"gcloud-a100-us-east1b", "spot-trace-gcloud-a100x1-east1b.txt",
          "Google Cloud 1-GPU A100 preemptible VMs, us-east1-b, 2021-12-11/12, 27 h, 17 to 64 alive (Bamboo)"}}};
    return registry;
}

std::vector<std::string_view> shipped_trace_names() {
    const auto names = spot_trace_registry().names();
    return {names.begin(), names.end()};
}

SpotTrace shipped_trace(std::string_view name) {
    const std::string_view file = spot_trace_registry().get(name);
    const std::string_view text = embedded_text(shipped_pricing_files(), file);
    return file.ends_with(".csv") ? parse_bamboo_trace(text, std::string(name)) : parse_count_trace(text, std::string(name));
}

}  // namespace rentsim::price
