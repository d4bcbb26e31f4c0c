// pai: Alibaba PAI 2020 (cluster-trace-gpu-v2020), the job table joined with its task table.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "analysis/jobs/formats.hpp"
#include "analysis/jobs/table_reader.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::jobs {

namespace {

// A job's tasks, summed.
struct Tasks {
    double gpu_percent = 0;  // sum of inst_num x plan_gpu
    std::string gpu_type;    // of its first task that asks for a GPU
    double start = std::numeric_limits<double>::infinity();
    double end = -std::numeric_limits<double>::infinity();
    bool unstarted = false, unfinished = false;
};

std::optional<double> optional_time(const std::string& s, bool& empty) {
    empty = s.empty();
    if (empty) return 0.0;
    const auto v = parse_number(s);
    if (!v || *v < 0) return std::nullopt;
    return v;
}

std::string task_table_path(const std::string& job_table) {
    const std::filesystem::path p(job_table);
    std::string name = p.filename().string();
    const auto at = name.find("job_table");
    if (at == std::string::npos)
        throw analysis::InputError(job_table, "",
                                   "a PAI trace is read from its job table, whose file name holds 'job_table' "
                                   "(pai_job_table.csv), with the task table beside it (pai_task_table.csv)");
    name.replace(at, 9, "task_table");
    const std::string task = (p.parent_path() / name).string();
    if (!std::filesystem::is_regular_file(task))
        throw analysis::InputError(task, "", "the PAI task table is missing: it must sit beside the job table " + job_table);
    return task;
}

}  // namespace

std::unique_ptr<JobReader> open_pai(const std::string& path, BadRowPolicy policy) {
    const std::string task_path = task_table_path(path);
    const std::string task_name = std::filesystem::path(task_path).filename().string();
    BadRowLog log(path, policy);
    auto task_bad = [&](std::int64_t line, const std::string& message) {
        if (policy == BadRowPolicy::fail) throw analysis::InputError(task_path, "line " + std::to_string(line), message);
        log.add(line, task_name + ": " + message);
    };

    std::unordered_map<std::string, Tasks> tasks;
    {
        RecordReader in(task_path, ',');
        RecordReader::Record r;
        bool first = true;
        while (in.next(r)) {
            if (first && !r.fields.empty() && r.fields[0] == "job_name") {  // a header row, where one was added
                first = false;
                continue;
            }
            first = false;
            if (!r.error.empty()) {
                task_bad(r.line, r.error);
                continue;
            }
            const auto& f = r.fields;
            if (f.size() != 10) {
                task_bad(r.line, "expected 10 fields (" + std::string(pai_task_columns) + "), got " + std::to_string(f.size()));
                continue;
            }
            const auto inst = parse_number(f[2]);
            if (!inst || *inst < 0 || *inst > static_cast<double>(max_job_gpus)) {
                task_bad(r.line, cell_message("inst_num", "a number of instances >= 0", f[2]));
                continue;
            }
            const auto plan_gpu = f[8].empty() ? std::optional<double>(0.0) : parse_number(f[8]);
            if (!plan_gpu || *plan_gpu < 0 || *plan_gpu > 100.0 * static_cast<double>(max_job_gpus)) {
                task_bad(r.line, cell_message("plan_gpu", "percent of a GPU >= 0, or empty", f[8]));
                continue;
            }
            bool no_start = false, no_end = false;
            const auto start = optional_time(f[4], no_start);
            const auto end = optional_time(f[5], no_end);
            if (!start || !end) {
                task_bad(r.line, cell_message(start ? "end_time" : "start_time", "seconds >= 0, or empty", start ? f[5] : f[4]));
                continue;
            }
            Tasks& t = tasks[f[0]];
            t.gpu_percent += *inst * *plan_gpu;
            if (*plan_gpu > 0 && t.gpu_type.empty()) t.gpu_type = f[9];
            if (no_start) t.unstarted = true;
            else t.start = std::min(t.start, *start);
            if (no_end) t.unfinished = true;
            else t.end = std::max(t.end, *end);
        }
    }

    std::vector<Job> jobs;
    std::int64_t not_run = 0;
    RecordReader in(path, ',');
    RecordReader::Record r;
    bool first = true;
    while (in.next(r)) {
        if (first && !r.fields.empty() && r.fields[0] == "job_name") {
            first = false;
            continue;
        }
        first = false;
        if (!r.error.empty()) {
            log.add(r.line, r.error);
            continue;
        }
        const auto& f = r.fields;
        if (f.size() != 6) {
            log.add(r.line, "expected 6 fields (" + std::string(pai_job_columns) + "), got " + std::to_string(f.size()));
            continue;
        }
        const auto submit = parse_number(f[4]);
        if (!submit || *submit < 0) {
            log.add(r.line, cell_message("start_time", "the submission in seconds >= 0", f[4]));
            continue;
        }
        auto it = tasks.find(f[0]);
        // No task, no GPU asked for, a task never started or still running: no GPU time to replay.
        if (it == tasks.end() || it->second.gpu_percent <= 0 || it->second.unstarted || it->second.unfinished ||
            it->second.end <= it->second.start) {
            ++not_run;
            continue;
        }
        const Tasks& t = it->second;
        if (t.gpu_percent > 100.0 * static_cast<double>(max_job_gpus)) {
            log.add(r.line, "its tasks ask for more than 1048576 GPUs (inst_num x plan_gpu summed)");
            continue;
        }
        Job job;
        job.id = f[0];
        job.user = f[2];
        job.submit_s = *submit;
        job.duration_s = t.end - t.start;
        // Percentages are sums of decimals such as 2 x 50.0: a hair above a whole GPU is that GPU.
        job.gpus = static_cast<int>(std::max(1.0, std::ceil(t.gpu_percent / 100.0 - 1e-9)));
        job.gpu_fraction = t.gpu_percent < 100.0 ? t.gpu_percent / 100.0 : 1.0;
        job.gpu_type = t.gpu_type;
        job.line = r.line;
        jobs.push_back(std::move(job));
    }
    return make_sorted_reader(std::move(jobs), std::move(log), not_run);
}

}  // namespace rentsim::jobs
