#include "analysis/jobs/import.hpp"

#include <algorithm>
#include <fstream>

#include "analysis/jobs/formats.hpp"
#include "analysis/jobs/records.hpp"

namespace rentsim::jobs {

const Registry<Format>& job_format_registry() {
    static const Registry<Format> registry{
        "job trace format",
        {{"philly", Format::philly, "Microsoft Philly cluster_job_log (JSON array of jobs with attempts)"},
         {"philly-csv", Format::philly_csv, "Philly jobs as the Pollux artifact's philly.csv"},
         {"gavel", Format::gavel, "Gavel's tab-separated trace (job type, steps, arrival, GPUs)"},
         {"pai", Format::pai, "Alibaba PAI 2020 pai_job_table.csv with pai_task_table.csv beside it"},
         {"helios", Format::helios, "SenseTime Helios cluster_log.csv"},
         {"acme", Format::acme, "Shanghai AI Lab AcmeTrace trace_seren.csv / trace_kalos.csv"},
         {"openb", Format::openb, "Alibaba GPU-sharing pod list (openb_pod_list_*.csv)"},
         {"csv", Format::csv, "rentsim's job CSV: submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok"}}};
    return registry;
}

std::unique_ptr<JobReader> open_job_trace(const std::string& path, Format format, BadRowPolicy policy) {
    switch (format) {
    case Format::philly: return open_philly_json(path, policy);
    case Format::philly_csv: return open_philly_csv(path, policy);
    case Format::gavel: return open_gavel(path, policy);
    case Format::pai: return open_pai(path, policy);
    case Format::helios: return open_helios(path, policy);
    case Format::acme: return open_acme(path, policy);
    case Format::openb: return open_openb(path, policy);
    case Format::csv: return open_rentsim_csv(path, policy);
    }
    return open_rentsim_csv(path, policy);  // unreachable: every Format is listed above
}

namespace {

std::vector<std::string_view> split(std::string_view line, char sep) {
    std::vector<std::string_view> out;
    for (;;) {
        const auto at = line.find(sep);
        out.push_back(line.substr(0, at));
        if (at == std::string_view::npos) return out;
        line.remove_prefix(at + 1);
    }
}

bool has_all(const std::vector<std::string_view>& fields, std::initializer_list<std::string_view> names) {
    return std::all_of(names.begin(), names.end(),
                       [&](std::string_view n) { return std::find(fields.begin(), fields.end(), n) != fields.end(); });
}

bool time_or_empty(std::string_view s) { return s.empty() || parse_number(s).has_value(); }

}  // namespace

std::optional<Format> sniff_job_format(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    std::string_view text = head;
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::nullopt;
    if (text[first] == '[') return Format::philly;
    // The first line that is not blank nor a comment.
    std::string_view line;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty() && line.front() != '#') break;
        line = {};
    }
    if (line.empty()) return std::nullopt;
    if (split(line, '\t').size() == 7) return Format::gavel;
    const auto f = split(line, ',');
    if (line == philly_csv_columns) return Format::philly_csv;
    if (has_all(f, {"job_id", "gpu_num", "submit_time", "type", "gpu_time"})) return Format::acme;
    if (has_all(f, {"job_id", "vc", "gpu_num", "submit_time"})) return Format::helios;
    if (has_all(f, {"num_gpu", "gpu_milli", "creation_time", "scheduled_time"})) return Format::openb;
    if (has_all(f, {"submit_s", "gpus", "duration_s"})) return Format::csv;
    if (line == pai_job_columns || (f.size() == 6 && time_or_empty(f[4]) && time_or_empty(f[5]))) return Format::pai;
    return std::nullopt;
}

}  // namespace rentsim::jobs
