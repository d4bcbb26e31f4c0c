#include "analysis/report/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "analysis/report/atomic_file.hpp"

namespace rentsim::report {

namespace {

// Microseconds with three decimals, from integer ns: exact, and the same bytes everywhere
// (no floating point on the way).
void append_us(std::string& out, std::int64_t ns) {
    const std::int64_t whole = ns / 1000, frac = ns % 1000;
    out += std::to_string(whole);
    out += '.';
    out += static_cast<char>('0' + frac / 100);
    out += static_cast<char>('0' + frac / 10 % 10);
    out += static_cast<char>('0' + frac % 10);
}

void append_string(std::string& out, std::string_view s) {
    out += '"';
    append_json_escaped(out, s);
    out += '"';
}

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    std::size_t n;
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (i + n > s.size()) return 0;
    if (b(1) < lo || b(1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(k) < 0x80 || b(k) > 0xBF) return 0;
    return n;
}

struct Track {
    std::vector<std::int64_t> open_ends;  // ends of the spans open at the last start, outermost first
};

// Whether [start, end] can go on `track` (after closing the spans that ended by `start`):
// the track is idle, or the span lies inside the innermost open span.
bool fits(Track& track, std::int64_t start, std::int64_t end) {
    auto& ends = track.open_ends;
    while (!ends.empty() && ends.back() <= start) ends.pop_back();
    return ends.empty() || end <= ends.back();
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (c < 0x20 || c == 0x7F) {
                        out += "\\u00";
                        out += hex[c >> 4];
                        out += hex[c & 0xF];
                    } else {
                        out += static_cast<char>(c);
                    }
            }
            ++i;
            continue;
        }
        const std::size_t n = utf8_length(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD for one invalid byte
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
}

std::string timeline_json(const Timeline& t, const TimelineLimits& limits, TimelineWritten* written) {
    const auto& spans = t.spans;
    const std::size_t n = spans.size();

    std::map<std::uint64_t, std::size_t> by_id;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& s = spans[i];
        if (s.process < 0) throw std::invalid_argument("timeline span '" + s.name + "' has a negative process");
        if (s.start_ns < 0 || s.dur_ns < 0 || s.start_ns > std::numeric_limits<std::int64_t>::max() - s.dur_ns)
            throw std::invalid_argument("timeline span '" + s.name + "' has a negative or overflowing time");
        if (s.id != 0 && !by_id.emplace(s.id, i).second)
            throw std::invalid_argument("timeline spans share the id " + std::to_string(s.id));
    }
    for (const auto& f : t.flows)
        if (!by_id.contains(f.from_id) || !by_id.contains(f.to_id))
            throw std::invalid_argument("timeline flow " + std::to_string(f.from_id) + " -> " + std::to_string(f.to_id) +
                                        " names a span id no span has");
    for (const auto& c : t.counters)
        if (c.process < 0 || c.t_ns < 0 || !std::isfinite(c.value))
            throw std::invalid_argument("timeline counter '" + c.name + "' has a negative process or time, or a non-finite value");

    // Time order: earlier first, the longer of two spans starting together first (a parent
    // before its children), then the caller's order.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto& x = spans[a];
        const auto& y = spans[b];
        return std::tuple(x.start_ns, -x.dur_ns, a) < std::tuple(y.start_ns, -y.dur_ns, b);
    });
    const std::size_t kept = std::min(n, limits.max_spans);
    order.resize(kept);
    std::vector<bool> keep(n, false);
    for (auto i : order) keep[i] = true;

    // Base threads of each process in the order of their first span in the caller's list.
    std::map<int, std::vector<std::string>> threads;                  // pid -> base names
    std::map<std::pair<int, std::string_view>, std::size_t> thread_index;  // (pid, name) -> index in threads[pid]
    std::vector<std::size_t> thread_of(n, 0);                               // span -> index in threads[pid]
    for (std::size_t i = 0; i < n; ++i) {
        if (!keep[i]) continue;
        auto [it, fresh] = thread_index.try_emplace({spans[i].process, spans[i].thread}, 0);
        if (fresh) {
            auto& names = threads[spans[i].process];
            it->second = names.size();
            names.push_back(spans[i].thread);
        }
        thread_of[i] = it->second;
    }

    // Greedy interval partitioning in time order: each span goes to the first sub-track of its
    // thread where it nests or is disjoint; a new sub-track opens when none takes it.
    std::map<std::pair<int, std::size_t>, std::vector<Track>> subtracks;  // (pid, thread index)
    std::vector<std::size_t> sub(n, 0);
    for (auto i : order) {
        const auto& s = spans[i];
        auto& tracks = subtracks[{s.process, thread_of[i]}];
        const std::int64_t end = s.start_ns + s.dur_ns;
        std::size_t k = 0;
        while (k < tracks.size() && !fits(tracks[k], s.start_ns, end)) ++k;
        if (k == tracks.size()) tracks.emplace_back();
        tracks[k].open_ends.push_back(end);
        sub[i] = k;
    }

    // tids: per process from 1, each thread's sub-tracks together, in thread order.
    std::map<std::tuple<int, std::size_t, std::size_t>, int> tid_of;  // (pid, thread, sub) -> tid
    std::map<int, std::vector<std::pair<int, std::string>>> track_names;  // pid -> (tid, name)
    std::size_t track_count = 0;
    for (const auto& [pid, names] : threads) {
        int tid = 0;
        for (std::size_t th = 0; th < names.size(); ++th) {
            const std::size_t subs = subtracks.at({pid, th}).size();
            for (std::size_t k = 0; k < subs; ++k) {
                tid_of[{pid, th, k}] = ++tid;
                track_names[pid].push_back({tid, k == 0 ? names[th] : names[th] + " #" + std::to_string(k + 1)});
                ++track_count;
            }
        }
    }
    const auto tid_for = [&](std::size_t i) { return tid_of.at({spans[i].process, thread_of[i], sub[i]}); };

    std::string out;
    out.reserve(64 + kept * 160);
    out += "{\"traceEvents\":[\n";
    bool first = true;
    const auto begin_event = [&] {
        if (!first) out += ",\n";
        first = false;
    };

    // Processes: every named one and every one holding a span or a counter, by pid.
    std::map<int, bool> pids;
    for (std::size_t p = 0; p < t.process_names.size(); ++p) pids[static_cast<int>(p)] = true;
    for (const auto& [pid, names] : threads) pids[pid] = true;
    for (const auto& c : t.counters) pids[c.process] = true;
    for (const auto& [pid, unused] : pids) {
        const std::string pname = static_cast<std::size_t>(pid) < t.process_names.size()
                                      ? t.process_names[static_cast<std::size_t>(pid)]
                                      : "rank " + std::to_string(pid);
        begin_event();
        out += fmt::format("{{\"ph\":\"M\",\"pid\":{},\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":", pid);
        append_string(out, pname);
        out += "}}";
        begin_event();
        out += fmt::format("{{\"ph\":\"M\",\"pid\":{},\"tid\":0,\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{}}}}}",
                           pid, pid);
        if (auto it = track_names.find(pid); it != track_names.end()) {
            for (const auto& [tid, tname] : it->second) {
                begin_event();
                out += fmt::format("{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":", pid, tid);
                append_string(out, tname);
                out += "}}";
                begin_event();
                out += fmt::format(
                    "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}", pid,
                    tid, tid);
            }
        }
    }

    // Slices by track, then in time order (parents before their children).
    std::vector<std::pair<std::pair<int, int>, std::size_t>> slices;  // ((pid, tid), position in order)
    slices.reserve(kept);
    for (std::size_t r = 0; r < kept; ++r) slices.push_back({{spans[order[r]].process, tid_for(order[r])}, r});
    std::sort(slices.begin(), slices.end());
    std::vector<int> tid_by_span(n, 0);
    for (const auto& [track, r] : slices) {
        const std::size_t i = order[r];
        const auto& s = spans[i];
        tid_by_span[i] = track.second;
        begin_event();
        fmt::format_to(std::back_inserter(out), "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", s.process, track.second);
        append_us(out, s.start_ns);
        out += ",\"dur\":";
        append_us(out, s.dur_ns);
        out += ",\"name\":";
        append_string(out, s.name);
        out += ",\"cat\":";
        append_string(out, s.category);
        if (!s.args.empty()) {
            out += ",\"args\":{";
            std::vector<std::string_view> seen;
            for (const auto& [key, value] : s.args) {
                if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;  // the first value of a key
                if (!seen.empty()) out += ',';
                seen.push_back(key);
                append_string(out, key);
                out += ':';
                append_string(out, value);
            }
            out += '}';
        }
        out += '}';
    }

    // Flows: the start binds to the slice enclosing its timestamp on its track (the source's
    // start), the end, with "bp":"e", to the slice enclosing its own (the target's start).
    std::size_t flows = 0, flows_dropped = 0;
    for (const auto& f : t.flows) {
        const std::size_t a = by_id.at(f.from_id), b = by_id.at(f.to_id);
        if (!keep[a] || !keep[b]) {
            ++flows_dropped;
            continue;
        }
        ++flows;
        for (const bool start : {true, false}) {
            const std::size_t i = start ? a : b;
            begin_event();
            fmt::format_to(std::back_inserter(out), "{{\"ph\":\"{}\",{}\"pid\":{},\"tid\":{},\"ts\":", start ? "s" : "f", start ? "" : "\"bp\":\"e\",",
                               spans[i].process, tid_by_span[i]);
            append_us(out, spans[i].start_ns);
            fmt::format_to(std::back_inserter(out), ",\"id\":{},\"name\":\"dependency\",\"cat\":\"flow\"}}", flows);
        }
    }

    // Counters: each series in time order (the caller's order among equal times).
    std::vector<std::size_t> corder(t.counters.size());
    std::iota(corder.begin(), corder.end(), std::size_t{0});
    std::stable_sort(corder.begin(), corder.end(), [&](std::size_t a, std::size_t b) {
        const auto& x = t.counters[a];
        const auto& y = t.counters[b];
        return std::tie(x.process, x.name, x.t_ns) < std::tie(y.process, y.name, y.t_ns);
    });
    for (auto i : corder) {
        const auto& c = t.counters[i];
        begin_event();
        out += fmt::format("{{\"ph\":\"C\",\"pid\":{},\"tid\":0,\"ts\":", c.process);
        append_us(out, c.t_ns);
        out += ",\"name\":";
        append_string(out, c.name);
        out += fmt::format(",\"args\":{{\"value\":{}}}}}", c.value == 0 ? 0.0 : c.value);  // no "-0"
    }

    const std::size_t dropped = n - kept;
    out += "\n],\n\"displayTimeUnit\":\"ns\",\n";
    out += fmt::format("\"otherData\":{{\"generator\":\"rentsim\",\"spans\":{},\"spans_dropped\":{},\"flows_dropped\":{},"
                       "\"max_spans\":{}",
                       kept, dropped, flows_dropped, limits.max_spans);
    if (dropped > 0)
        out += fmt::format(",\"note\":\"{} of {} spans kept (the first in time order); raise the span limit to keep more\"",
                           kept, n);
    out += "}}\n";

    if (written) *written = {kept, dropped, flows, flows_dropped, track_count, out.size()};
    return out;
}

TimelineWritten write_timeline(const Timeline& t, const std::string& path, const TimelineLimits& limits) {
    TimelineWritten w;
    const std::string text = timeline_json(t, limits, &w);
    analysis::write_file_atomically(path, text);
    return w;
}

}  // namespace rentsim::report
