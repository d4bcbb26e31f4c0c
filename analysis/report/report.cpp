#include "analysis/report/report.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "analysis/report/fields.hpp"
#include "analysis/scenario/json_reader.hpp"

namespace rentsim::analysis {

namespace {

// A unit of time for display: seconds per unit, its name and the decimals shown.
struct TimeUnit {
    double seconds;
    const char* name;
    int decimals;
};

// The unit human_duration gives `s`: days from 2 days, hours from 2 hours, minutes from 2
// minutes, then seconds and milliseconds.
TimeUnit time_unit(double s) {
    if (s >= 2 * 86400.0) return {86400.0, "d", 2};
    if (s >= 2 * 3600.0) return {3600.0, "h", 2};
    if (s >= 120.0) return {60.0, "min", 1};
    if (s >= 1.0) return {1.0, "s", 1};
    return {1e-3, "ms", 1};
}

std::string in_unit(double s, const TimeUnit& u) { return fmt::format("{:.{}f} {}", s / u.seconds, u.decimals, u.name); }

}  // namespace

std::string human_duration(double s) { return in_unit(s, time_unit(s)); }

namespace {

std::string usd(double x) {
    if (x >= 1e6) return fmt::format("${:.2f}M", x / 1e6);
    if (x >= 1e4) return fmt::format("${:.0f}", x);
    return fmt::format("${:.2f}", x);
}

std::string pct(double part, double whole) { return whole > 0 ? fmt::format("{:.0f}%", 100.0 * part / whole) : "-"; }

bool eventful(const Result& r) {
    const auto& l = r.lifecycle;
    return l.plan_kind != price::PlanKind::on_demand || !l.provider.empty() || l.preemptions > 0 || l.failures > 0 || l.checkpoints > 0 ||
           l.resizes > 0 || l.storage_usd > 0 || l.egress_usd > 0 || r.replications > 0 || l.budget_alert_s >= 0 ||
           l.finished_fraction < 1 || l.deadline_met_fraction < 1;
}

std::string lifecycle_lines(const Result& r) {
    if (!eventful(r)) return {};
    const auto& l = r.lifecycle;
    std::string o;
    o += fmt::format("  pricing         {}{} at ${:.4f}/GPU-h, {} instance(s) of {} GPUs ({} GPUs billed)\n", l.plan,
                     l.provider.empty() ? std::string() : " " + l.provider + " " + l.instance + " " + l.region,
                     l.usd_per_gpu_hour, l.instances, l.gpus_per_instance, l.billed_gpus);
    o += fmt::format("  cost split      instances {}, storage {}, egress {}; {:.1f} instance-h held, {:.1f} billed\n",
                     usd(l.compute_usd), usd(l.storage_usd), usd(l.egress_usd), l.instance_hours, l.billed_instance_hours);
    if (l.checkpoint_interval_s > 0)
        o += fmt::format("  checkpoints     {:.1f} GB each, written in {:.1f} s every {}; {:.1f} taken\n", l.checkpoint_gb,
                         l.checkpoint_write_s, human_duration(l.checkpoint_interval_s), l.checkpoints);
    if (l.preemptions > 0 || l.failures > 0 || l.resizes > 0)
        o += fmt::format("  interruptions   {:.1f} preemptions, {:.1f} failures, {:.1f} resizes; {} of work lost, restart {:.0f} s\n",
                         l.preemptions, l.failures, l.resizes, human_duration(l.lost_work_s), l.restart_s);
    if (l.budget_alert_s >= 0) o += fmt::format("  budget          alert at {}\n", human_duration(l.budget_alert_s));
    if (l.finished_fraction - l.gave_up_fraction < 1 - 1e-12)
        o += fmt::format("  budget          stopped before the end in {:.0f}% of runs\n",
                         100 * (1 - l.finished_fraction - l.gave_up_fraction));
    if (l.gave_up_fraction > 0)
        o += fmt::format("  given up        in {:.0f}% of runs after 100x the work: interruptions outpace checkpoints\n",
                         100 * l.gave_up_fraction);
    if (l.deadline_h > 0)
        o += fmt::format("  deadline        {} met in {:.0f}% of runs\n", human_duration(l.deadline_h * 3600), 100 * l.deadline_met_fraction);
    if (r.replications > 0)
        o += fmt::format("  replications    {} (seed {}): time p5 {} p50 {} p95 {}; cost p5 {} p50 {} p95 {}\n",
                         r.replications, r.seed, human_duration(r.time_stats.p5), human_duration(r.time_stats.p50),
                         human_duration(r.time_stats.p95), usd(r.cost_stats.p5), usd(r.cost_stats.p50), usd(r.cost_stats.p95));
    return o;
}

// "18.22 h ±8%": the duration with the median validation error of its GPU family and
// workload kind, or "18.22 h (unvalidated)" outside every validated region.
std::string duration_with_accuracy(double s, const Accuracy& a) {
    return human_duration(s) + (a.check_rows > 0 ? fmt::format(" ±{:.0f}%", 100 * a.median_error) : " (unvalidated)");
}

std::string memory_parts_line(const Result& r) {
    const auto& m = r.memory;
    return fmt::format("  memory by part  weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f}, "
                       "workspace {:.1f} GiB\n",
                       m.params_gib, m.gradients_gib, m.optimizer_gib, m.activations_gib, m.workspace_gib);
}

std::string single(const Result& r) {
    std::string o;
    // The software the figures assume: the framework profile, and for language models the
    // attention kernel it (or the scenario) chose.
    const std::string stack = r.framework + (r.throughput_tokens_per_s > 0 ? ", " + r.attention + " attention" : "");
    // An amount given in tokens is a fractional number of samples; the line rounds it to whole ones.
    o += fmt::format("{}: {} on {} x {} ({}, {}), {:.0f} samples in {} steps of {}\n", r.name, r.model, r.gpus, r.gpu,
                     r.precision, stack, r.samples, r.iterations, r.global_batch);
    if (!r.from_instance.empty()) o += fmt::format("  from instance   {}\n", r.from_instance);
    if (!r.step_source.empty()) o += fmt::format("  step from       {}\n", r.step_source);
    if (r.layout.searched) {
        o += fmt::format("  layout          {} (searched: {} candidates)\n",
                         r.layout.chosen.empty() ? std::string("none fits") : r.layout.chosen, r.layout.candidates);
        if (!r.layout.runner_up.empty()) o += fmt::format("  runner-up       {}\n", r.layout.runner_up);
    }
    if (!r.fits) {
        o += fmt::format("  does not fit{}: needs {:.1f} GiB per GPU, {:.1f} GiB available\n",
                         r.note.empty() ? std::string() : " (" + r.note + ")", r.memory_per_gpu_gib, r.memory_available_gib);
        if (r.memory_per_gpu_gib > 0) o += memory_parts_line(r);
        return o;
    }
    // A run that did not finish says so before any figure that could pass for a finished one.
    if (r.status != "done") o += fmt::format("  status          {}\n", r.status);
    if (r.accuracy.check_rows > 0)
        o += fmt::format("  time to train   {} ({:.0f} s)\n", duration_with_accuracy(r.time_to_train_s, r.accuracy),
                         r.time_to_train_s);
    else
        o += fmt::format("  time to train   {} ({:.0f} s, unvalidated)\n", human_duration(r.time_to_train_s), r.time_to_train_s);
    o += fmt::format("  cost            {} (billed {:.0f} s per GPU)\n", usd(r.cost_usd), r.billed_s);
    o += fmt::format("  throughput      {:.1f} samples/s", r.throughput_samples_per_s);
    if (r.throughput_tokens_per_s > 0) o += fmt::format(", {:.0f} tokens/s", r.throughput_tokens_per_s);
    o += fmt::format("\n  step            {:.2f} ms: compute {:.2f} ms ({}), exposed comm {:.2f} ms ({}), input stall {:.2f} ms ({})\n",
                     r.iteration_s * 1e3, r.breakdown.compute_s * 1e3, pct(r.breakdown.compute_s, r.iteration_s),
                     r.breakdown.exposed_comm_s * 1e3, pct(r.breakdown.exposed_comm_s, r.iteration_s),
                     r.breakdown.input_stall_s * 1e3, pct(r.breakdown.input_stall_s, r.iteration_s));
    if (r.breakdown.pipeline_bubble_s > 0)
        o += fmt::format("  pipeline        tp {} x pp {} x dp {}, bubble {:.2f} ms ({})\n", r.tp, r.pp, r.dp,
                         r.breakdown.pipeline_bubble_s * 1e3, pct(r.breakdown.pipeline_bubble_s, r.iteration_s));
    if (r.evaluations > 0)
        o += fmt::format("  evaluation      {} pass{}, {} ({} of the time to train)\n", r.evaluations, r.evaluations == 1 ? "" : "es",
                         human_duration(r.evaluation_s), pct(r.evaluation_s, r.time_to_train_s));
    if (r.rl.ppo_epochs > 0)
        o += fmt::format("  rollout         {:.2f} ms per step ({}): generation {:.2f} s and scoring {:.2f} s per rollout over {} "
                         "PPO epoch{}, K/V cache {:.1f} GiB\n",
                         r.rl.rollout_s * 1e3, pct(r.rl.rollout_s, r.iteration_s), r.rl.generation_s, r.rl.scoring_s,
                         r.rl.ppo_epochs, r.rl.ppo_epochs == 1 ? "" : "s", r.rl.kv_cache_gib);
    o += fmt::format("  per GPU         {:.1f} TFLOP/s, MFU {:.1f}%, memory {:.1f} of {:.0f} GiB\n", r.tflops_per_gpu,
                     r.mfu * 100, r.memory_per_gpu_gib, r.memory_available_gib);
    if (r.layout.searched) o += memory_parts_line(r);
    if (r.storage_pipeline) {
        if (r.staging_s > 0) o += fmt::format("  staging         {} copying the dataset to local NVMe (billed)\n", human_duration(r.staging_s));
        o += fmt::format("  input           bound by {}; GPU waited {} ({:.1f}% of training)", input_bound_registry().name_of(r.input.bound_by),
                         human_duration(r.input.input_bound_s), 100 * r.input.stall_fraction);
        if (r.input.workers_to_compute_bound > 0)
            o += fmt::format("; compute-bound from {} worker{} per GPU", r.input.workers_to_compute_bound,
                             r.input.workers_to_compute_bound == 1 ? "" : "s");
        o += "\n";
        if (!r.epochs.empty()) {
            o += "  stall by epoch ";
            for (std::size_t e = 0; e < r.epochs.size() && e < 5; ++e)
                o += fmt::format("{}{}: {:.1f}%", e ? ", " : " ", e + 1, 100 * r.epochs[e].stall_fraction);
            if (r.epochs.size() > 5) o += ", ...";
            o += "\n";
        }
    }
    o += lifecycle_lines(r);
    return o;
}

}  // namespace

namespace {

double number(const FieldValue& v) {
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    throw std::logic_error("a comparison-table cell expected a number");
}

std::string text(const FieldValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return std::to_string(*u);
    if (std::holds_alternative<std::nullptr_t>(v)) return {};
    throw std::logic_error("a comparison-table cell expected a string or an integer");
}

// How a comparison-table cell shows the fields of its column (a, b, c: the first, second
// and third). Where a number it needs is null, the cell is "-".
enum class Cell {
    text,               // a string or an integer as it is; null: empty
    count_or_dash,      // an integer; null: "-"
    duration,           // human_duration(a)
    duration_accuracy,  // duration_with_accuracy(a, the result's accuracy)
    duration_or_dash,   // human_duration(a), "-" for 0
    usd,                // usd(a)
    fixed1,             // a to one decimal
    milliseconds,       // a (seconds) in ms, to one decimal
    share,              // a over b, as a whole percentage
    percent1,           // a (a fraction) as a percentage to one decimal
    percent0,           // the same, to no decimal
    sum1,               // a + b + c to one decimal
    duration_range,     // "a - b" as durations
    usd_range,          // "a - b" in USD
    memory_of,          // "a/b" GiB
    first_epoch_stall,  // the stall fraction of the first epoch (field `epochs`)
    last_epoch_stall,   // and of the last
    does_not_fit,
    whole,              // a rounded to a whole number
    per_million,        // a x 1e6 in USD (a price per sample, shown per million samples)
    dash,
};

bool pipeline_parallel(const Result& r) { return r.pp > 1; }
bool storage_pipeline(const Result& r) { return r.storage_pipeline; }
bool evaluated(const Result& r) { return r.evaluations > 0; }
bool deadline(const Result& r) { return r.lifecycle.deadline_h > 0; }
bool replicated(const Result& r) { return r.replications > 0; }
bool not_done(const Result& r) { return r.fits && r.status != "done"; }
bool windowed(const Result& r) { return r.lifecycle.window_h > 0; }

// One column of the comparison table of a sweep: it shows the fields it names, by their
// public names, as `fit` says for a run that fits and as `unfit` says for one that does not.
struct Column {
    std::string_view header;
    bool (*shown)(const Result&);  // shown when some point has it; null: always
    Cell fit, unfit;
    std::array<std::string_view, 3> fields;
};

constexpr Column columns[] = {
    {"point", nullptr, Cell::text, Cell::text, {"point"}},
    {"status", not_done, Cell::text, Cell::text, {"status"}},
    {"gpus", nullptr, Cell::text, Cell::text, {"gpus"}},
    {"time to train", nullptr, Cell::duration_accuracy, Cell::does_not_fit, {"time_to_train_s"}},
    {"cost", nullptr, Cell::usd, Cell::dash, {"cost_usd"}},
    {"samples/s", nullptr, Cell::fixed1, Cell::dash, {"throughput_samples_per_s"}},
    {"step ms", nullptr, Cell::milliseconds, Cell::dash, {"iteration_s"}},
    {"compute", nullptr, Cell::share, Cell::dash, {"breakdown.compute_s", "iteration_s"}},
    {"exp. comm", nullptr, Cell::share, Cell::dash, {"breakdown.exposed_comm_s", "iteration_s"}},
    {"input stall", nullptr, Cell::share, Cell::dash, {"breakdown.input_stall_s", "iteration_s"}},
    {"bubble", pipeline_parallel, Cell::share, Cell::dash, {"breakdown.pipeline_bubble_s", "iteration_s"}},
    {"MFU", nullptr, Cell::percent1, Cell::dash, {"mfu"}},
    {"mem GiB", nullptr, Cell::fixed1, Cell::memory_of, {"memory_per_gpu_gib", "memory_available_gib"}},
    {"evaluation", evaluated, Cell::duration_or_dash, Cell::dash, {"evaluation_s"}},
    {"staging", storage_pipeline, Cell::duration_or_dash, Cell::dash, {"staging_s"}},
    {"bound by", storage_pipeline, Cell::text, Cell::dash, {"input.bound_by"}},
    {"stall e1", storage_pipeline, Cell::first_epoch_stall, Cell::dash, {"epochs"}},
    {"stall last", storage_pipeline, Cell::last_epoch_stall, Cell::dash, {"epochs"}},
    {"workers needed", storage_pipeline, Cell::count_or_dash, Cell::dash, {"input.workers_to_compute_bound"}},
    {"interrupts", eventful, Cell::sum1, Cell::dash, {"lifecycle.preemptions", "lifecycle.failures", "lifecycle.resizes"}},
    {"lost work", eventful, Cell::duration, Cell::dash, {"lifecycle.lost_work_s"}},
    {"deadline met", deadline, Cell::percent0, Cell::dash, {"lifecycle.deadline_met_fraction"}},
    {"samples trained", windowed, Cell::whole, Cell::dash, {"samples"}},
    {"$/M samples", windowed, Cell::per_million, Cell::dash, {"cost_per_sample_usd"}},
    {"time p5-p95", replicated, Cell::duration_range, Cell::dash, {"replications.time_to_train_s.p5", "replications.time_to_train_s.p95"}},
    {"cost p5-p95", replicated, Cell::usd_range, Cell::dash, {"replications.cost_usd.p5", "replications.cost_usd.p95"}},
};

// `unit`: the time unit of the column, chosen once from its largest value so that a column
// never mixes hours and days.
std::string cell(const Column& c, const std::array<const Field*, 3>& f, const Result& r, const TimeUnit& unit) {
    std::array<FieldValue, 3> v;
    bool null = false;
    for (std::size_t i = 0; i < f.size(); ++i)
        if (f[i] && f[i]->get) {
            v[i] = f[i]->get(r);
            null = null || std::holds_alternative<std::nullptr_t>(v[i]);
        }
    // A point that broke a rule has no figures: its name, "invalid" and dashes.
    if (r.status == "invalid" && c.header != "point") return c.header == "time to train" ? "invalid" : "-";
    const Cell how = r.fits ? c.fit : c.unfit;
    const auto x = [&](std::size_t i) { return number(v[i]); };
    const auto stall = [](const EpochResult& e) { return fmt::format("{:.1f}%", 100 * e.stall_fraction); };
    switch (how) {
        case Cell::text: return text(v[0]);
        case Cell::does_not_fit: return r.status == "invalid" ? "invalid" : "does not fit";
        case Cell::dash: return "-";
        case Cell::first_epoch_stall: return r.epochs.empty() ? "-" : stall(r.epochs.front());
        case Cell::last_epoch_stall: return r.epochs.empty() ? "-" : stall(r.epochs.back());
        default: break;
    }
    if (null) return "-";
    switch (how) {
        case Cell::count_or_dash: return text(v[0]);
        case Cell::duration: return in_unit(x(0), unit);
        case Cell::duration_accuracy:
            return in_unit(x(0), unit) +
                   (r.accuracy.check_rows > 0 ? fmt::format(" ±{:.0f}%", 100 * r.accuracy.median_error) : " (unvalidated)");
        case Cell::duration_or_dash: return x(0) > 0 ? in_unit(x(0), unit) : "-";
        case Cell::usd: return usd(x(0));
        case Cell::fixed1: return fmt::format("{:.1f}", x(0));
        case Cell::milliseconds: return fmt::format("{:.1f}", x(0) * 1e3);
        case Cell::share: return pct(x(0), x(1));
        case Cell::percent1: return fmt::format("{:.1f}%", x(0) * 100);
        case Cell::percent0: return fmt::format("{:.0f}%", 100 * x(0));
        case Cell::sum1: return fmt::format("{:.1f}", x(0) + x(1) + x(2));
        case Cell::duration_range: return in_unit(x(0), unit) + " - " + in_unit(x(1), unit);
        case Cell::usd_range: return usd(x(0)) + " - " + usd(x(1));
        case Cell::memory_of: return fmt::format("{:.1f}/{:.0f}", x(0), x(1));
        case Cell::whole: return fmt::format("{:.0f}", x(0));
        case Cell::per_million: return usd(x(0) * 1e6);
        default: return "-";
    }
}

}  // namespace

namespace {

// The comparison table's cells: a header row, then one row per result; columns as `columns`
// says, those of no point left out.
std::vector<std::vector<std::string>> table_rows(const std::vector<Result>& results) {
    std::vector<std::vector<std::string>> rows(results.size() + 1);
    for (const Column& c : columns) {
        if (c.shown && std::none_of(results.begin(), results.end(), c.shown)) continue;
        std::array<const Field*, 3> f{};
        for (std::size_t i = 0; i < f.size(); ++i)
            if (!c.fields[i].empty()) f[i] = &field(c.fields[i]);
        rows[0].emplace_back(c.header);
        // One time unit per column, from its largest value.
        double largest = 0;
        for (const auto& r : results)
            for (std::size_t k = 0; k < f.size(); ++k)
                if (f[k] && f[k]->get && r.fits)
                    if (const auto v = f[k]->get(r); std::holds_alternative<double>(v)) largest = std::max(largest, std::get<double>(v));
        const TimeUnit unit = time_unit(largest);
        for (std::size_t i = 0; i < results.size(); ++i) rows[i + 1].push_back(cell(c, f, results[i], unit));
    }
    return rows;
}

}  // namespace

std::string results_to_markdown(const std::vector<Result>& results) {
    const auto rows = table_rows(results);
    // `|` would end a cell: sweep labels of JSON values never hold one, but notes might.
    const auto escaped = [](std::string x) {
        for (std::size_t i = x.find('|'); i != std::string::npos; i = x.find('|', i + 2)) x.replace(i, 1, "\\|");
        return x;
    };
    std::string o = results.empty() ? std::string() : "**" + escaped(results[0].name) + "**\n\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        o += "|";
        for (const auto& c : rows[i]) o += " " + escaped(c) + " |";
        o += "\n";
        if (i == 0) {
            o += "|";
            for (std::size_t c = 0; c < rows[i].size(); ++c) o += c == 0 ? "---|" : "---:|";
            o += "\n";
        }
    }
    std::string notes;
    for (const auto& r : results)
        if (!r.fits && !r.note.empty()) notes += "- " + escaped(r.point.empty() ? r.name : r.point) + ": " + escaped(r.note) + "\n";
    if (!notes.empty()) o += "\n" + notes;
    return o;
}

std::string format_results_text(const std::vector<Result>& results) {
    if (results.size() == 1 && results[0].point.empty()) return single(results[0]);
    std::string o = results.empty() ? std::string() : results[0].name + "\n";
    // Values taken from catalog instances, once each (a sweep over instances lists several).
    std::vector<std::string> instances;
    for (const auto& r : results)
        if (!r.from_instance.empty() && std::find(instances.begin(), instances.end(), r.from_instance) == instances.end())
            instances.push_back(r.from_instance);
    for (const auto& i : instances) o += "from instance " + i + "\n";
    const auto rows = table_rows(results);
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::string line;
        for (std::size_t c = 0; c < rows[i].size(); ++c) {
            if (c) line += "  ";
            // First column left-aligned, numbers right-aligned.
            line += c == 0 ? fmt::format("{:<{}}", rows[i][c], width[c]) : fmt::format("{:>{}}", rows[i][c], width[c]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        o += line + "\n";
        if (i == 0) o += std::string(line.size(), '-') + "\n";
    }
    // Why points that do not fit have no times, each on a line of its own.
    for (const auto& r : results)
        if (!r.fits && !r.note.empty()) o += fmt::format("{}: {}\n", r.point.empty() ? r.name : r.point, r.note);
    return o;
}

namespace {

Json json_of(const FieldValue& v) {
    return std::visit([](const auto& x) { return Json(x); }, v);
}

// Sets j's member at a dotted name, creating the objects on the way.
void put(Json& j, std::string_view dotted, Json v) {
    Json* node = &j;
    std::size_t start = 0;
    for (auto dot = dotted.find('.'); dot != std::string_view::npos; start = dot + 1, dot = dotted.find('.', start))
        node = &(*node)[std::string(dotted.substr(start, dot - start))];
    (*node)[std::string(dotted.substr(start))] = std::move(v);
}

Json epochs_json(const Result& r) {
    Json a = Json::array();
    for (std::size_t e = 0; e < r.epochs.size(); ++e) {
        Json x = Json::object();
        for (const EpochField& f : epoch_fields()) x[std::string(f.name)] = json_of(f.get(r.epochs[e], e + 1));
        a.push_back(std::move(x));
    }
    return a;
}

Json result_json(const Result& r) {
    Json j = Json::object();
    for (const bool last : {false, true})
        for (const Field& f : result_fields()) {
            if (!carries(f.outputs, Outputs::json) || carries(f.outputs, Outputs::json_last) != last) continue;
            const auto v = reported_value(f, r);
            if (!v) continue;
            if (!r.fits && f.presence == Presence::fits)
                j[std::string(f.name.substr(0, f.name.find('.')))] = nullptr;  // a nested object as a whole
            else if (f.kind == Kind::epochs)
                put(j, f.name, epochs_json(r));
            else
                put(j, f.name, json_of(*v));
        }
    return j;
}

std::string csv_quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

std::string results_to_json(const std::vector<Result>& results) {
    Json j;
    j["schema"] = 1;
    j["results"] = Json::array();
    for (const auto& r : results) j["results"].push_back(result_json(r));
    return j.dump(2) + "\n";
}

std::string results_to_csv(const std::vector<Result>& results) {
    std::string o;
    for (const Field& f : result_fields())
        if (carries(f.outputs, Outputs::csv)) o += (o.empty() ? "" : ",") + std::string(csv_column(f));
    o += "\n";
    for (const auto& r : results) {
        bool first = true;
        for (const Field& f : result_fields()) {
            if (!carries(f.outputs, Outputs::csv)) continue;
            const auto v = reported_value(f, r);
            std::string c;
            if (v && !std::holds_alternative<std::nullptr_t>(*v))
                c = std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : json_of(*v).dump();
            o += (first ? "" : ",") + csv_quote(c);
            first = false;
        }
        o += "\n";
    }
    return o;
}

}  // namespace rentsim::analysis
