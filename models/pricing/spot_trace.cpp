#include "models/pricing/spot_trace.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace rentsim::price {

std::string_view shipped_bamboo_p3_trace();  // generated from data/spot-trace-bamboo-p3.csv

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

std::vector<std::string_view> shipped_trace_names() { return {"bamboo-p3"}; }

SpotTrace shipped_trace(std::string_view name) {
    if (name == "bamboo-p3") return parse_bamboo_trace(shipped_bamboo_p3_trace(), "bamboo-p3");
    throw std::invalid_argument("unknown spot trace '" + std::string(name) + "'");
}

}  // namespace rentsim::price
