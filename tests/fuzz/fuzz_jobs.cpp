// Fuzz target: the job-trace importers (jobs::open_job_trace, jobs::sniff_job_format). The first
// byte picks the format (byte % 8, in Format's order: philly, philly-csv, gavel, pai, helios,
// acme, openb, csv); the rest is the file. For pai it is cut at the first 0x1E byte: the job
// table before it, the task table after. Each input is read with both bad-row policies.
// Expected: analysis::InputError. Checks the documented results: jobs in submission order from
// 0, each with GPUs, a positive run time and a GPU share in (0, 1]; at most 20 bad rows kept,
// no more than were counted.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/jobs/import.hpp"
#include "analysis/scenario/input_error.hpp"
#include "fuzz_target.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rentsim::jobs;

struct RemovedAtExit {
    fs::path dir;
    ~RemovedAtExit() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

void check(JobReader& r) {
    double last = 0;
    bool first = true;
    while (auto j = r.next()) {
        RENTSIM_FUZZ_CHECK(std::isfinite(j->submit_s) && j->submit_s >= 0, "submission not finite or negative");
        RENTSIM_FUZZ_CHECK(!first || j->submit_s == 0, "the first job is not submitted at 0");
        RENTSIM_FUZZ_CHECK(j->submit_s >= last, "jobs out of submission order");
        RENTSIM_FUZZ_CHECK(j->gpus >= 1, "a job without GPUs");
        RENTSIM_FUZZ_CHECK(std::isfinite(j->duration_s) && j->duration_s > 0, "a run time not positive");
        RENTSIM_FUZZ_CHECK(j->gpu_fraction > 0 && j->gpu_fraction <= 1, "a GPU share outside (0, 1]");
        last = j->submit_s;
        first = false;
    }
    RENTSIM_FUZZ_CHECK(r.bad_rows().size() <= 20, "more than 20 bad rows kept");
    RENTSIM_FUZZ_CHECK(static_cast<std::int64_t>(r.bad_rows().size()) <= r.skipped(), "more bad rows kept than skipped");
    RENTSIM_FUZZ_CHECK(r.not_run() >= 0, "negative not-run count");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto format = static_cast<Format>(data[0] % 8);
    std::string text = rentsim::fuzz::text(data + 1, size - 1);
    const fs::path dir = fs::temp_directory_path() / ("rentsim-fuzz-jobs-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    static const RemovedAtExit cleanup{dir};  // the process's one folder, removed when it ends
    fs::path file = dir / "trace.csv";
    if (format == Format::pai) {
        const auto cut = text.find('\x1e');
        write(dir / "pai_task_table.csv", cut == std::string::npos ? std::string() : text.substr(cut + 1));
        if (cut != std::string::npos) text.resize(cut);
        file = dir / "pai_job_table.csv";
    }
    write(file, text);
    (void)sniff_job_format(file.string());
    for (const BadRowPolicy policy : {BadRowPolicy::skip, BadRowPolicy::fail}) {
        try {
            auto r = open_job_trace(file.string(), format, policy);
            check(*r);
        } catch (const rentsim::analysis::InputError&) {
        }
    }
    return 0;
}
