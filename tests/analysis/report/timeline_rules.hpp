// The rules a Chrome trace JSON file must keep for Perfetto's JSON importer and chrome://tracing
// to show it as written, checked on the text of a file. Every test that writes a timeline runs
// it. The rules (Chrome's Trace Event Format and Perfetto's json_trace_parser):
//   - a top-level object with a "traceEvents" array; "displayTimeUnit", if any, "ms" or "ns";
//   - every event an object with "ph" and an integer "pid" >= 0; "tid" >= 0 where the phase has one;
//   - "X": a string "name", numbers "ts" >= 0 and "dur" >= 0; "args", if any, an object;
//   - "M": process_name / thread_name with a string args.name, *_sort_index with an integer
//     args.sort_index; every process and every track holding a slice is named;
//   - "C": a string "name", "ts" >= 0, args an object of numbers;
//   - "s" / "f": an "id", "ts" >= 0, string "cat" and "name"; each id has one start and one end
//     (one flow, one cat and name), the end has "bp":"e", and each binds to a slice of its track
//     enclosing its timestamp; the start is not after the end;
//   - the "X" slices of one (pid, tid) are properly nested or disjoint (Perfetto moves the
//     others to an overflow track).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace rentsim::test {

struct TimelineSlice {
    std::string name;
    std::int64_t start_ns = 0, dur_ns = 0;
};

// What a checked file holds, for tests to assert facts on.
struct TimelineFile {
    std::vector<std::string> violations;  // empty: the file keeps every rule
    std::map<int, std::string> process_names;
    std::map<std::pair<int, int>, std::string> thread_names;                   // (pid, tid)
    std::map<std::pair<int, int>, std::vector<TimelineSlice>> slices;          // in file order
    std::map<std::pair<int, std::string>, std::vector<std::pair<std::int64_t, double>>> counters;  // (pid, name)
    std::size_t flows = 0;
    nlohmann::json other_data;
};

inline std::int64_t timeline_ns(double us) { return std::llround(us * 1000.0); }

inline TimelineFile check_timeline(const std::string& text) {
    TimelineFile f;
    auto bad = [&](std::size_t i, const std::string& what) {
        f.violations.push_back("event " + std::to_string(i) + ": " + what);
    };
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        f.violations.push_back(std::string("not JSON: ") + e.what());
        return f;
    }
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
        f.violations.push_back("no traceEvents array in a top-level object");
        return f;
    }
    if (doc.contains("displayTimeUnit") &&
        (!doc["displayTimeUnit"].is_string() ||
         (doc["displayTimeUnit"].get<std::string>() != "ms" && doc["displayTimeUnit"].get<std::string>() != "ns")))
        f.violations.push_back("displayTimeUnit is neither \"ms\" nor \"ns\"");
    if (doc.contains("otherData")) f.other_data = doc["otherData"];

    struct FlowEnd {
        int count = 0;
        std::size_t event = 0;
        int pid = 0, tid = 0;
        std::int64_t ts = 0;
        std::string cat, name;
    };
    std::map<std::string, FlowEnd> starts, ends;
    const auto& events = doc["traceEvents"];
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
            bad(i, "not an object with a string ph");
            continue;
        }
        const std::string ph = e["ph"].get<std::string>();
        if (!e.contains("pid") || !e["pid"].is_number_integer() || e["pid"].get<std::int64_t>() < 0) {
            bad(i, "pid is not an integer >= 0");
            continue;
        }
        const int pid = e["pid"].get<int>();
        const bool has_tid = e.contains("tid") && e["tid"].is_number_integer() && e["tid"].get<std::int64_t>() >= 0;
        const int tid = has_tid ? e["tid"].get<int>() : -1;
        const auto number_at_least_0 = [&](const char* key) {
            return e.contains(key) && e[key].is_number() && e[key].get<double>() >= 0;
        };
        const auto is_string = [&](const char* key) { return e.contains(key) && e[key].is_string(); };
        if (ph == "X") {
            if (!has_tid) bad(i, "X without a tid >= 0");
            if (!is_string("name")) bad(i, "X without a string name");
            if (!number_at_least_0("ts") || !number_at_least_0("dur")) {
                bad(i, "X without ts and dur >= 0");
                continue;
            }
            if (e.contains("args") && !e["args"].is_object()) bad(i, "X args is not an object");
            f.slices[{pid, tid}].push_back({is_string("name") ? e["name"].get<std::string>() : "",
                                            timeline_ns(e["ts"].get<double>()), timeline_ns(e["dur"].get<double>())});
        } else if (ph == "M") {
            const std::string name = is_string("name") ? e["name"].get<std::string>() : "";
            const auto& args = e.contains("args") ? e["args"] : nlohmann::json();
            if (name == "process_name" || name == "thread_name") {
                if (!args.is_object() || !args.contains("name") || !args["name"].is_string()) {
                    bad(i, name + " without a string args.name");
                    continue;
                }
                if (name == "process_name") f.process_names[pid] = args["name"].get<std::string>();
                else if (!has_tid) bad(i, "thread_name without a tid");
                else f.thread_names[{pid, tid}] = args["name"].get<std::string>();
            } else if (name == "process_sort_index" || name == "thread_sort_index") {
                if (!args.is_object() || !args.contains("sort_index") || !args["sort_index"].is_number_integer())
                    bad(i, name + " without an integer args.sort_index");
            } else {
                bad(i, "unknown metadata '" + name + "'");
            }
        } else if (ph == "C") {
            if (!is_string("name") || !number_at_least_0("ts") || !e.contains("args") || !e["args"].is_object()) {
                bad(i, "C without a name, a ts >= 0 and args");
                continue;
            }
            for (const auto& [key, value] : e["args"].items())
                if (!value.is_number()) bad(i, "C arg '" + key + "' is not a number");
            if (e["args"].contains("value") && e["args"]["value"].is_number())
                f.counters[{pid, e["name"].get<std::string>()}].push_back(
                    {timeline_ns(e["ts"].get<double>()), e["args"]["value"].get<double>()});
        } else if (ph == "s" || ph == "f") {
            if (!has_tid || !e.contains("id") || !number_at_least_0("ts") || !is_string("cat") || !is_string("name")) {
                bad(i, ph + " without a tid, an id, a ts >= 0, a cat and a name");
                continue;
            }
            if (ph == "f" && (!is_string("bp") || e["bp"].get<std::string>() != "e")) bad(i, "f without \"bp\":\"e\"");
            auto& end = (ph == "s" ? starts : ends)[e["id"].dump()];
            end = {end.count + 1, i, pid, tid, timeline_ns(e["ts"].get<double>()), e["cat"].get<std::string>(),
                   e["name"].get<std::string>()};
        } else {
            bad(i, "phase '" + ph + "' is not one the writer uses");
        }
    }

    // Slices: named tracks and processes, proper nesting.
    for (auto& [track, list] : f.slices) {
        if (!f.thread_names.contains(track))
            f.violations.push_back("track (" + std::to_string(track.first) + ", " + std::to_string(track.second) +
                                   ") has slices but no thread_name");
        if (!f.process_names.contains(track.first))
            f.violations.push_back("process " + std::to_string(track.first) + " has slices but no process_name");
        std::vector<TimelineSlice> sorted = list;
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
            return std::tuple(a.start_ns, -a.dur_ns) < std::tuple(b.start_ns, -b.dur_ns);
        });
        std::vector<const TimelineSlice*> open;
        for (const auto& s : sorted) {
            const std::int64_t end = s.start_ns + s.dur_ns;
            while (!open.empty() && open.back()->start_ns + open.back()->dur_ns <= s.start_ns) open.pop_back();
            if (!open.empty() && end > open.back()->start_ns + open.back()->dur_ns)
                f.violations.push_back("slices '" + open.back()->name + "' and '" + s.name + "' on track (" +
                                       std::to_string(track.first) + ", " + std::to_string(track.second) +
                                       ") overlap without nesting");
            open.push_back(&s);
        }
    }
    for (const auto& [pid, series] : f.counters)
        if (!f.process_names.contains(pid.first))
            f.violations.push_back("process " + std::to_string(pid.first) + " has counters but no process_name");

    // Flows: pairs, bound to an enclosing slice of their track.
    const auto encloses = [&](const FlowEnd& x) {
        auto it = f.slices.find({x.pid, x.tid});
        if (it == f.slices.end()) return false;
        return std::any_of(it->second.begin(), it->second.end(), [&](const TimelineSlice& s) {
            return s.start_ns <= x.ts && x.ts <= s.start_ns + s.dur_ns;
        });
    };
    std::set<std::string> ids;
    for (const auto& [id, x] : starts) ids.insert(id);
    for (const auto& [id, x] : ends) ids.insert(id);
    for (const auto& id : ids) {
        const auto s = starts.find(id), e = ends.find(id);
        if (s == starts.end() || e == ends.end() || s->second.count != 1 || e->second.count != 1) {
            f.violations.push_back("flow id " + id + " does not have exactly one start and one end");
            continue;
        }
        if (s->second.cat != e->second.cat || s->second.name != e->second.name)
            f.violations.push_back("flow id " + id + ": start and end differ in cat or name");
        if (!encloses(s->second)) f.violations.push_back("flow id " + id + ": start binds to no slice of its track");
        if (!encloses(e->second)) f.violations.push_back("flow id " + id + ": end binds to no slice of its track");
        if (s->second.ts > e->second.ts) f.violations.push_back("flow id " + id + ": ends before it starts");
        ++f.flows;
    }
    return f;
}

}  // namespace rentsim::test
