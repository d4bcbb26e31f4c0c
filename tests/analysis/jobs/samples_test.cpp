// The importers on the shipped real traces. Expected figures were computed from the files
// independently (Python's csv module), and agree with scenarios/traces/jobs/SOURCES.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "analysis/jobs/import.hpp"
#include "jobs_test_util.hpp"
#include "tests/bench/job_trace_gen.hpp"

using namespace rentsim::jobs;
using namespace rentsim::jobs::test;

namespace {

std::map<int, int> gpu_histogram(const std::vector<Job>& jobs) {
    std::map<int, int> h;
    for (const Job& j : jobs) ++h[j.gpus];
    return h;
}

bool in_submission_order(const std::vector<Job>& jobs) {
    return std::is_sorted(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
}

}  // namespace

TEST_CASE("philly-csv reads all 82,247 Pollux Philly jobs with their GPU histogram, in submission order") {
    auto r = open_job_trace(shipped("scenarios/traces/jobs/philly_pollux/philly.csv"), Format::philly_csv, BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 82247);
    CHECK(r->skipped() == 0);
    CHECK(r->not_run() == 0);
    const std::map<int, int> expected{{1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7},
                                      {16, 199},  {24, 7},   {32, 67},  {64, 6},   {128, 3}};
    CHECK(gpu_histogram(jobs) == expected);
    // The file is not sorted (44,878 rows go back in time); the reader sorts it.
    CHECK(in_submission_order(jobs));
    // The earliest: 2017-09-04 10:30:41 on line 31,568; the next 2017-09-07 03:58:57 (235,696 s later).
    CHECK(jobs[0].line == 31568);
    CHECK(jobs[0].submit_s == 0);
    CHECK(jobs[0].gpus == 8);
    CHECK(jobs[0].duration_s == 2240194);
    CHECK(jobs[0].vc == "7f04ca");
    CHECK(jobs[0].user == "7f04ca");
    CHECK(jobs[0].id == "line 31568");
    CHECK(jobs[1].line == 54651);
    CHECK(jobs[1].submit_s == 235696);
    // The latest, 2017-12-22 08:02:11: 9,408,690 s after the first.
    CHECK(jobs.back().submit_s == 9408690);
    CHECK(jobs.back().line == 62255);
    double gpu_s = 0;
    for (const Job& j : jobs) gpu_s += j.gpus * j.duration_s;
    CHECK(gpu_s == 3521082502.0);  // the file's gpu_time column, summed
}

TEST_CASE("gavel reads the 2,000-job Philly VC trace, with durations from Gavel's V100 throughputs") {
    auto r = open_job_trace(shipped("scenarios/traces/jobs/gavel_philly_vc_ee9e8c/ee9e8c.trace"), Format::gavel,
                            BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 2000);
    CHECK(r->skipped() == 0);
    const std::map<int, int> expected{{1, 975}, {2, 47}, {4, 321}, {7, 2}, {8, 543}, {16, 106}, {20, 1}, {32, 5}};
    CHECK(gpu_histogram(jobs) == expected);
    CHECK(in_submission_order(jobs));
    // Line 1: Transformer (batch size 128), 15,486,530 steps at 5.771210833383417 steps/s.
    CHECK(jobs[0].workload == "Transformer (batch size 128)");
    CHECK(jobs[0].gpu_type == "V100");
    CHECK(jobs[0].duration_s == doctest::Approx(2683410.8902101745).epsilon(1e-12));
    // Line 2,000: ResNet-50 (batch size 16), 470,011 steps at 17.37438936466519, arriving at 4,508,448 s.
    CHECK(jobs.back().submit_s == 4508448);
    CHECK(jobs.back().duration_s == doctest::Approx(27051.943532235742).epsilon(1e-12));
    double total = 0, gpu_s = 0;
    for (const Job& j : jobs) {
        total += j.duration_s;
        gpu_s += j.gpus * j.duration_s;
    }
    CHECK(total == doctest::Approx(307269278.67855173).epsilon(1e-12));
    CHECK(gpu_s == doctest::Approx(1276482769.140935).epsilon(1e-12));
}

TEST_CASE("openb reads 8,152 pods as 6,203 GPU jobs, leaving out 1,949 CPU-only or never-scheduled pods") {
    auto r = open_job_trace(shipped("scenarios/traces/jobs/alibaba_openb/openb_pod_list_default.csv"), Format::openb,
                            BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 6203);
    CHECK(r->not_run() == 1949);  // 1,088 with num_gpu 0, 861 GPU pods never scheduled
    CHECK(r->skipped() == 0);
    CHECK(gpu_histogram(jobs) == std::map<int, int>{{1, 6129}, {2, 15}, {4, 15}, {8, 44}});
    CHECK(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.spot_ok; }) == 2510);
    CHECK(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.gpu_fraction < 1; }) == 2573);
    CHECK(in_submission_order(jobs));
    double gpu_s = 0;
    for (const Job& j : jobs) gpu_s += j.gpus * j.duration_s;
    CHECK(gpu_s == 214603958.0);
    CHECK(jobs[0].id == "openb-pod-0000");
    CHECK(jobs[0].duration_s == 12537496);
    // The last pod: BE, 590 thousandths of a GPU, scheduled at 12,901,762 and deleted at 12,901,792.
    CHECK(jobs.back().id == "openb-pod-8151");
    CHECK(jobs.back().submit_s == 12901761);
    CHECK(jobs.back().duration_s == 30);
    CHECK(jobs.back().gpu_fraction == doctest::Approx(0.59));
    CHECK(jobs.back().spot_ok);
}

TEST_CASE("sniffing names the format of each shipped trace") {
    CHECK(sniff_job_format(shipped("scenarios/traces/jobs/philly_pollux/philly.csv")) == Format::philly_csv);
    CHECK(sniff_job_format(shipped("scenarios/traces/jobs/gavel_philly_vc_ee9e8c/ee9e8c.trace")) == Format::gavel);
    CHECK(sniff_job_format(shipped("scenarios/traces/jobs/alibaba_openb/openb_pod_list_default.csv")) == Format::openb);
    CHECK(sniff_job_format(shipped("scenarios/traces/jobs/alibaba_openb/openb_node_list_gpu_node.csv")) == std::nullopt);
    CHECK(sniff_job_format(shipped("scenarios/traces/jobs/no-such-file.csv")) == std::nullopt);
}

TEST_CASE("the benchmark's synthetic trace is a valid rentsim CSV, the same on every platform") {
    // Expected sums from an independent implementation of the generator (splitmix64, seed 16).
    TempDir dir("synthetic");
    const std::string path = (dir.path / "jobs.csv").string();
    REQUIRE(rentsim::bench::write_synthetic_jobs(path, 10000, 16));
    CHECK(sniff_job_format(path) == Format::csv);
    auto r = open_job_trace(path, Format::csv, BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 10000);
    long gpus = 0, spot = 0;
    double duration = 0;
    for (const Job& j : jobs) {
        gpus += j.gpus;
        duration += j.duration_s;
        spot += j.spot_ok ? 1 : 0;
    }
    CHECK(jobs.back().submit_s == 294467 - 35);  // the first job arrives at 35 s, the last at 294,467 s
    CHECK(gpus == 73558);
    CHECK(duration == 433089537.0);
    CHECK(spot == 5029);
    CHECK(jobs[0].id == "job-0");
}
