// rentsim: the command-line program. It parses arguments, calls the analysis library and
// turns errors into exit statuses: 0 success, 1 standard output could not be written (other
// than to a reader that closed it), 2 bad input, 3 internal error (a bug), 130 and 143 a run
// or sweep stopped by SIGINT or SIGTERM (its finished points kept for --resume).
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/cli/timeline_command.hpp"
#include "analysis/cli/check_command.hpp"
#include "analysis/cli/merge_command.hpp"
#include "analysis/cli/mpi_sweep.hpp"
#include "analysis/cli/replay_command.hpp"
#include "analysis/cli/plot_commands.hpp"
#include "analysis/cli/capacity_commands.hpp"
#include "analysis/report/atomic_file.hpp"
#include "analysis/report/progress.hpp"
#include "analysis/report/report.hpp"
#include "analysis/run/run.hpp"
#include "analysis/run/shard.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/studies/breakeven.hpp"
#include "analysis/studies/calibrate.hpp"
#include "analysis/studies/collective.hpp"
#include "analysis/studies/fabric.hpp"
#include "analysis/studies/validate.hpp"
#include "models/compute/gpu.hpp"
#include "models/network/network.hpp"
#include "models/network/topology.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/catalog.hpp"
#include "models/registry.hpp"
#include "models/workloads/zoo.hpp"

namespace {

using namespace rentsim;

// Bounds of the `run` and `sweep` options.
constexpr int kMaxReplications = 100000;
constexpr int kMaxJobs = 1024;

struct RunOptions {
    std::string file, out, csv, markdown;
    std::string plot;        // folder for the charts (--plot); empty: none
    int jobs = 0;            // 0: all cores
    int replications = 0;
    std::int64_t seed = -1;  // -1: the scenario's
    bool seed_given = false;
    bool resume = false;     // finish an interrupted run from its journal
    bool quiet = false;      // no progress on standard error
    std::string shard;       // "i/N": run only that share of the points (analysis/run/shard.hpp)
    std::vector<std::string> fail_on;  // conditions that make the command exit 1 (fail_conditions)
    std::string timeline;    // Chrome trace JSON of one step of the first point that fits
    std::int64_t timeline_max_spans = 2'000'000;
    // Under mpirun with several ranks (run_over_ranks): this rank's share of the points, run in
    // memory; its shard file goes to *shard_text instead of any output.
    analysis::ShardSpec rank_shard;
    std::string* shard_text = nullptr;
};

// `--fail-on` conditions, for CI: a point that meets one makes `run`/`sweep` exit 1 after
// writing its outputs and table.
constexpr std::string_view fail_conditions[] = {"stopped", "budget", "deadline", "unfit"};

// Why a result meets a `--fail-on` condition; empty when it does not.
std::string failure(std::string_view condition, const analysis::Result& r) {
    const auto& l = r.lifecycle;
    if (condition == "unfit") return r.fits ? "" : "does not fit";
    if (!r.fits) return "";
    if (condition == "stopped" && l.finished_fraction < 1 - 1e-12) return r.status;
    if (condition == "budget" && (l.finished_fraction - l.gave_up_fraction < 1 - 1e-12 || l.budget_alert_s >= 0))
        return l.budget_alert_s >= 0 && r.status == "done" ? fmt::format("budget alert at {:.0f} s", l.budget_alert_s) : r.status;
    if (condition == "deadline" && l.deadline_met_fraction < 1 - 1e-12) return r.status;
    return "";
}

// Interruption of `run` and `sweep`. SIGINT and SIGTERM set stop_signal: the sweep takes no
// further point, lets the running ones finish, keeps every finished point in its journal and
// exits with 128 + the signal (130, 143). A second signal while points run abandons them at
// once: the handler prints the line itself and calls _exit (the journal holds whole lines).
std::atomic<int> stop_signal{0};
std::atomic<int> abandon_armed{0};
std::atomic<std::size_t> points_finished{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::size_t>::is_always_lock_free,
              "the signal handler needs lock-free atomics");
std::array<char, 2048> abandon_tail{};  // after the count: " of N points finished ...\n"
std::size_t abandon_tail_size = 0;

void write_stderr(const char* text, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(STDERR_FILENO, text, size);
        if (n <= 0) return;
        text += n;
        size -= static_cast<std::size_t>(n);
    }
}

// Async-signal-safe: lock-free atomics, write() and _exit() only.
void on_stop_signal(int sig) {
    int first = 0;
    if (stop_signal.compare_exchange_strong(first, sig) || abandon_armed.load() == 0) return;
    static constexpr char head[] = "rentsim: interrupted again, running points abandoned: ";
    write_stderr(head, sizeof head - 1);
    char digits[24];
    std::size_t at = sizeof digits;
    std::size_t n = points_finished.load();
    do {
        digits[--at] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n > 0);
    write_stderr(digits + at, sizeof digits - at);
    write_stderr(abandon_tail.data(), abandon_tail_size);
    ::_exit(128 + first);
}

void install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

std::string count_of_points(std::size_t n) { return n == 1 ? "1 point" : fmt::format("{} points", n); }

// What an interrupted run says after its count of finished points: where they are kept.
std::string kept_points_text(std::size_t points, std::size_t finished, const std::string& journal) {
    if (journal.empty())
        return fmt::format(" of {} finished; nothing was written (without --out or --csv there is nothing to resume)",
                           count_of_points(points));
    if (finished == 0) return fmt::format(" of {} finished; run the same command again", count_of_points(points));
    return fmt::format(" of {} finished, kept in {}; run the same command with --resume to finish", count_of_points(points),
                       journal);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw analysis::InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea),
               cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
    return ea || eb ? a == b : ca == cb;
}

int run_over_ranks(const RunOptions& o);

// The JSON, CSV and Markdown of a whole run that `o` asks for.
std::vector<analysis::OutputFile> result_outputs(const RunOptions& o, const std::vector<analysis::Result>& results) {
    std::vector<analysis::OutputFile> outputs;
    if (!o.out.empty()) outputs.push_back({o.out, analysis::results_to_json(results)});
    if (!o.csv.empty()) outputs.push_back({o.csv, analysis::results_to_csv(results)});
    if (!o.markdown.empty()) outputs.push_back({o.markdown, analysis::results_to_markdown(results)});
    return outputs;
}

// After the files of a finished run: its charts, timeline and table, and its exit status.
int report_run(const RunOptions& o, const analysis::ScenarioSet& set, const std::vector<analysis::Result>& results);

// Every command writes its --out and --csv files before it prints: a reader that stops early
// (`rentsim run x.json --out r.json | head -1`) must not cost the files. With outputs, each
// finished point goes to a journal beside the first (PointJournal) until the outputs are
// written together (write_files_together); --resume runs only the points it lacks.
int run_command(const RunOptions& o) {
    if (cli::mpi_world().size > 1 && o.shard_text == nullptr) return run_over_ranks(o);
    if (o.replications < 0 || o.replications > kMaxReplications)
        throw analysis::InputError("--replications", "",
                                   fmt::format("expected a count from 0 to {}, got {}", kMaxReplications, o.replications));
    if (o.jobs < 0 || o.jobs > kMaxJobs)
        throw analysis::InputError("--jobs", "",
                                   fmt::format("expected 0 (all cores) or 1 to {} threads, got {}", kMaxJobs, o.jobs));
    if (o.seed_given && o.seed < 0)
        throw analysis::InputError("--seed", "", fmt::format("expected a non-negative seed, got {}", o.seed));
    if (o.resume && o.out.empty() && o.csv.empty())
        throw analysis::InputError("--resume", "", "needs --out or --csv: an interrupted run's journal lies beside its output");
    if (!o.out.empty() && !o.csv.empty() && same_file(o.out, o.csv))
        throw analysis::InputError("--csv", "", "names the same file as --out");
    if (o.timeline_max_spans < 1)
        throw analysis::InputError("--timeline-max-spans", "", fmt::format("expected a count >= 1, got {}", o.timeline_max_spans));
    for (const std::string* other : {&o.out, &o.csv, &o.markdown})
        if (!o.timeline.empty() && !other->empty() && same_file(o.timeline, *other))
            throw analysis::InputError("--timeline", "", "names the same file as another output");
    analysis::ShardSpec shard = o.rank_shard;
    if (!o.shard.empty()) {
        shard = analysis::parse_shard(o.shard);
        if (o.out.empty()) throw analysis::InputError("--shard", "", "needs --out: the shard file that `rentsim merge` joins");
        if (!o.csv.empty() || !o.markdown.empty())
            throw analysis::InputError("--shard", "", "writes its --out only: `rentsim merge` writes the CSV and Markdown of the whole sweep");
    }
    const auto full = analysis::load_scenarios(o.file);
    analysis::RunOptions options;
    options.replications = o.replications;
    if (o.seed >= 0) options.seed = static_cast<std::uint64_t>(o.seed);
    const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // A shard runs its share of the points as a set of its own; every point keeps its input hash.
    const std::vector<std::string> all_hashes =
        o.out.empty() && o.csv.empty() && o.shard_text == nullptr ? std::vector<std::string>() : analysis::point_input_hashes(full, read_text(o.file), options);
    std::vector<std::size_t> shard_indices;
    analysis::ScenarioSet shard_set;
    std::vector<std::string> hashes = all_hashes;
    if (shard.active()) {
        shard_indices = analysis::shard_points(full.points.size(), shard);
        shard_set.axes = full.axes;
        hashes.clear();
        for (const std::size_t i : shard_indices) {
            shard_set.points.push_back(full.points[i]);
            hashes.push_back(all_hashes[i]);
        }
    }
    const analysis::ScenarioSet& set = shard.active() ? shard_set : full;
    const std::size_t n = set.points.size();

    std::optional<analysis::PointJournal> journal;
    analysis::SweepControl control;
    control.stop = [] { return stop_signal.load() != 0; };
    std::optional<analysis::Progress> progress;
    control.finished = [&journal, &progress](std::size_t i, const analysis::Result& r) {
        if (journal) journal->append(i, r);
        ++points_finished;
        if (progress) progress->point_done();
    };
    if ((!o.out.empty() || !o.csv.empty()) && o.shard_text == nullptr) {
        journal.emplace(analysis::PointJournal::path_for(o.out.empty() ? o.csv : o.out), hashes, o.resume);
        // The journal's lock makes this run the only one writing these outputs.
        for (const std::string* output : {&o.out, &o.csv})
            if (!output->empty()) analysis::remove_stale_temporaries(*output);
        control.done = journal->restored();
        points_finished = journal->restored_count();
    }
    const std::string journal_path = journal ? journal->path() : std::string();
    // Before an error's own message: the points it does not cost.
    const auto note_kept_points = [&] {
        if (journal && journal->points() > 0)
            std::cerr << fmt::format("rentsim: the run stopped on the error below; {} finished before it, kept in {} "
                                     "(pass --resume to use them)\n",
                                     count_of_points(journal->points()), journal_path);
    };

    const std::string tail = kept_points_text(n, n, journal_path) + "\n";
    abandon_tail_size = std::min(tail.size(), abandon_tail.size());
    std::copy_n(tail.begin(), abandon_tail_size, abandon_tail.begin());
    abandon_armed = 1;
    // Progress of a sweep only: a single run has nothing to count.
    if (n > 1)
        progress.emplace(analysis::progress_mode(o.quiet, ::isatty(STDERR_FILENO) == 1, std::getenv("CI")), n,
                         points_finished.load(), analysis::steady_seconds, analysis::write_to_stderr);
    std::vector<std::optional<analysis::Result>> points;
    try {
        points = analysis::run_points(set, jobs, options, std::move(control));
    } catch (...) {
        abandon_armed = 0;
        if (progress) progress->finish();
        note_kept_points();
        throw;
    }
    abandon_armed = 0;
    if (progress) progress->finish();
    const auto finished =
        static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [](const auto& p) { return p.has_value(); }));
    if (finished < n) {
        std::cerr << "rentsim: interrupted: " << finished << kept_points_text(n, finished, journal_path) << "\n";
        return 128 + stop_signal.load();
    }

    std::vector<analysis::Result> results;
    results.reserve(n);
    for (auto& p : points) results.push_back(std::move(*p));
    std::vector<analysis::OutputFile> outputs;
    if (shard.active()) {
        std::string text = analysis::shard_json(shard, full.points.empty() ? "" : full.points[0].name, all_hashes,
                                                shard_indices, results);
        if (o.shard_text != nullptr) {
            *o.shard_text = std::move(text);
            return 0;
        }
        outputs.push_back({o.out, std::move(text)});
    } else {
        outputs = result_outputs(o, results);
    }
    try {
        if (!outputs.empty()) analysis::write_files_together(outputs);
    } catch (...) {
        note_kept_points();
        throw;
    }
    if (journal) journal->remove();
    if (const int sig = stop_signal.load(); sig != 0) {
        std::cerr << fmt::format("rentsim: interrupted: {} finished{}\n", n == 1 ? "the point" : "all " + count_of_points(n),
                                 outputs.empty() ? "" : " and the outputs are written");
        return 128 + sig;
    }
    return report_run(o, set, results);
}

int report_run(const RunOptions& o, const analysis::ScenarioSet& set, const std::vector<analysis::Result>& results) {
    // Charts are files too: written before anything is printed; what was written goes to stderr.
    if (!o.plot.empty()) cli::plot_results(analysis::results_to_json(results), o.file, o.plot, std::cerr);
    const std::string timeline_line =
        o.timeline.empty() ? std::string()
                           : cli::write_run_timeline(set, results, o.timeline, static_cast<std::size_t>(o.timeline_max_spans));
    std::cout << analysis::format_results_text(results) << timeline_line;
    int status = 0;
    // Points that break a rule ran as rows saying so; the others ran. Bad input still
    // exits 2, after the outputs and the table.
    for (const auto& r : results)
        if (r.status == "invalid") {
            std::cerr << "rentsim: " << r.note << "\n";
            status = 2;
        }
    if (status == 2) return status;
    for (const auto& condition : o.fail_on)
        for (const auto& r : results)
            if (const std::string why = failure(condition, r); !why.empty()) {
                std::cerr << fmt::format("rentsim: --fail-on {}: {}: {}\n", condition, r.point.empty() ? r.name : r.point, why);
                status = 1;
            }
    return status;
}

struct CalibrateOptions {
    std::string gpu, out, date;
    std::vector<std::string> files;
};

std::string today() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

int calibrate_command(const CalibrateOptions& o) {
    const auto rep = analysis::fit_calibration(o.gpu, o.files, o.date.empty() ? today() : o.date);
    analysis::CalibrationFit fit{rep.rms_log_error, {}};
    for (std::size_t i = 0; i < rep.rows.size(); ++i)
        fit.rows.push_back({rep.rows[i].id, rep.rows[i].measured_s, rep.predicted_s[i]});
    const std::string json = analysis::calibration_to_json(rep.calibration, fit);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, json);
    fmt::print("calibration of {} from {} rows ({} skipped), rms log error {:.3f} after {} iterations\n", o.gpu,
               rep.rows.size(), rep.skipped.size(), rep.rms_log_error, rep.iterations);
    const auto& c = rep.calibration;
    const auto& spec = compute::find_gpu(o.gpu);
    fmt::print("  matmul efficiency: fp32 {:.3f}  tf32 {:.3f}  fp16/bf16 {:.3f}  fp8 {:.3f}\n", c.matmul_eff[0],
               c.matmul_eff[1], c.matmul_eff[2], c.matmul_eff[4]);
    fmt::print("  conv efficiency {:.3f} (tf32 {:.3f}), k fill {:.0f}, memory efficiency {:.3f}, kernel overhead {:.2f} us, "
               "step overhead {:.2f} ms\n", c.conv_eff, c.conv_eff_tf32, c.k_fill, c.mem_eff, c.kernel_overhead_s * 1e6,
               c.step_overhead_s * 1e3);
    fmt::print("  attention efficiency {:.3f}, tensor energy {:.3f} pJ/FLOP (tensor clock {:.3f} of boost under "
               "the {:.0f} W limit)\n", c.attention_eff, c.tensor_energy_pj,
               compute::GpuModel(spec, c).power_clock(), spec.tdp_w);
    fmt::print("  {:<28} {:>6} {:>12} {:>12} {:>8}\n", "row", "kind", "measured", "predicted", "error");
    for (std::size_t i = 0; i < rep.rows.size(); ++i) {
        const auto& r = rep.rows[i];
        const double err = rep.predicted_s[i] / r.measured_s - 1.0;
        fmt::print("  {:<28} {:>6} {:>12.4g} {:>12.4g} {:>7.1f}%\n", r.id, analysis::row_kind_registry().name_of(r.kind), r.measured_s, rep.predicted_s[i],
                   err * 100);
    }
    for (const auto& s : rep.skipped) fmt::print("  skipped {}\n", s);
    if (o.out.empty()) std::cout << json;
    return 0;
}

// Jobs sharing one cluster's fabric, alone and together at flow level.
int fabric_command(const std::string& file, const std::string& out) {
    const analysis::FabricSpec spec = analysis::load_fabric(file);
    const auto results = analysis::run_fabric(spec);
    if (!out.empty()) analysis::write_file_atomically(out, analysis::fabric_json(spec, results));
    std::cout << analysis::format_fabric(spec, results);
    return 0;
}

struct CollectiveOptions {
    std::string op = "all-reduce", size = "8:1GiB", topology, scenario, algorithm = "auto", model = "analytic", out;
    int gpus = 0;
    bool gpus_given = false;
};

int collective_command(const CollectiveOptions& o) {
    const auto* op = net::collective_registry().find(o.op);
    if (!op) throw analysis::InputError("--op", "", net::collective_registry().unknown_message(o.op));
    const auto* algo = net::algorithm_registry().find(o.algorithm);
    if (!algo) throw analysis::InputError("--algorithm", "", net::algorithm_registry().unknown_message(o.algorithm));
    const auto* model = analysis::collective_model_registry().find(o.model);
    if (!model) throw analysis::InputError("--model", "", analysis::collective_model_registry().unknown_message(o.model));
    if (o.topology.empty() == o.scenario.empty())
        throw analysis::InputError("", "", "give exactly one of --topology PRESET and --scenario FILE");
    net::TopologySpec spec;
    std::string name = o.topology;
    if (!o.scenario.empty()) {
        const auto set = analysis::load_scenarios(o.scenario);
        spec = set.points.front().cluster.topology;
        name = o.scenario;
    } else {
        spec.preset = o.topology;
    }
    if (o.gpus_given) {
        if (o.gpus < 1 || o.gpus > net::max_gpus)
            throw analysis::InputError("--gpus", "",
                                       fmt::format("expected a number of GPUs from 1 to {}, got {}", net::max_gpus, o.gpus));
        spec.gpus = o.gpus;
    } else if (o.scenario.empty()) {
        throw analysis::InputError("--gpus", "", fmt::format("expected a number of GPUs from 1 to {}", net::max_gpus));
    }
    analysis::SizeRange sizes;
    try {
        sizes = analysis::parse_size_range(o.size);
    } catch (const std::invalid_argument& e) {
        throw analysis::InputError("--size", "", e.what());
    }
    net::Network network{net::build_topology(spec)};
    if (network.topology().gpus() < spec.gpus)
        throw analysis::InputError("--gpus", "", "the topology holds fewer GPUs than asked for");
    const auto rows = analysis::collective_rows(network, *op, sizes, spec.gpus, *algo, *model);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, analysis::collective_rows_json(rows));
    std::cout << analysis::format_nccl_tests(rows, name);
    return 0;
}

struct ValidateOptions {
    std::string file, out, scenario;
};

int validate_command(const ValidateOptions& o) {
    if (!o.scenario.empty()) {
        std::cout << analysis::row_scenario_json(o.file, o.scenario);
        return 0;
    }
    const auto rep = analysis::validate_file(o.file);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, analysis::validation_json(rep));
    std::cout << analysis::validation_text(rep);
    return 0;
}

struct BreakevenOptions {
    analysis::BreakevenQuery query;
    double purchase_usd = 0, depreciation_years = 4, power_kw = 0, pue = 1.0, usd_per_kwh = 0, ops_usd_per_year = 0;
    bool purchase_given = false;
    std::string owning_option;  // the first owning option given other than --purchase-usd
};

// Owning is asked for by --purchase-usd; its other options alone are a mistake, not a no-op.
// breakeven() checks every figure against its range (analysis/studies/breakeven.hpp).
int breakeven_command(BreakevenOptions o) {
    if (o.purchase_given)
        o.query.ownership = price::Ownership{o.purchase_usd, o.depreciation_years, o.power_kw,
                                             o.pue,          o.usd_per_kwh,        o.ops_usd_per_year};
    else if (!o.owning_option.empty())
        throw analysis::InputError(o.owning_option, "", "describes owning the hardware: give --purchase-usd as well");
    std::cout << analysis::format_breakeven(analysis::breakeven(o.query));
    return 0;
}

// Memory, dense bf16 peak (fp16 where the GPU has no bf16) and whether the shipped calibration
// was fitted from the GPU's own family's rows (analysis/run/accuracy.hpp).
void list_gpus() {
    fmt::print("{:<16} {:>7} {:>11} {:<10} {}\n", "gpu", "memory", "bf16", "calibrated", "description");
    for (const auto& g : compute::gpu_registry().entries()) {
        const compute::GpuSpec& spec = *g.value;
        const double bf16 = spec.peak_tflops[static_cast<std::size_t>(compute::Precision::bf16)];
        const double fp16 = spec.peak_tflops[static_cast<std::size_t>(compute::Precision::fp16)];
        const std::string peak = bf16 > 0 ? fmt::format("{:.0f}", bf16) : fmt::format("{:.0f} (fp16)", fp16);
        fmt::print("{:<16} {:>3.0f} GiB {:>11} {:<10} {}\n", g.name, spec.memory_gib, peak,
                   analysis::family_calibrated(g.name) ? "yes" : "no", g.description);
    }
}

void list_models() {
    for (const auto& m : work::model_registry().entries()) fmt::print("{:<12} {}\n", m.name, m.description);
}

void list_topologies() {
    for (const auto& t : net::topology_registry().entries()) fmt::print("{:<12} {}\n", t.name, t.description);
}

// The framework profiles and the defaults each sets (models/compute/framework.hpp); the
// workload keys of the same names override them.
void list_frameworks() {
    const auto yes = [](bool b) { return b ? "yes" : "no"; };
    fmt::print("{:<18} {:<5} {:<8} {:<4} {:<6} {:<4} {:<13} {:<5} {:<9} {:<6} {:<5} {:<14} {}\n", "framework", "fused", "flash",
               "tf32", "layout", "zero", "overlap", "unpad", "optimizer", "clip", "loss", "grad fp16/bf16", "description");
    for (const auto& e : compute::framework_registry().entries()) {
        const compute::Framework& f = e.value;
        const std::string flash = f.flash_encoders    ? "all"
                                  : f.flash_attention ? (f.fmha_encoders ? "dec+fmha" : "decoders")
                                                      : "no";
        const std::string tf32 = f.tf32_matmul ? "all" : f.tf32_conv ? "conv" : "no";
        std::string overlap;
        for (const auto& [on, what] : {std::pair{f.overlap_grad_reduce, "grad"}, std::pair{f.overlap_param_gather, "param"},
                                       std::pair{f.tp_comm_overlap, "tp"}})
            if (on) overlap += (overlap.empty() ? "" : ",") + std::string(what);
        const auto& grad = compute::grad_reduce_registry();
        const std::string reduce = std::string(grad.name_of(f.grad_reduce_fp16)) + "/" + std::string(grad.name_of(f.grad_reduce_bf16));
        fmt::print("{:<18} {:<5} {:<8} {:<4} {:<6} {:<4} {:<13} {:<5} {:<9} {:<6} {:<5} {:<14} {}\n", e.name, yes(f.fused_elementwise), flash, tf32,
                   compute::conv_layout_registry().name_of(f.conv_layout), f.zero, overlap.empty() ? "none" : overlap,
                   yes(f.removes_padding), compute::optimizer_kernel_registry().name_of(f.optimizer_kernel),
                   compute::grad_clip_registry().name_of(f.grad_clip),
                   compute::loss_kernel_registry().name_of(f.loss_kernel), reduce, e.description);
    }
}

// The price catalog's instances with their GPUs and plans (not a registry: the catalog's own order).
void list_instances() {
    const auto& cat = price::shipped_catalog();
    for (const auto& provider : price::catalog_providers(cat))
        for (const auto& instance : price::catalog_instances(cat, provider)) {
            const auto plans = price::catalog_plans(cat, provider, instance);
            const auto* row = price::find_price(cat, provider, instance, plans.front());
            std::string joined;
            for (const auto& p : plans) joined += (joined.empty() ? "" : ", ") + p;
            fmt::print("{:<10} {:<40} {:>2} x {:<16} {}\n", provider, instance, row->gpus_per_instance,
                       row->gpu.empty() ? row->gpu_label : row->gpu, joined);
        }
}

// What `rentsim list` can list.
const Registry<void (*)()>& list_registry() {
    static const Registry<void (*)()> registry{
        "list topic",
        {{"gpus", list_gpus, "the GPU catalog"},
         {"models", list_models, "the model zoo: builders and GPT presets"},
         {"topologies", list_topologies, "the node presets of the network model"},
         {"frameworks", list_frameworks, "the framework profiles and their defaults"},
         {"instances", list_instances, "the price catalog's instances with their plans"}}};
    return registry;
}

int list_command(const std::string& what) {
    const auto* list = list_registry().find(what);
    if (!list) throw std::invalid_argument(list_registry().unknown_message(what));
    (*list)();
    return 0;
}

// Flushes standard output and decides what a failure to write it means. A reader that closed a
// pipe or socket early (`rentsim run x.json --out r.json | head -1`) is not an error: the files
// were written before anything was printed, and the status stays `status`. Any other failure
// (a full disk behind `> out.txt`) loses output the user asked for: reported, exit status 1.
// `known_error`: the errno of a write that already failed, if any.
int finish_stdout(int status, int known_error = 0) {
    errno = 0;
    std::fflush(stdout);
    std::cout.flush();
    const int error = known_error != 0 ? known_error : errno;
    if (std::cout.good() && std::ferror(stdout) == 0) return status;
    struct stat st {};
    if (fstat(fileno(stdout), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return status;
    std::cerr << "rentsim: cannot write standard output" << (error != 0 ? std::string(": ") + std::strerror(error) : "")
              << "\n";
    return status == 0 ? 1 : status;
}

std::string bug_text(const char* what) {
    return fmt::format("rentsim: internal error: {}\n"
                       "rentsim: this is a bug in rentsim; please report it with the command line and its input files\n",
                       what);
}

void report_bug(const char* what) { std::cerr << bug_text(what); }

// `run`/`sweep` under mpirun with several ranks (analysis/cli/mpi_sweep.hpp). Every rank runs
// its shard in memory and sends the shard file, or its error, to rank 0. Rank 0 prints its own
// error if it has one, else the first failing rank's; with none it joins the shards as `rentsim
// merge` does and writes the files and the table one process writes. The exit status is the
// largest of all ranks' (mpi_main).
int run_over_ranks(const RunOptions& o) {
    const cli::MpiWorld world = cli::mpi_world();
    cli::ShareOutcome mine;
    std::exception_ptr error;
    try {
        // The ranks share the points themselves; a journal to resume would be one per rank.
        if (!o.shard.empty())
            throw analysis::InputError("--shard", "", "cannot be used under mpirun with several ranks: they share the points");
        if (o.resume)
            throw analysis::InputError("--resume", "", "cannot be used under mpirun with several ranks: run the sweep again");
        RunOptions local = o;
        local.rank_shard = {world.rank + 1, world.size};
        local.shard_text = &mine.text;
        mine.status = run_command(local);
    } catch (const std::exception& e) {
        error = std::current_exception();
        const bool input = dynamic_cast<const analysis::InputError*>(&e) != nullptr ||
                           dynamic_cast<const analysis::BudgetError*>(&e) != nullptr ||
                           dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
        mine = {input ? 2 : 3, input ? fmt::format("rentsim: {}\n", e.what()) : bug_text(e.what())};
    }
    const std::vector<cli::ShareOutcome> shares = cli::gather_shares(mine);
    if (world.rank != 0) return mine.status;
    if (error) std::rethrow_exception(error);  // main() prints it, as without MPI
    if (mine.status != 0) return mine.status;  // interrupted: already said
    std::vector<std::pair<std::string, std::string>> shards;
    for (std::size_t r = 0; r < shares.size(); ++r) {
        if (shares[r].status != 0) {
            std::cerr << shares[r].text;
            return shares[r].status;
        }
        shards.emplace_back(fmt::format("rank {}", r), shares[r].text);
    }
    const auto results = analysis::merge_shard_texts(shards);
    const auto outputs = result_outputs(o, results);
    if (!outputs.empty()) analysis::write_files_together(outputs);
    return report_run(o, analysis::load_scenarios(o.file), results);
}

std::string joined_names(std::span<const std::string_view> names) {
    std::string out;
    for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

int rentsim_main(int argc, char** argv) {
    // A reader that closes standard output early (`| head -1`) must not kill rentsim before it
    // has written its --out and --csv files: writes to the closed pipe fail instead (finish_stdout).
    std::signal(SIGPIPE, SIG_IGN);
    CLI::App app{"rentsim: time-to-train and cost of training on rented GPU clusters"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("rentsim 0.1.0"));

    // `run` and `sweep` take the same arguments; `sweep` is the name sweep users look for.
    const auto add_run_options = [&app](const char* name, const char* help, RunOptions& o) {
        auto* cmd = app.add_subcommand(name, help);
        cmd->add_option("file", o.file, "scenario JSON file")->required();
        cmd->add_option("--out", o.out, "write results as JSON");
        cmd->add_option("--csv", o.csv, "write results as CSV");
        cmd->add_option("--markdown", o.markdown, "write the comparison table as Markdown (for a pull-request comment)");
        cmd->add_option("--plot", o.plot, "write the charts (SVG, and PNG with rsvg-convert) into this folder");
        cmd->add_option("-j,--jobs", o.jobs, "threads for sweep points (default: all cores)");
        cmd->add_option("--replications", o.replications, "independent replications of the run's random events");
        cmd->add_option("--seed", o.seed, "seed of the replications (default: the scenario's)");
        cmd->add_option("--shard", o.shard,
                        "run shard i of N: the points whose index (from 0) is i-1 modulo N; --out then writes a shard "
                        "file for `rentsim merge`");
        cmd->add_flag("-q,--quiet", o.quiet, "no progress on standard error");
        cmd->add_flag("--resume", o.resume,
                      "finish an interrupted run: reuse the finished points of its journal (beside --out, else --csv)");
        cmd->add_option("--timeline", o.timeline,
                        "write one training step of the first point that fits as Chrome trace JSON (Perfetto, chrome://tracing)");
        cmd->add_option("--timeline-max-spans", o.timeline_max_spans,
                        "keep at most this many spans in the timeline, the first in time order (default 2000000)");
        cmd->add_option("--fail-on", o.fail_on,
                        "exit 1 when a point is: stopped (by its budget, or given up), budget (stopped by it or past its "
                        "alert), deadline (missed), unfit (does not fit); comma-separated")
            ->delimiter(',')
            ->check(CLI::IsMember(std::vector<std::string>(std::begin(fail_conditions), std::end(fail_conditions))));
        return cmd;
    };
    RunOptions run, sweep;
    auto* run_cmd = add_run_options("run", "simulate a scenario (every point of its sweep block)", run);
    auto* sweep_cmd = add_run_options("sweep", "run every point of a scenario's sweep block as one table", sweep);

    CalibrateOptions cal;
    auto* cal_cmd = app.add_subcommand("calibrate", "fit the GPU compute model's efficiency parameters to measurements");
    cal_cmd->add_option("--gpu", cal.gpu, "catalog GPU name")->required();
    cal_cmd->add_option("files", cal.files, "measurement CSV files (data/measured.csv layout or the measurement script's)")
        ->required();
    cal_cmd->add_option("--out", cal.out, "write the calibration JSON here (default: standard output)");
    cal_cmd->add_option("--date", cal.date, "date recorded in the calibration (default: today, UTC)");

    CollectiveOptions col;
    auto* col_cmd = app.add_subcommand("collective", "estimate one collective over a range of sizes, nccl-tests style");
    const std::string op_help = joined_names(net::collective_registry().names());
    const std::string algorithm_help = joined_names(net::algorithm_registry().names()) + " (auto: as NCCL chooses)";
    col_cmd->add_option("--op", col.op, op_help);
    col_cmd->add_option("--size", col.size, "a size (1GiB) or a range MIN:MAX[:FACTOR] (default 8:1GiB)");
    col_cmd->add_option("--gpus", col.gpus, "GPUs in the group (default: the scenario's)");
    col_cmd->add_option("--topology", col.topology, "topology preset, see `rentsim list topologies`");
    col_cmd->add_option("--scenario", col.scenario, "take the cluster of this scenario file");
    col_cmd->add_option("--algorithm", col.algorithm, algorithm_help);
    col_cmd->add_option("--model", col.model,
                        joined_names(analysis::collective_model_registry().names()) +
                            " (default analytic; flow: flow-level simulation of the collective alone)");
    col_cmd->add_option("--out", col.out, "write the rows as JSON");

    std::string fabric_file, fabric_out;
    auto* fabric_cmd = app.add_subcommand(
        "fabric", "jobs sharing one cluster's fabric: each job's collectives alone and together, at flow level");
    fabric_cmd->add_option("file", fabric_file, "fabric JSON file: a cluster block and a list of jobs")->required();
    fabric_cmd->add_option("--out", fabric_out, "write the jobs' times as JSON");

    ValidateOptions val;
    auto* val_cmd = app.add_subcommand("validate", "predict every row of a measurement file and report the errors");
    val_cmd->add_option("file", val.file, "measurement CSV (layout of models/compute/measurements/measured.csv)")
        ->required();
    val_cmd->add_option("--out", val.out, "write rows and summary as JSON");
    val_cmd->add_option("--scenario", val.scenario, "print the scenario a training row (by id) becomes, and stop")
        ->excludes("--out");
    BreakevenOptions be;
    auto* be_cmd = app.add_subcommand("breakeven", "hours of use per month above which reserving or buying beats on-demand");
    be_cmd->add_option("--provider", be.query.provider, "catalog provider (aws, gcp, ...)")->required();
    be_cmd->add_option("--instance", be.query.instance, "catalog instance (p4de.24xlarge, ...)")->required();
    be_cmd->add_option("--plan", be.query.plan, "one committed plan (default: every one in the catalog)");
    be_cmd->add_option("--region", be.query.region, "catalog region (default: the first trusted row)");
    be_cmd->add_flag("--allow-flagged", be.query.allow_flagged, "use catalog rows flagged as doubtful");
    be_cmd->add_option("--purchase-usd", be.purchase_usd, "self-owned: purchase price of one instance, USD (> 0)");
    be_cmd->add_option("--depreciation-years", be.depreciation_years,
                       "self-owned: depreciation period, above 0 and at most 30 (default 4)");
    be_cmd->add_option("--power-kw", be.power_kw, "self-owned: power of one instance at load, 0 to 1000 kW");
    be_cmd->add_option("--pue", be.pue, "self-owned: data-centre PUE, 1 to 3 (default 1.0)");
    be_cmd->add_option("--usd-per-kwh", be.usd_per_kwh, "self-owned: electricity price, 0 to 10 USD per kWh");
    be_cmd->add_option("--ops-usd-per-year", be.ops_usd_per_year,
                       "self-owned: operations per instance and year, USD (>= 0)");

    cli::CheckOptions chk;
    auto* check_cmd = cli::add_check_command(app, chk);
    cli::MergeOptions mrg;
    auto* merge_cmd = cli::add_merge_command(app, mrg);
    cli::ReplayOptions replay_opts;
    auto* replay_cmd = cli::add_replay_command(app, replay_opts);
    cli::PlotOptions plot;
    auto* plot_cmd = cli::add_plot_command(app, plot);
    cli::ReportOptions report;
    auto* report_cmd = cli::add_report_command(app, report);
    cli::CapacityOptions capacity;  // `cluster` and `plan`
    cli::add_capacity_commands(app, capacity);

    std::string topic;
    const std::string topics = joined_names(list_registry().names());
    auto* list_cmd = app.add_subcommand("list", "list registry names: " + topics);
    list_cmd->add_option("what", topic, topics)->required();

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return finish_stdout(code == 0 ? 0 : 2);
    }
    run.seed_given = run_cmd->count("--seed") > 0;
    sweep.seed_given = sweep_cmd->count("--seed") > 0;
    col.gpus_given = col_cmd->count("--gpus") > 0;
    be.purchase_given = be_cmd->count("--purchase-usd") > 0;
    if (*run_cmd || *sweep_cmd) install_stop_handlers();
    for (const char* name : {"--depreciation-years", "--power-kw", "--pue", "--usd-per-kwh", "--ops-usd-per-year"})
        if (be.owning_option.empty() && be_cmd->count(name) > 0) be.owning_option = name;
    try {
        int status = 0;
        if (*run_cmd) status = run_command(run);
        else if (*sweep_cmd) status = run_command(sweep);
        else if (*list_cmd) status = list_command(topic);
        else if (*cal_cmd) status = calibrate_command(cal);
        else if (*col_cmd) status = collective_command(col);
        else if (*fabric_cmd) status = fabric_command(fabric_file, fabric_out);
        else if (*val_cmd) status = validate_command(val);
        else if (*be_cmd) status = breakeven_command(be);
        else if (*check_cmd) status = cli::check_command(chk);
        else if (*merge_cmd) status = cli::merge_command(mrg);
        else if (*replay_cmd) status = cli::replay_command(replay_opts);
        else if (*plot_cmd) status = cli::plot_command(plot, std::cout);
        else if (*report_cmd) status = cli::report_command(report, std::cout);
        else if (capacity.selected()) status = cli::run_capacity_command(capacity);
        return finish_stdout(status);
    } catch (const analysis::BudgetError& e) {
        // Work beyond the simulator's budgets, refused before it ran.
        std::cerr << "rentsim: " << e.what() << "\n";
        return 2;
    } catch (const analysis::InputError& e) {
        std::cerr << "rentsim: " << e.what() << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "rentsim: " << e.what() << "\n";
        return 2;
    } catch (const std::system_error& e) {
        // fmt::print throws when it cannot write standard output (a closed pipe, a full disk);
        // finish_stdout tells the two apart. Files were written before anything was printed.
        if (e.code() == std::errc::broken_pipe || std::ferror(stdout) != 0)
            return finish_stdout(0, e.code().value());
        report_bug(e.what());
        return 3;
    } catch (const std::exception& e) {
        // std::invalid_argument, from the models included, is bad input (above); what reaches
        // here is a broken promise inside rentsim.
        report_bug(e.what());
        return 3;
    }
}

}  // namespace

// With RENTSIM_MPI, under mpirun: MPI around the program (analysis/cli/mpi_sweep.hpp).
int main(int argc, char** argv) { return cli::mpi_main(argc, argv, rentsim_main); }
