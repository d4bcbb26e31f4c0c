// The row-by-row formats: philly-csv, gavel, helios, acme, openb and rentsim's own csv.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/jobs/formats.hpp"
#include "analysis/jobs/table_reader.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/csv.hpp"
#include "models/embedded.hpp"
#include "models/names.hpp"

namespace rentsim::jobs {

std::span<const EmbeddedFile> shipped_job_files();  // generated from data/ (CMakeLists.txt)

namespace {

const char* const whole_gpus = "a whole number of GPUs from 0 to 1048576";
const char* const date_expected = "a date 'YYYY-MM-DD HH:MM:SS'";

std::optional<std::int64_t> gpu_count(std::string_view s) {
    const auto n = parse_integer(s);
    if (!n || *n < 0 || *n > max_job_gpus) return std::nullopt;
    return n;
}

std::optional<double> non_negative(std::string_view s) {
    const auto v = parse_number(s);
    if (!v || *v < 0) return std::nullopt;
    return v;
}

// A header-row format: the field count every row must have.
class HeaderParser : public RowParser {
public:
    bool has_header() const override { return true; }

protected:
    bool width_ok(const RecordReader::Record& r, Row& bad) const {
        if (r.fields.size() == width_) return true;
        bad = bad_row("expected " + std::to_string(width_) + " fields as in the header, got " + std::to_string(r.fields.size()));
        return false;
    }
    std::size_t width_ = 0;
};

// ---- philly-csv: the Pollux artifact's philly.csv ----
class PhillyCsvParser : public HeaderParser {
public:
    void header(const std::string& file, const RecordReader::Record& h) override {
        auto col = [&](std::string_view n) { return column(file, h, n, "the Pollux philly.csv", philly_csv_columns); };
        ts_ = col("timestamp"), dur_ = col("duration"), gpus_ = col("num_gpus"), vc_ = col("cluster");
        width_ = h.fields.size();
    }
    Row parse(const RecordReader::Record& r, Job& job) override {
        Row bad;
        if (!width_ok(r, bad)) return bad;
        const auto& f = r.fields;
        const auto submit = parse_datetime(f[ts_]);
        if (!submit) return bad_row(cell_message("timestamp", date_expected, f[ts_]));
        const auto duration = non_negative(f[dur_]);
        if (!duration) return bad_row(cell_message("duration", "seconds >= 0", f[dur_]));
        const auto gpus = gpu_count(f[gpus_]);
        if (!gpus) return bad_row(cell_message("num_gpus", whole_gpus, f[gpus_]));
        if (*gpus == 0 || *duration == 0) return not_run_row();
        job.id = "line " + std::to_string(r.line);
        job.submit_s = *submit;
        job.duration_s = *duration;
        job.gpus = static_cast<int>(*gpus);
        job.user = job.vc = f[vc_];
        return job_row();
    }

private:
    std::size_t ts_ = 0, dur_ = 0, gpus_ = 0, vc_ = 0;
};

// ---- gavel: tab-separated, no header ----
struct GavelTable {
    std::vector<std::string> names;
    std::vector<std::string_view> views;
    std::map<std::string, double, std::less<>> v100;
};

const GavelTable& gavel_table() {
    static const GavelTable table = [] {
        GavelTable t;
        const std::string_view text = embedded_text(shipped_job_files(), "gavel_throughputs");
        const auto records = parse_csv_records(text, "gavel_throughputs.csv");
        for (std::size_t i = 1; i < records.size(); ++i) {
            const auto& f = records[i].fields;
            const auto v = f.size() == 4 ? parse_number(f[1]) : std::nullopt;
            if (!v || *v <= 0) throw std::logic_error("gavel_throughputs.csv line " + std::to_string(records[i].line) + ": bad row");
            t.v100.emplace(f[0], *v);
            t.names.push_back(f[0]);
        }
        for (const auto& n : t.names) t.views.push_back(n);
        return t;
    }();
    return table;
}

class GavelParser : public RowParser {
public:
    bool has_header() const override { return false; }
    void header(const std::string&, const RecordReader::Record&) override {}
    Row parse(const RecordReader::Record& r, Job& job) override {
        const auto& f = r.fields;
        if (f.size() != 7)
            return bad_row("expected 7 tab-separated fields (job type, command, step flag, needs data dir, total steps, "
                           "arrival time s, scale factor), got " + std::to_string(f.size()));
        const double* steps_per_s = gavel_v100_steps_per_s(f[0]);
        if (!steps_per_s) return bad_row("field 1: " + gavel_unknown_type_message(f[0]));
        const auto steps = parse_integer(f[4]);
        if (!steps || *steps <= 0) return bad_row("field 5 (total steps): expected a whole number > 0, got " + quote_cell(f[4]));
        const auto arrival = non_negative(f[5]);
        if (!arrival) return bad_row("field 6 (arrival time): expected seconds >= 0, got " + quote_cell(f[5]));
        const auto gpus = gpu_count(f[6]);
        if (!gpus || *gpus == 0)
            return bad_row("field 7 (scale factor): expected a whole number of GPUs from 1 to 1048576, got " + quote_cell(f[6]));
        job.id = "line " + std::to_string(r.line);
        job.submit_s = *arrival;
        job.gpus = static_cast<int>(*gpus);
        job.duration_s = static_cast<double>(*steps) / *steps_per_s;
        job.gpu_type = "V100";
        job.workload = f[0];
        return job_row();
    }
};

// ---- helios and acme: Slurm job logs ----
class SlurmLogParser : public HeaderParser {
public:
    explicit SlurmLogParser(bool acme) : acme_(acme) {}
    void header(const std::string& file, const RecordReader::Record& h) override {
        const std::string_view format = acme_ ? "an AcmeTrace trace_*.csv" : "a Helios cluster_log.csv";
        const std::string_view cols = acme_ ? acme_columns : helios_columns;
        auto col = [&](std::string_view n) { return column(file, h, n, format, cols); };
        id_ = col("job_id"), user_ = col("user"), gpus_ = col("gpu_num"), submit_ = col("submit_time");
        start_ = col("start_time"), dur_ = col("duration");
        if (acme_) type_ = col("type");
        else vc_ = col("vc");
        width_ = h.fields.size();
    }
    Row parse(const RecordReader::Record& r, Job& job) override {
        Row bad;
        if (!width_ok(r, bad)) return bad;
        const auto& f = r.fields;
        auto submit = parse_datetime(f[submit_]);
        if (!submit) submit = non_negative(f[submit_]);  // a Unix time also reads
        if (!submit) return bad_row(cell_message("submit_time", "a date 'YYYY-MM-DD HH:MM:SS[+HH:MM]' or Unix seconds", f[submit_]));
        const auto gpus = gpu_count(f[gpus_]);
        if (!gpus) return bad_row(cell_message("gpu_num", whole_gpus, f[gpus_]));
        if (f[start_].empty() && f[dur_].empty()) return not_run_row();  // never started
        const auto duration = non_negative(f[dur_]);
        if (!duration) return bad_row(cell_message("duration", "seconds >= 0", f[dur_]));
        if (*gpus == 0 || *duration == 0) return not_run_row();
        job.id = f[id_];
        job.user = f[user_];
        job.submit_s = *submit;
        job.duration_s = *duration;
        job.gpus = static_cast<int>(*gpus);
        if (acme_) job.workload = f[type_];
        else job.vc = f[vc_];
        return job_row();
    }

private:
    bool acme_;
    std::size_t id_ = 0, user_ = 0, gpus_ = 0, submit_ = 0, start_ = 0, dur_ = 0, type_ = 0, vc_ = 0;
};

// ---- openb: Alibaba's GPU-sharing pod list ----
class OpenbParser : public HeaderParser {
public:
    void header(const std::string& file, const RecordReader::Record& h) override {
        auto col = [&](std::string_view n) { return column(file, h, n, "an openb pod list", openb_columns); };
        name_ = col("name"), gpus_ = col("num_gpu"), milli_ = col("gpu_milli"), spec_ = col("gpu_spec");
        qos_ = col("qos"), created_ = col("creation_time"), deleted_ = col("deletion_time"), scheduled_ = col("scheduled_time");
        width_ = h.fields.size();
    }
    Row parse(const RecordReader::Record& r, Job& job) override {
        Row bad;
        if (!width_ok(r, bad)) return bad;
        const auto& f = r.fields;
        const auto created = non_negative(f[created_]);
        if (!created) return bad_row(cell_message("creation_time", "seconds >= 0", f[created_]));
        const auto gpus = gpu_count(f[gpus_]);
        if (!gpus) return bad_row(cell_message("num_gpu", whole_gpus, f[gpus_]));
        if (*gpus == 0) return not_run_row();  // a CPU-only pod
        const auto milli = parse_integer(f[milli_]);
        if (!milli || *milli <= 0 || *milli > 1000)
            return bad_row(cell_message("gpu_milli", "thousandths of a GPU from 1 to 1000", f[milli_]));
        if (f[scheduled_].empty() || f[deleted_].empty()) return not_run_row();  // never placed (Pending)
        const auto scheduled = non_negative(f[scheduled_]);
        if (!scheduled) return bad_row(cell_message("scheduled_time", "seconds >= 0 or empty", f[scheduled_]));
        const auto deleted = non_negative(f[deleted_]);
        if (!deleted) return bad_row(cell_message("deletion_time", "seconds >= 0 or empty", f[deleted_]));
        if (*deleted <= *scheduled) return not_run_row();
        job.id = f[name_];
        job.submit_s = *created;
        job.duration_s = *deleted - *scheduled;
        job.gpus = static_cast<int>(*gpus);
        job.gpu_fraction = *gpus == 1 ? static_cast<double>(*milli) / 1000.0 : 1.0;
        job.gpu_type = f[spec_];
        job.spot_ok = f[qos_] == "BE";
        return job_row();
    }

private:
    std::size_t name_ = 0, gpus_ = 0, milli_ = 0, spec_ = 0, qos_ = 0, created_ = 0, deleted_ = 0, scheduled_ = 0;
};

// ---- csv: rentsim's own ----
class RentsimCsvParser : public HeaderParser {
public:
    void header(const std::string& file, const RecordReader::Record& h) override {
        static constexpr std::string_view known[] = {"submit_s", "gpus", "duration_s", "gpu_type", "user",
                                                     "priority", "spot_ok", "id", "workload"};
        for (std::size_t i = 0; i < h.fields.size(); ++i) {
            const std::string& c = h.fields[i];
            const auto* k = std::find(std::begin(known), std::end(known), c);
            if (k == std::end(known))
                throw analysis::InputError(file, "line " + std::to_string(h.line),
                                           unknown_name_message("column", c, known) +
                                               " (required: " + std::string(rentsim_csv_columns) + ")");
            for (std::size_t j = 0; j < i; ++j)
                if (h.fields[j] == c)
                    throw analysis::InputError(file, "line " + std::to_string(h.line), "column '" + c + "' appears twice");
        }
        auto col = [&](std::string_view n) { return column(file, h, n, "the rentsim job CSV", rentsim_csv_columns); };
        submit_ = col("submit_s"), gpus_ = col("gpus"), dur_ = col("duration_s"), type_ = col("gpu_type");
        user_ = col("user"), prio_ = col("priority"), spot_ = col("spot_ok");
        for (std::size_t i = 0; i < h.fields.size(); ++i) {
            if (h.fields[i] == "id") id_ = i;
            if (h.fields[i] == "workload") workload_ = i;
        }
        width_ = h.fields.size();
    }
    Row parse(const RecordReader::Record& r, Job& job) override {
        Row bad;
        if (!width_ok(r, bad)) return bad;
        const auto& f = r.fields;
        const auto submit = non_negative(f[submit_]);
        if (!submit) return bad_row(cell_message("submit_s", "seconds >= 0", f[submit_]));
        const auto gpus = gpu_count(f[gpus_]);
        if (!gpus || *gpus == 0) return bad_row(cell_message("gpus", "a whole number of GPUs from 1 to 1048576", f[gpus_]));
        const auto duration = parse_number(f[dur_]);
        if (!duration || *duration <= 0) return bad_row(cell_message("duration_s", "seconds > 0", f[dur_]));
        const auto prio = parse_integer(f[prio_]);
        if (!prio || *prio < -1000000 || *prio > 1000000)
            return bad_row(cell_message("priority", "a whole number from -1000000 to 1000000", f[prio_]));
        const std::string& spot = f[spot_];
        if (spot != "true" && spot != "false" && spot != "1" && spot != "0")
            return bad_row(cell_message("spot_ok", "true, false, 1 or 0", spot));
        job.id = id_ && !f[*id_].empty() ? f[*id_] : "line " + std::to_string(r.line);
        job.submit_s = *submit;
        job.gpus = static_cast<int>(*gpus);
        job.duration_s = *duration;
        job.gpu_type = f[type_];
        job.user = f[user_];
        job.priority = static_cast<int>(*prio);
        job.spot_ok = spot == "true" || spot == "1";
        if (workload_) job.workload = f[*workload_];
        return job_row();
    }

private:
    std::size_t submit_ = 0, gpus_ = 0, dur_ = 0, type_ = 0, user_ = 0, prio_ = 0, spot_ = 0;
    std::optional<std::size_t> id_, workload_;
};

}  // namespace

const double* gavel_v100_steps_per_s(std::string_view job_type) {
    const auto& t = gavel_table();
    auto it = t.v100.find(job_type);
    return it == t.v100.end() ? nullptr : &it->second;
}

std::string gavel_unknown_type_message(std::string_view job_type) {
    return unknown_name_message("Gavel job type", job_type, gavel_table().views);
}

std::unique_ptr<JobReader> open_philly_csv(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, ',', std::make_unique<PhillyCsvParser>(), Order::sort, policy, "philly.csv");
}
std::unique_ptr<JobReader> open_gavel(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, '\t', std::make_unique<GavelParser>(), Order::sorted, policy, "a Gavel trace");
}
std::unique_ptr<JobReader> open_helios(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, ',', std::make_unique<SlurmLogParser>(false), Order::check, policy, "a Helios log");
}
std::unique_ptr<JobReader> open_acme(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, ',', std::make_unique<SlurmLogParser>(true), Order::check, policy, "an Acme trace");
}
std::unique_ptr<JobReader> open_openb(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, ',', std::make_unique<OpenbParser>(), Order::check, policy, "an openb pod list");
}
std::unique_ptr<JobReader> open_rentsim_csv(const std::string& path, BadRowPolicy policy) {
    return make_table_reader(path, ',', std::make_unique<RentsimCsvParser>(), Order::sorted, policy, "a rentsim job CSV");
}

}  // namespace rentsim::jobs
