// Progress on standard error: which mode, the words of a line and a bar, and when each speaks
// (a clock the test moves by hand).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/report/progress.hpp"

using namespace rentsim;
using analysis::Progress;
using analysis::ProgressMode;

namespace {

// Runs `total` points finishing one every `every_s` seconds; returns what was written.
std::vector<std::string> run(ProgressMode mode, std::size_t total, double every_s, std::size_t restored = 0) {
    double now = 1000;
    std::vector<std::string> said;
    Progress p(mode, total, restored, [&now] { return now; }, [&said](std::string_view s) { said.emplace_back(s); });
    for (std::size_t i = restored; i < total; ++i) {
        now += every_s;
        p.point_done();
    }
    p.finish();
    return said;
}

}  // namespace

TEST_CASE("progress is a bar on a terminal, lines in CI or without a terminal, and nothing when quiet") {
    CHECK(analysis::progress_mode(false, true, nullptr) == ProgressMode::bar);
    CHECK(analysis::progress_mode(false, true, "false") == ProgressMode::bar);
    CHECK(analysis::progress_mode(false, true, "true") == ProgressMode::lines);
    CHECK(analysis::progress_mode(false, false, nullptr) == ProgressMode::lines);
    CHECK(analysis::progress_mode(true, true, nullptr) == ProgressMode::none);
    CHECK(analysis::progress_mode(true, false, "true") == ProgressMode::none);
}

TEST_CASE("a progress line gives the points done, the share, the rate and the time left") {
    // 400 of 1000 in 32 s: 12.5 points/s, 600 left take 48 s.
    CHECK(analysis::progress_line(400, 1000, 400, 32) == "rentsim: 400/1000 points (40%), 12.5 points/s, 48.0 s left\n");
    // A resumed run: 300 restored, 100 run in 10 s: 10 points/s, 600 left take 60 s.
    CHECK(analysis::progress_line(400, 1000, 100, 10) == "rentsim: 400/1000 points (40%), 10.0 points/s, 60.0 s left\n");
    CHECK(analysis::progress_line(0, 10, 0, 0) == "rentsim: 0/10 points (0%)\n");
    CHECK(analysis::progress_bar(400, 1000, 400, 32) ==
          "[############------------------]  400/1000   40%  12.5 points/s  ETA 48.0 s");
}

TEST_CASE("in CI a line comes at each tenth of the points after the first 10 s, and every 30 s between") {
    // 100 points, one a second: tenths at 10, 20, ... 100 s.
    const auto tenths = run(ProgressMode::lines, 100, 1);
    REQUIRE(tenths.size() == 10);
    CHECK(tenths.front() == "rentsim: 10/100 points (10%), 1.0 points/s, 90.0 s left\n");
    CHECK(tenths.back() == "rentsim: 100/100 points (100%), 1.0 points/s, 0.0 ms left\n");
    // 1000 points, one a second, for the first 100 s: the first line at 10 s, then 40, 70, 100 (a tenth).
    double now = 0;
    std::vector<std::string> said;
    Progress p(ProgressMode::lines, 1000, 0, [&now] { return now; }, [&said](std::string_view s) { said.emplace_back(s); });
    for (int i = 0; i < 100; ++i) {
        now += 1;
        p.point_done();
    }
    REQUIRE(said.size() == 4);
    CHECK(said[0].starts_with("rentsim: 10/1000 "));
    CHECK(said[1].starts_with("rentsim: 40/1000 "));
    CHECK(said[2].starts_with("rentsim: 70/1000 "));
    CHECK(said[3].starts_with("rentsim: 100/1000 (10%)") == false);
    CHECK(said[3].starts_with("rentsim: 100/1000 points (10%)"));
}

TEST_CASE("a run shorter than the first progress moment prints nothing") {
    CHECK(run(ProgressMode::lines, 100, 0.05).empty());  // 5 s in all
    CHECK(run(ProgressMode::bar, 100, 0.005).empty());   // 0.5 s in all
    CHECK(run(ProgressMode::none, 100, 100).empty());
}

TEST_CASE("the bar is redrawn at most ten times a second and erased at the end") {
    // 32 points, one every 1/16 s: 2 s; drawn from 1 s (point 16) at most every 0.1 s: points
    // 16, 18, ..., 32, then erased.
    const auto said = run(ProgressMode::bar, 32, 0.0625);
    REQUIRE(said.size() == 10);
    CHECK(said.front() == "\r[###############---------------]  16/32   50%  16.0 points/s  ETA 1.0 s\033[K");
    CHECK(said[8].starts_with("\r[##############################]  32/32  100%"));
    CHECK(said.back() == "\r\033[K");
}

TEST_CASE("a resumed run counts its restored points as done but not in its rate") {
    // 60 restored of 100; 40 more at 1 per second: 7/10 is crossed at 10 s, then 8/10 at 20 s ...
    const auto said = run(ProgressMode::lines, 100, 1, 60);
    REQUIRE(said.size() == 4);
    CHECK(said[0] == "rentsim: 70/100 points (70%), 1.0 points/s, 30.0 s left\n");
}
