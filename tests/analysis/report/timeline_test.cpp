// The Chrome trace writer: a tiny timeline byte for byte, overlap splitting, the span cap,
// escaping, refusals, and the rules checker catching files that break Perfetto's rules.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "analysis/report/timeline.hpp"
#include "tests/analysis/report/timeline_rules.hpp"

using namespace rentsim;
using report::Timeline;
using report::TimelineSpan;

namespace {

Timeline tiny() {
    Timeline t;
    t.process_names = {"rank 0"};
    t.spans.push_back({0, "compute", "forward", "compute", 1000, 2500, 1, {{"layer", "3"}}});
    t.spans.push_back({0, "comm", "all-reduce", "comm", 2000, 1001, 2, {}});
    t.flows.push_back({1, 2});
    t.counters.push_back({0, "busy", 3001, 0});
    t.counters.push_back({0, "busy", 2000, 1});
    return t;
}

TimelineSpan span(std::string thread, std::string name, std::int64_t start, std::int64_t dur, std::uint64_t id = 0) {
    TimelineSpan s;
    s.thread = std::move(thread);
    s.name = std::move(name);
    s.category = "kernel";
    s.start_ns = start;
    s.dur_ns = dur;
    s.id = id;
    return s;
}

// The names of the slices on the track named `thread` of process 0, in file order.
std::vector<std::string> names_on(const test::TimelineFile& f, const std::string& thread) {
    std::vector<std::string> names;
    for (const auto& [track, name] : f.thread_names)
        if (name == thread && f.slices.contains(track))
            for (const auto& s : f.slices.at(track)) names.push_back(s.name);
    return names;
}

}  // namespace

TEST_CASE("a tiny timeline is written byte for byte as hand-written") {
    const std::string expected =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"rank 0\"}},\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":0}},\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"compute\"}},\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":1}},\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"comm\"}},\n"
        "{\"ph\":\"M\",\"pid\":0,\"tid\":2,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":2}},\n"
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":2.500,\"name\":\"forward\",\"cat\":\"compute\",\"args\":{\"layer\":\"3\"}},\n"
        "{\"ph\":\"X\",\"pid\":0,\"tid\":2,\"ts\":2.000,\"dur\":1.001,\"name\":\"all-reduce\",\"cat\":\"comm\"},\n"
        "{\"ph\":\"s\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"id\":1,\"name\":\"dependency\",\"cat\":\"flow\"},\n"
        "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":0,\"tid\":2,\"ts\":2.000,\"id\":1,\"name\":\"dependency\",\"cat\":\"flow\"},\n"
        "{\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":2.000,\"name\":\"busy\",\"args\":{\"value\":1}},\n"
        "{\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":3.001,\"name\":\"busy\",\"args\":{\"value\":0}}\n"
        "],\n"
        "\"displayTimeUnit\":\"ns\",\n"
        "\"otherData\":{\"generator\":\"rentsim\",\"spans\":2,\"spans_dropped\":0,\"flows_dropped\":0,\"max_spans\":2000000}}\n";
    report::TimelineWritten w;
    const std::string text = report::timeline_json(tiny(), {}, &w);
    CHECK(text == expected);
    CHECK(w.spans == 2);
    CHECK(w.flows == 1);
    CHECK(w.tracks == 2);
    CHECK(w.bytes == expected.size());
    const auto f = test::check_timeline(text);
    CHECK(f.violations.empty());
    CHECK(f.flows == 1);
    CHECK(report::timeline_json(tiny()) == text);  // deterministic
}

TEST_CASE("times are microseconds with three decimals, exact to the nanosecond") {
    Timeline t;
    t.spans.push_back(span("s", "a", 1, 0));
    t.spans.push_back(span("s", "b", 1'234'567, 999));
    t.spans.push_back(span("s", "c", 9'007'199'254'740'993, 1'000'000'007));  // 2^53 + 1 ns: past double's exact range
    const std::string text = report::timeline_json(t);
    CHECK(text.find("\"ts\":0.001,\"dur\":0.000") != std::string::npos);
    CHECK(text.find("\"ts\":1234.567,\"dur\":0.999") != std::string::npos);
    CHECK(text.find("\"ts\":9007199254740.993,\"dur\":1000000.007") != std::string::npos);
    CHECK(test::check_timeline(text).violations.empty());
}

TEST_CASE("overlapping spans of one thread go on sub-tracks, nested ones stay") {
    // A [0,10) B [5,15) C [6,8) D [10,20) E [12,13): B overlaps A without nesting and opens
    // "stream 7 #2"; C nests in A, D follows A, E nests in D.
    Timeline t;
    t.spans.push_back(span("stream 7", "A", 0, 10));
    t.spans.push_back(span("stream 7", "B", 5, 10));
    t.spans.push_back(span("stream 7", "C", 6, 2));
    t.spans.push_back(span("stream 7", "D", 10, 10));
    t.spans.push_back(span("stream 7", "E", 12, 1));
    t.spans.push_back(span("stream 8", "F", 5, 1));
    report::TimelineWritten w;
    const auto f = test::check_timeline(report::timeline_json(t, {}, &w));
    CHECK(f.violations.empty());
    CHECK(w.tracks == 3);
    CHECK(names_on(f, "stream 7") == std::vector<std::string>{"A", "C", "D", "E"});
    CHECK(names_on(f, "stream 7 #2") == std::vector<std::string>{"B"});
    CHECK(names_on(f, "stream 8") == std::vector<std::string>{"F"});
    // Sub-tracks follow their thread: stream 7 is tid 1, its #2 tid 2, stream 8 tid 3.
    CHECK(f.thread_names.at({0, 2}) == "stream 7 #2");
    CHECK(f.thread_names.at({0, 3}) == "stream 8");
    CHECK(f.process_names.at(0) == "rank 0");
}

TEST_CASE("three mutually overlapping spans need three tracks, abutting ones one") {
    Timeline t;
    for (int i = 0; i < 3; ++i) t.spans.push_back(span("s", "x" + std::to_string(i), i, 10));
    for (int i = 0; i < 4; ++i) t.spans.push_back(span("u", "y" + std::to_string(i), 5 * i, 5));
    report::TimelineWritten w;
    const auto f = test::check_timeline(report::timeline_json(t, {}, &w));
    CHECK(f.violations.empty());
    CHECK(w.tracks == 4);
    CHECK(names_on(f, "s #3") == std::vector<std::string>{"x2"});
    CHECK(names_on(f, "u").size() == 4);
}

TEST_CASE("past the span cap the first spans in time order are kept and the file says so") {
    Timeline t;
    for (int i = 4; i >= 0; --i) t.spans.push_back(span("s", "n" + std::to_string(i), 10 * i, 5, static_cast<std::uint64_t>(i + 1)));
    t.flows.push_back({1, 2});  // n0 -> n1: both kept
    t.flows.push_back({2, 5});  // n1 -> n4: n4 dropped
    report::TimelineWritten w;
    const std::string text = report::timeline_json(t, {.max_spans = 3}, &w);
    CHECK(w.spans == 3);
    CHECK(w.spans_dropped == 2);
    CHECK(w.flows == 1);
    CHECK(w.flows_dropped == 1);
    const auto f = test::check_timeline(text);
    CHECK(f.violations.empty());
    CHECK(names_on(f, "s") == std::vector<std::string>{"n0", "n1", "n2"});
    CHECK(f.other_data["spans_dropped"].get<int>() == 2);
    CHECK(f.other_data["max_spans"].get<int>() == 3);
    CHECK(f.other_data["note"].get<std::string>() == "3 of 5 spans kept (the first in time order); raise the span limit to keep more");
    CHECK(report::timeline_json(t).find("note") == std::string::npos);
}

TEST_CASE("strings are JSON-escaped and invalid UTF-8 is replaced") {
    Timeline t;
    TimelineSpan s = span("tab\there", "say \"hi\"\\ \n\x01\x7f", 0, 1);
    s.args = {{"k\"", "\xc2\xb5s \xff\xe2\x82"}, {"k\"", "second value of a key is dropped"}};
    t.spans.push_back(s);
    t.process_names = {"rank \"0\""};
    const std::string text = report::timeline_json(t);
    CHECK(text.find(R"("name":"say \"hi\"\\ \n\u0001\u007f")") != std::string::npos);
    CHECK(text.find(R"("name":"tab\there")") != std::string::npos);
    CHECK(text.find("\"k\\\"\":\"\xc2\xb5s \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}") != std::string::npos);
    const auto f = test::check_timeline(text);
    CHECK(f.violations.empty());
    CHECK(f.process_names.at(0) == "rank \"0\"");
    CHECK(f.slices.begin()->second.front().name == "say \"hi\"\\ \n\x01\x7f");
}

TEST_CASE("a bad timeline is refused with the reason") {
    auto refused = [](Timeline t) {
        try {
            (void)report::timeline_json(t);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    Timeline t;
    t.spans.push_back(span("s", "neg", 0, -1));
    CHECK(refused(t) == "timeline span 'neg' has a negative or overflowing time");
    t.spans = {span("s", "end", std::numeric_limits<std::int64_t>::max(), 1)};
    CHECK(refused(t) == "timeline span 'end' has a negative or overflowing time");
    t.spans = {span("s", "a", 0, 1, 7), span("s", "b", 1, 1, 7)};
    CHECK(refused(t) == "timeline spans share the id 7");
    t.spans = {span("s", "a", 0, 1, 7)};
    t.flows = {{7, 8}};
    CHECK(refused(t) == "timeline flow 7 -> 8 names a span id no span has");
    t.flows.clear();
    t.counters = {{0, "c", 0, std::numeric_limits<double>::quiet_NaN()}};
    CHECK(refused(t) == "timeline counter 'c' has a negative process or time, or a non-finite value");
    t.counters.clear();
    t.spans.front().process = -1;
    CHECK(refused(t) == "timeline span 'a' has a negative process");
}

TEST_CASE("write_timeline writes the JSON text to the file") {
    const auto path = std::filesystem::temp_directory_path() / ("rentsim-timeline-test-" + std::to_string(::getpid()) + ".json");
    const auto w = report::write_timeline(tiny(), path.string());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == report::timeline_json(tiny()));
    CHECK(w.bytes == text.str().size());
    std::filesystem::remove(path);
}

TEST_CASE("the rules checker catches files Perfetto would not show as written") {
    const std::string head = R"({"traceEvents":[{"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"p"}},)"
                             R"({"ph":"M","pid":0,"tid":1,"name":"thread_name","args":{"name":"t"}},)";
    const auto violations = [&](const std::string& events) { return test::check_timeline(head + events + "]}").violations; };
    CHECK(violations(R"({"ph":"X","pid":0,"tid":1,"ts":0,"dur":10,"name":"a"},{"ph":"X","pid":0,"tid":1,"ts":5,"dur":10,"name":"b"})") ==
          std::vector<std::string>{"slices 'a' and 'b' on track (0, 1) overlap without nesting"});
    CHECK(violations(R"({"ph":"X","pid":0,"tid":1,"ts":0,"dur":10,"name":"a"},{"ph":"X","pid":0,"tid":1,"ts":5,"dur":5,"name":"b"})")
              .empty());
    CHECK(violations(R"({"ph":"X","pid":0,"tid":2,"ts":0,"dur":1,"name":"a"})") ==
          std::vector<std::string>{"track (0, 2) has slices but no thread_name"});
    CHECK(violations(R"({"ph":"X","pid":0,"tid":1,"ts":-1,"dur":1,"name":"a"})") ==
          std::vector<std::string>{"event 2: X without ts and dur >= 0"});
    CHECK(violations(R"({"ph":"X","pid":0,"tid":1,"ts":0,"dur":1,"name":"a"},)"
                     R"({"ph":"s","pid":0,"tid":1,"ts":0,"id":1,"cat":"flow","name":"d"})") ==
          std::vector<std::string>{"flow id 1 does not have exactly one start and one end"});
    CHECK(violations(R"({"ph":"X","pid":0,"tid":1,"ts":0,"dur":1,"name":"a"},)"
                     R"({"ph":"s","pid":0,"tid":1,"ts":0,"id":1,"cat":"flow","name":"d"},)"
                     R"({"ph":"f","pid":0,"tid":1,"ts":5,"id":1,"cat":"flow","name":"d"})") ==
          std::vector<std::string>{"event 4: f without \"bp\":\"e\"", "flow id 1: end binds to no slice of its track"});
    CHECK(test::check_timeline("{\"traceEvents\": 3}").violations ==
          std::vector<std::string>{"no traceEvents array in a top-level object"});
    CHECK(test::check_timeline("{\"traceEvents\": [").violations.size() == 1);
}

TEST_CASE("random overlapping timelines always keep Perfetto's rules, with every span written once") {
    // Spans of random lengths on a few threads of a few processes overlap in every way; some
    // share starts or ends, some are empty. Whatever they are, every track of the file must be
    // nested or disjoint and every arrow bound.
    std::mt19937_64 rng(20261201);
    for (int round = 0; round < 20; ++round) {
        Timeline t;
        const int n = 200 + round * 50;
        for (int i = 0; i < n; ++i) {
            TimelineSpan s = span("stream " + std::to_string(rng() % 3), "k" + std::to_string(i),
                                  static_cast<std::int64_t>(rng() % 2000) * 10, static_cast<std::int64_t>(rng() % 50) * 10,
                                  static_cast<std::uint64_t>(i + 1));
            s.process = static_cast<int>(rng() % 2);
            t.spans.push_back(s);
        }
        for (int i = 0; i < n / 4; ++i)
            t.flows.push_back({static_cast<std::uint64_t>(rng() % n + 1), static_cast<std::uint64_t>(rng() % n + 1)});
        // Flows must not end before they start: order each pair by its spans' starts.
        for (auto& f : t.flows)
            if (t.spans[f.from_id - 1].start_ns > t.spans[f.to_id - 1].start_ns) std::swap(f.from_id, f.to_id);
        report::TimelineWritten w;
        const auto f = test::check_timeline(report::timeline_json(t, {}, &w));
        CAPTURE(round);
        CHECK(f.violations == std::vector<std::string>{});
        std::size_t slices = 0;
        for (const auto& [track, list] : f.slices) slices += list.size();
        CHECK(slices == static_cast<std::size_t>(n));
        CHECK(f.flows == t.flows.size());
        CHECK(w.tracks >= 6);  // at least one track per (process, thread)
    }
}
