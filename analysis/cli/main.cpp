// rentsim: the command-line program. It parses arguments, calls the analysis library and
// turns errors into exit statuses: 0 success, 1 an expectation failed, 2 bad input.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/report/atomic_file.hpp"
#include "analysis/studies/calibrate.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/studies/collective.hpp"
#include "analysis/run/run.hpp"
#include "models/network/network.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/report/report.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/studies/validate.hpp"
#include "models/compute/gpu.hpp"
#include "models/names.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/catalog.hpp"
#include "models/workloads/zoo.hpp"

namespace {

using namespace rentsim;

struct RunOptions {
    std::string file, out, csv;
    int jobs = 0;
    int replications = 0;
    std::int64_t seed = -1;  // -1: the scenario's
};

int run_command(const RunOptions& o) {
    auto set = analysis::load_scenarios(o.file);
    if (o.replications < 0) throw analysis::InputError("--replications", "", "expected a non-negative count");
    for (auto& p : set.points) {
        if (o.seed >= 0) p.seed = static_cast<std::uint64_t>(o.seed);
        p.replications = o.replications;
    }
    const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto results = analysis::run_all(set, jobs);
    std::cout << analysis::format_results_text(results);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, analysis::results_to_json(results));
    if (!o.csv.empty()) analysis::write_file_atomically(o.csv, analysis::results_to_csv(results));
    return 0;
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
    fmt::print("calibration of {} from {} rows ({} skipped), rms log error {:.3f} after {} iterations\n", o.gpu,
               rep.rows.size(), rep.skipped.size(), rep.rms_log_error, rep.iterations);
    const auto& c = rep.calibration;
    fmt::print("  matmul efficiency: fp32 {:.3f}  tf32 {:.3f}  fp16/bf16 {:.3f}  fp8 {:.3f}\n", c.matmul_eff[0],
               c.matmul_eff[1], c.matmul_eff[2], c.matmul_eff[4]);
    fmt::print("  conv efficiency {:.3f}, k fill {:.0f}, memory efficiency {:.3f}, kernel overhead {:.2f} us, "
               "step overhead {:.2f} ms\n", c.conv_eff, c.k_fill, c.mem_eff, c.kernel_overhead_s * 1e6,
               c.step_overhead_s * 1e3);
    fmt::print("  {:<28} {:>6} {:>12} {:>12} {:>8}\n", "row", "kind", "measured", "predicted", "error");
    std::string rows_json = "[";
    for (std::size_t i = 0; i < rep.rows.size(); ++i) {
        const auto& r = rep.rows[i];
        const double err = rep.predicted_s[i] / r.measured_s - 1.0;
        fmt::print("  {:<28} {:>6} {:>12.4g} {:>12.4g} {:>7.1f}%\n", r.id, r.kind, r.measured_s, rep.predicted_s[i],
                   err * 100);
        rows_json += fmt::format("{}{{\"id\": \"{}\", \"measured_s\": {}, \"predicted_s\": {}}}", i ? ", " : "", r.id,
                                 r.measured_s, rep.predicted_s[i]);
    }
    rows_json += "]";
    for (const auto& s : rep.skipped) fmt::print("  skipped {}\n", s);
    const std::string extra = fmt::format("{{\"rms_log_error\": {}, \"rows\": {}}}", rep.rms_log_error, rows_json);
    const std::string json = analysis::calibration_to_json(c, extra);
    if (o.out.empty()) std::cout << json;
    else analysis::write_file_atomically(o.out, json);
    return 0;
}

struct CollectiveOptions {
    std::string op = "all-reduce", size = "8:1GiB", topology, scenario, algorithm = "auto", out;
    int gpus = 0;
};

int collective_command(const CollectiveOptions& o) {
    const auto op = net::parse_collective(o.op);
    if (!op) throw analysis::InputError("--op", "", "unknown collective '" + o.op +
                                        "'; valid: all-reduce, reduce-scatter, all-gather, broadcast, all-to-all, send-recv");
    net::Algorithm algo = net::Algorithm::automatic;
    if (o.algorithm != "auto") {
        auto a = net::parse_algorithm(o.algorithm);
        if (!a) throw analysis::InputError("--algorithm", "", "unknown algorithm '" + o.algorithm +
                                           "'; valid: auto, ring, tree, hierarchical, direct, nvls");
        algo = *a;
    }
    if (o.topology.empty() == o.scenario.empty())
        throw analysis::InputError("", "", "give exactly one of --topology PRESET and --scenario FILE");
    net::TopologySpec spec;
    std::string name = o.topology;
    if (!o.scenario.empty()) {
        const auto set = analysis::load_scenarios(o.scenario);
        spec = analysis::topology_spec(set.points.front().cluster);
        name = o.scenario;
    } else {
        spec.preset = o.topology;
    }
    if (o.gpus > 0) spec.gpus = o.gpus;
    else if (o.scenario.empty()) throw analysis::InputError("--gpus", "", "expected a positive number of GPUs");
    analysis::SizeRange sizes;
    try {
        sizes = analysis::parse_size_range(o.size);
    } catch (const std::invalid_argument& e) {
        throw analysis::InputError("--size", "", e.what());
    }
    net::Network network{net::build_topology(spec)};
    if (network.topology().gpus() < spec.gpus)
        throw analysis::InputError("--gpus", "", "the topology holds fewer GPUs than asked for");
    const auto rows = analysis::collective_rows(network, *op, sizes, spec.gpus, algo);
    std::cout << analysis::format_nccl_tests(rows, name);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, analysis::collective_rows_json(rows));
    return 0;
}

struct ValidateOptions {
    std::string file, out;
};

int validate_command(const ValidateOptions& o) {
    const auto rep = analysis::validate_file(o.file);
    std::cout << analysis::validation_text(rep);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, analysis::validation_json(rep));
    return 0;
}

struct BreakevenOptions {
    std::string provider, instance, plan, region;
    bool allow_flagged = false;
    double purchase_usd = 0, depreciation_years = 4, power_kw = 0, pue = 1.0, usd_per_kwh = 0, ops_usd_per_year = 0;
};

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// Hours of use per month above which a commitment (billed every hour of the month) or owning
// the hardware beats on-demand.
int breakeven_command(const BreakevenOptions& o) {
    const auto& cat = price::shipped_catalog();
    const auto providers = price::catalog_providers(cat);
    const auto check = [](const std::string& opt, const std::string& what, const std::string& name,
                          const std::vector<std::string>& valid) {
        if (std::find(valid.begin(), valid.end(), name) == valid.end())
            throw analysis::InputError(opt, "", unknown_name_message(what, name, views(valid)));
    };
    check("--provider", "provider", o.provider, providers);
    check("--instance", o.provider + " instance", o.instance, price::catalog_instances(cat, o.provider));
    const auto plans = price::catalog_plans(cat, o.provider, o.instance);
    if (!o.plan.empty()) check("--plan", o.instance + " plan", o.plan, plans);
    const auto* od = price::find_price(cat, o.provider, o.instance, "on-demand", o.region);
    if (!od) throw analysis::InputError("--instance", "", "no on-demand price for " + o.provider + " " + o.instance +
                                        (o.region.empty() ? "" : " in " + o.region));
    if (!od->flag.empty() && !o.allow_flagged)
        throw analysis::InputError("--instance", "", "the on-demand price is flagged: " + od->flag + "; pass --allow-flagged to use it");
    const double od_hour = od->usd_per_instance_hour();
    fmt::print("{} {} ({} x {}), {}: on-demand ${:.4f}/h per instance ({})\n", o.provider, o.instance,
               od->gpus_per_instance, od->gpu_label, od->region, od_hour, od->source);
    fmt::print("{:<44} {:>12} {:>14} {:>22}\n", "plan", "$/h", "$/month fixed", "breakeven h/month");
    const auto row = [](const std::string& name, const std::string& rate, double fixed, double hours) {
        const std::string h = std::isinf(hours) ? std::string("never") :
                              hours > price::hours_per_month ? fmt::format("{:.0f} (> 730: never)", hours)
                                                              : fmt::format("{:.0f} ({:.0f}%)", hours, 100 * hours / price::hours_per_month);
        fmt::print("{:<44} {:>12} {:>14.0f} {:>22}\n", name, rate, fixed, h);
    };
    for (const auto& plan : plans) {
        if (plan == "on-demand" || plan == "spot" || plan == "preemptible") continue;
        if (!o.plan.empty() && plan != o.plan) continue;
        const auto* r = price::find_price(cat, o.provider, o.instance, plan, od->region);
        if (!r) continue;
        if (!r->flag.empty() && !o.allow_flagged) {
            fmt::print("{:<44} skipped: {}\n", plan, r->flag);
            continue;
        }
        const double fixed = r->usd_per_instance_hour() * price::hours_per_month;
        row(plan, fmt::format("{:.4f}", r->usd_per_instance_hour()), fixed,
            price::breakeven_hours_per_month(units::usd_per_hour(od_hour), units::usd(fixed)));
    }
    if (o.purchase_usd > 0) {
        const price::Ownership own{o.purchase_usd, o.depreciation_years, o.power_kw, o.pue, o.usd_per_kwh, o.ops_usd_per_year};
        const double fixed = own.fixed_rate().value * 3600.0 * price::hours_per_month;
        row("self-owned", fmt::format("{:.4f}+pwr", own.fixed_rate().value * 3600.0), fixed,
            price::breakeven_hours_per_month(units::usd_per_hour(od_hour), units::usd(fixed), own.running_rate()));
    }
    return 0;
}

int help_command(const std::string& topic) {
    if (topic == "gpus") {
        for (const auto& g : compute::gpu_catalog()) fmt::print("{:<16} {}\n", g.name, g.description);
    } else if (topic == "topologies") {
        for (const auto& t : net::topology_presets()) fmt::print("{:<12} {}\n", t.name, t.description);
    } else if (topic == "instances") {
        const auto& cat = price::shipped_catalog();
        for (const auto& provider : price::catalog_providers(cat))
            for (const auto& instance : price::catalog_instances(cat, provider)) {
                const auto* od = price::find_price(cat, provider, instance, price::catalog_plans(cat, provider, instance).front());
                std::string plans;
                for (const auto& p : price::catalog_plans(cat, provider, instance)) plans += (plans.empty() ? "" : ", ") + p;
                fmt::print("{:<10} {:<40} {:>2} x {:<16} {}\n", provider, instance, od->gpus_per_instance,
                           od->gpu.empty() ? od->gpu_label : od->gpu, plans);
            }
    } else if (topic == "models") {
        for (const auto& m : work::model_names()) fmt::print("{:<12} {}\n", m.name, m.description);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"rentsim: time-to-train and cost of training on rented GPU clusters"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("rentsim 0.1.0"));

    // `run` and `sweep` take the same arguments; `sweep` is the name sweep users look for.
    const auto add_run_options = [&app](const char* name, const char* help, RunOptions& o) {
        auto* cmd = app.add_subcommand(name, help);
        cmd->add_option("file", o.file, "scenario JSON file")->required();
        cmd->add_option("--out", o.out, "write results as JSON");
        cmd->add_option("--csv", o.csv, "write results as CSV");
        cmd->add_option("-j,--jobs", o.jobs, "threads for sweep points (default: all cores)");
        cmd->add_option("--replications", o.replications, "independent replications of the run's random events");
        cmd->add_option("--seed", o.seed, "seed of the replications (default: the scenario's)");
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
    col_cmd->add_option("--op", col.op, "all-reduce, reduce-scatter, all-gather, broadcast, all-to-all, send-recv");
    col_cmd->add_option("--size", col.size, "a size (1GiB) or a range MIN:MAX[:FACTOR] (default 8:1GiB)");
    col_cmd->add_option("--gpus", col.gpus, "GPUs in the group (default: the scenario's)");
    col_cmd->add_option("--topology", col.topology, "topology preset, see `rentsim list topologies`");
    col_cmd->add_option("--scenario", col.scenario, "take the cluster of this scenario file");
    col_cmd->add_option("--algorithm", col.algorithm, "auto (as NCCL chooses), ring, tree, hierarchical, direct, nvls");
    col_cmd->add_option("--out", col.out, "write the rows as JSON");

    ValidateOptions val;
    auto* val_cmd = app.add_subcommand("validate", "predict every row of a measurement file and report the errors");
    val_cmd->add_option("file", val.file, "measurement CSV (layout of models/compute/measurements/measured.csv)")
        ->required();
    val_cmd->add_option("--out", val.out, "write rows and summary as JSON");
    BreakevenOptions be;
    auto* be_cmd = app.add_subcommand("breakeven", "hours of use per month above which reserving or buying beats on-demand");
    be_cmd->add_option("--provider", be.provider, "catalog provider (aws, gcp, ...)")->required();
    be_cmd->add_option("--instance", be.instance, "catalog instance (p4de.24xlarge, ...)")->required();
    be_cmd->add_option("--plan", be.plan, "one committed plan (default: every one in the catalog)");
    be_cmd->add_option("--region", be.region, "catalog region (default: the first trusted row)");
    be_cmd->add_flag("--allow-flagged", be.allow_flagged, "use catalog rows flagged as doubtful");
    be_cmd->add_option("--purchase-usd", be.purchase_usd, "self-owned: purchase price of one instance, USD");
    be_cmd->add_option("--depreciation-years", be.depreciation_years, "self-owned: depreciation period (default 4)");
    be_cmd->add_option("--power-kw", be.power_kw, "self-owned: power of one instance at load, kW");
    be_cmd->add_option("--pue", be.pue, "self-owned: data-centre PUE (default 1.0)");
    be_cmd->add_option("--usd-per-kwh", be.usd_per_kwh, "self-owned: electricity price");
    be_cmd->add_option("--ops-usd-per-year", be.ops_usd_per_year, "self-owned: operations per instance and year");

    std::string topic;
    auto* help_cmd = app.add_subcommand("list", "list registry names: gpus, models, topologies, instances");
    help_cmd->add_option("what", topic, "gpus, models, topologies or instances (the price catalog)")
        ->required()
        ->check(CLI::IsMember({"gpus", "models", "topologies", "instances"}));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    try {
        if (*run_cmd) return run_command(run);
        if (*sweep_cmd) return run_command(sweep);
        if (*help_cmd) return help_command(topic);
        if (*cal_cmd) return calibrate_command(cal);
        if (*col_cmd) return collective_command(col);
        if (*val_cmd) return validate_command(val);
        if (*be_cmd) return breakeven_command(be);
    } catch (const analysis::InputError& e) {
        std::cerr << "rentsim: " << e.what() << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "rentsim: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "rentsim: internal error: " << e.what() << "\n";
        return 3;
    }
    return 0;
}
