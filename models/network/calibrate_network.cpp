#include "models/network/calibrate_network.hpp"

#include "models/csv.hpp"

#include "models/fit/levenberg_marquardt.hpp"
#include "models/network/presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

namespace rentsim::net {
namespace {

using Table = std::vector<std::vector<std::string>>;

Table parse_csv(std::string_view text, std::string_view what) {
    Table rows;
    for (auto& record : parse_csv_records(text, what)) rows.push_back(std::move(record.fields));
    return rows;
}

struct Columns {
    std::map<std::string, std::size_t, std::less<>> index;
    std::string what;
    std::size_t at(std::string_view name) const {
        const auto it = index.find(name);
        if (it == index.end()) throw std::invalid_argument(fmt::format("{}: missing column '{}'", what, name));
        return it->second;
    }
};

Columns columns(const Table& t, std::string_view what) {
    if (t.empty()) throw std::invalid_argument(fmt::format("{}: empty file", what));
    Columns c;
    c.what = std::string(what);
    for (std::size_t i = 0; i < t[0].size(); ++i) c.index[t[0][i]] = i;
    return c;
}

double to_double(const std::string& s, std::string_view where) {
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size())
        throw std::invalid_argument(fmt::format("{}: '{}' is not a number", where, s));
    return v;
}

int to_int(const std::string& s, std::string_view where) {
    if (s.empty()) return 0;
    int v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size())
        throw std::invalid_argument(fmt::format("{}: '{}' is not an integer", where, s));
    return v;
}

// A parameter of the fit: its name, where it lives in NetworkParams, and where its prior is from.
struct ParamDef {
    std::string name;
    std::function<double&(NetworkParams&)> ref;
    bool fit;
    std::string prior_source;
};

std::vector<ParamDef> parameter_table() {
    const std::string tuning = "NCCL src/graph/tuning.cc @5067397";
    const std::string topo = "NCCL src/graph/topo.h @5067397";
    return {
        {"nvlink2_efficiency", [](NetworkParams& p) -> double& { return p.nvlink2_efficiency; }, true, topo + " SM70_NVLINK_BW 20 of 25 GB/s"},
        {"nvlink3_efficiency", [](NetworkParams& p) -> double& { return p.nvlink3_efficiency; }, true, topo + " SM80_NVLINK_BW 20 of 25 GB/s"},
        {"nvlink4_efficiency", [](NetworkParams& p) -> double& { return p.nvlink4_efficiency; }, true, topo + " SM90_NVLINK_BW 20.6 of 25 GB/s"},
        {"nvlink5_efficiency", [](NetworkParams& p) -> double& { return p.nvlink5_efficiency; }, true, topo + " SM100_NVLINK_BW 40.1 of 50 GB/s"},
        {"nvls_efficiency", [](NetworkParams& p) -> double& { return p.nvls_efficiency; }, true, tuning + " nvlsEfficiency (Hopper)"},
        {"nvls5_efficiency", [](NetworkParams& p) -> double& { return p.nvls5_efficiency; }, false, tuning + " nvlsEfficiency (Blackwell)"},
        {"nvlink_copy_efficiency", [](NetworkParams& p) -> double& { return p.nvlink_copy_efficiency; }, true, "as nvlink3_efficiency"},
        {"tree_efficiency", [](NetworkParams& p) -> double& { return p.tree_efficiency; }, true, tuning + " tree busBw x 0.92"},
        {"infiniband_efficiency", [](NetworkParams& p) -> double& { return p.infiniband_efficiency; }, true, topo + " NET_BW 12 of 12.5 GB/s"},
        {"efa_efficiency", [](NetworkParams& p) -> double& { return p.efa_efficiency; }, true, topo + " NET_BW 12 of 12.5 GB/s"},
        {"nvlink_step_ll_us", [](NetworkParams& p) -> double& { return p.nvlink_step_us.ll; }, true, tuning + " hwLatencies NVLink ring LL"},
        {"nvlink_step_ll128_us", [](NetworkParams& p) -> double& { return p.nvlink_step_us.ll128; }, true, tuning + " hwLatencies NVLink ring LL128"},
        {"nvlink_step_simple_us", [](NetworkParams& p) -> double& { return p.nvlink_step_us.simple; }, true, tuning + " hwLatencies NVLink ring Simple"},
        {"nvls_latency_us", [](NetworkParams& p) -> double& { return p.nvls_latency_us; }, true, tuning + " hwLatencies NVLink NVLS"},
        {"net_step_simple_us", [](NetworkParams& p) -> double& { return p.net_step_us.simple; }, false, tuning + " hwLatencies NET ring Simple"},
        {"net_step_ll_us", [](NetworkParams& p) -> double& { return p.net_step_us.ll; }, false, tuning + " hwLatencies NET ring LL"},
        {"net_step_ll128_us", [](NetworkParams& p) -> double& { return p.net_step_us.ll128; }, false, tuning + " hwLatencies NET ring LL128"},
        {"pcie_efficiency", [](NetworkParams& p) -> double& { return p.pcie_efficiency; }, false, topo + " PCI_BW 12 of 15.754 GB/s (Gen3 x16); no PCIe row in the data"},
        {"roce_efficiency", [](NetworkParams& p) -> double& { return p.roce_efficiency; }, false, "tied to infiniband_efficiency: same NICs and verbs transport; no RoCE row"},
        {"tcp_efficiency", [](NetworkParams& p) -> double& { return p.tcp_efficiency; }, false, "NVIDIA/nccl issue #450 (2021-01-06): 5.21 of 12.5 GB/s; no TCP row"},
        {"pcie_step_ll_us", [](NetworkParams& p) -> double& { return p.pcie_step_us.ll; }, false, tuning + " hwLatencies PCI ring LL"},
        {"pcie_step_ll128_us", [](NetworkParams& p) -> double& { return p.pcie_step_us.ll128; }, false, tuning + " hwLatencies PCI ring LL128"},
        {"pcie_step_simple_us", [](NetworkParams& p) -> double& { return p.pcie_step_us.simple; }, false, tuning + " hwLatencies PCI ring Simple"},
        {"base_ll_us", [](NetworkParams& p) -> double& { return p.base_us.ll; }, false, tuning + " baseLatencies ring LL"},
        {"base_ll128_us", [](NetworkParams& p) -> double& { return p.base_us.ll128; }, false, tuning + " baseLatencies ring LL128"},
        {"base_simple_us", [](NetworkParams& p) -> double& { return p.base_us.simple; }, false, tuning + " baseLatencies ring Simple"},
        {"tcp_cpu_ghz_per_gbps", [](NetworkParams& p) -> double& { return p.tcp_cpu_ghz_per_gbps; }, false, "Foong et al., ISPASS 2003: 1 GHz per Gb/s (recalled)"},
    };
}

// The modelled rows with a Network each (graph work done once, constants swapped per step).
struct Problem {
    std::vector<const RowInterpretation*> rows;
    std::vector<double> measured;
    std::vector<bool> algbw;   // p2p rows compare algorithm bandwidth
    std::vector<Network> networks;
};

Problem make_problem(const CalibrationData& data) {
    std::map<std::string, const MeasuredRow*, std::less<>> measured;
    for (const MeasuredRow& r : data.rows) measured[r.id] = &r;
    Problem pr;
    for (const RowInterpretation& it : data.interpretations) {
        if (!it.modelled) continue;
        const auto m = measured.find(it.id);
        if (m == measured.end())
            throw std::invalid_argument(fmt::format("interpretation of {} has no measured row", it.id));
        if (m->second->role != "calibrate") continue;
        pr.rows.push_back(&it);
        pr.measured.push_back(m->second->value);
        pr.algbw.push_back(m->second->metric == "p2p_gbps");
        TopologySpec spec = it.topology;
        const int needed = it.ranks.empty() ? it.gpus : *std::max_element(it.ranks.begin(), it.ranks.end()) + 1;
        spec.gpus = std::max(spec.gpus, needed);
        pr.networks.emplace_back(build_topology(spec));
    }
    return pr;
}

CollectiveEstimate predict(const Network& net, const RowInterpretation& row) {
    if (row.ranks.empty()) return net.collective(row.op, units::bytes(row.bytes), row.gpus, row.algorithm);
    return net.collective(row.op, units::bytes(row.bytes), std::span<const int>(row.ranks), row.algorithm);
}

double predicted_value(const Problem& pr, std::size_t i, const NetworkParams& params) {
    const CollectiveEstimate e = predict(pr.networks[i].with_params(params), *pr.rows[i]);
    return pr.algbw[i] ? e.algbw_gbps : e.busbw_gbps;
}

std::vector<double> residuals(const Problem& pr, const NetworkParams& params) {
    std::vector<double> r(pr.rows.size());
    for (std::size_t i = 0; i < pr.rows.size(); ++i) r[i] = std::log(predicted_value(pr, i, params) / pr.measured[i]);
    return r;
}

}  // namespace

CalibrationData parse_calibration_data(std::string_view measured_csv, std::string_view interpretation_csv) {
    CalibrationData data;
    const Table m = parse_csv(measured_csv, "measurements");
    const Columns mc = columns(m, "measurements");
    for (std::size_t i = 1; i < m.size(); ++i) {
        const auto& f = m[i];
        if (f.size() == 1 && f[0].empty()) continue;
        const std::string where = fmt::format("measurements row {}", i + 1);
        if (f.size() != m[0].size())
            throw std::invalid_argument(fmt::format("{}: {} fields, header has {}", where, f.size(), m[0].size()));
        // The network is fitted to the collective and point-to-point rows with role calibrate.
        const std::string& category = f[mc.at("category")];
        if ((category != "nccl_busbw" && category != "p2p_bw") || f[mc.at("role")] != "calibrate") continue;
        MeasuredRow r;
        r.id = f[mc.at("id")];
        r.role = f[mc.at("role")];
        r.category = category;
        r.gpu = f[mc.at("gpu")];
        r.gpus = to_int(f[mc.at("gpus")], where + " gpus");
        r.gpus_per_node = to_int(f[mc.at("gpus_per_node")], where + " gpus_per_node");
        r.metric = f[mc.at("metric")];
        r.value = to_double(f[mc.at("value")], where + " value");
        r.unit = f[mc.at("unit")];
        r.trust = f[mc.at("trust")];
        r.source = f[mc.at("source")];
        r.notes = f[mc.at("notes")];
        data.rows.push_back(std::move(r));
    }
    const Table t = parse_csv(interpretation_csv, "interpretations");
    const Columns tc = columns(t, "interpretations");
    for (std::size_t i = 1; i < t.size(); ++i) {
        const auto& f = t[i];
        if (f.size() == 1 && f[0].empty()) continue;
        const std::string where = fmt::format("interpretations row {}", i + 1);
        if (f.size() != t[0].size())
            throw std::invalid_argument(fmt::format("{}: {} fields, header has {}", where, f.size(), t[0].size()));
        RowInterpretation r;
        r.id = f[tc.at("id")];
        r.note = f[tc.at("note")];
        const std::string& op = f[tc.at("op")];
        r.modelled = !op.empty();
        if (r.modelled) {
            const auto c = parse_collective(op);
            if (!c) throw std::invalid_argument(fmt::format("{}: unknown op '{}'", where, op));
            r.op = *c;
            r.bytes = to_double(f[tc.at("bytes")], where + " bytes");
            r.gpus = to_int(f[tc.at("gpus")], where + " gpus");
            const std::string& ranks = f[tc.at("ranks")];
            for (std::size_t pos = 0; pos < ranks.size();) {
                const std::size_t end = std::min(ranks.find(';', pos), ranks.size());
                r.ranks.push_back(to_int(ranks.substr(pos, end - pos), where + " ranks"));
                pos = end + 1;
            }
            r.topology.preset = f[tc.at("preset")];
            r.topology.gpus = r.gpus;
            r.topology.gpu = f[tc.at("gpu")];
            if (!f[tc.at("gpus_per_node")].empty())
                r.topology.gpus_per_node = to_int(f[tc.at("gpus_per_node")], where + " gpus_per_node");
            if (!f[tc.at("intra_node")].empty()) r.topology.intra_node = f[tc.at("intra_node")];
            if (!f[tc.at("fabric")].empty()) {
                const auto fab = parse_fabric(f[tc.at("fabric")]);
                if (!fab) throw std::invalid_argument(fmt::format("{}: unknown fabric '{}'", where, f[tc.at("fabric")]));
                // Custom nodes get the fabric's default per-message latency.
                r.topology.inter_node = FabricSpec{*fab, to_double(f[tc.at("gbps_per_gpu")], where + " gbps_per_gpu"),
                                                   detail::default_message_latency_us(*fab)};
            }
            const auto algo = parse_algorithm(f[tc.at("algorithm")]);
            if (!algo) throw std::invalid_argument(fmt::format("{}: unknown algorithm '{}'", where, f[tc.at("algorithm")]));
            r.algorithm = *algo;
            r.size_stated = f[tc.at("size_stated")] == "yes";
        }
        data.interpretations.push_back(std::move(r));
    }
    return data;
}

CalibrationResult calibrate_network(const CalibrationData& data) {
    const Problem pr = make_problem(data);
    const std::vector<ParamDef> defs = parameter_table();
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < defs.size(); ++j)
        if (defs[j].fit) free.push_back(j);

    const NetworkParams prior = prior_network_params();
    NetworkParams params = prior;
    auto with_theta = [&](const fit::Vector& theta) {
        NetworkParams p = params;
        for (std::size_t j = 0; j < free.size(); ++j) defs[free[j]].ref(p) = std::exp(theta[j]);
        // RoCE has no row; it follows InfiniBand (same NICs and verbs transport).
        p.roce_efficiency = p.infiniband_efficiency;
        // No Blackwell row: NVLS on NVLink5 follows the fitted Hopper value by NCCL's ratio.
        p.nvls5_efficiency = blackwell_nvls(p.nvls_efficiency);
        return p;
    };
    fit::Vector theta(free.size());
    for (std::size_t j = 0; j < free.size(); ++j) theta[j] = std::log(defs[free[j]].ref(params));
    const fit::Residuals log_errors = [&](const fit::Vector& at) { return residuals(pr, with_theta(at)); };

    // Levenberg-Marquardt with Marquardt's diagonal scaling and central differences.
    fit::Options options;
    options.differences = {.central = true, .step = 1e-5, .relative = false};
    options.max_iterations = 500;
    options.lambda = 1e-3;
    options.lambda_min = 1e-12;
    options.lambda_max = 1e12;
    options.ridge = 1e-12;
    options.tolerance = 1e-14;

    const fit::Matrix jac_prior = fit::jacobian(log_errors, theta, options.differences);
    // The model takes the fastest protocol, so the cost has several basins: start from the
    // priors and from the priors with every fitted latency scaled up, keep the lowest cost.
    fit::Result best;
    best.cost = std::numeric_limits<double>::infinity();
    int iterations = 0;
    for (double scale : {1.0, 3.0, 10.0, 30.0}) {
        fit::Vector start = theta;
        for (std::size_t j = 0; j < free.size(); ++j)
            if (defs[free[j]].name.ends_with("_us")) start[j] += std::log(scale);
        fit::Result run = fit::levenberg_marquardt(log_errors, start, options);
        iterations += run.iterations;
        if (run.cost < best.cost) best = std::move(run);
    }
    theta = best.x;
    const double cost = best.cost;

    CalibrationResult result;
    result.params = with_theta(theta);
    result.iterations = iterations;
    result.rms_log_error = std::sqrt(cost / static_cast<double>(std::max<std::size_t>(1, pr.rows.size())));
    const fit::Matrix jac = fit::jacobian(log_errors, theta, options.differences);
    for (std::size_t j = 0; j < defs.size(); ++j) {
        FittedParameter f;
        f.name = defs[j].name;
        NetworkParams copy = result.params;
        f.value = defs[j].ref(copy);
        NetworkParams prior_copy = prior;
        f.prior = defs[j].ref(prior_copy);
        const auto pos = std::find(free.begin(), free.end(), j);
        if (pos != free.end()) {
            const auto col = static_cast<std::size_t>(pos - free.begin());
            for (std::size_t i = 0; i < pr.rows.size(); ++i)
                if (std::abs(jac(i, col)) > 1e-7) f.rows.push_back(pr.rows[i]->id);
            f.fitted = !f.rows.empty();
            if (!f.fitted && std::abs(f.value - f.prior) > 0.01 * f.prior) {
                // The fit pushed it past the point where any row uses it (e.g. a protocol that
                // no row favours): report the rows it started from; the value is a lower bound.
                for (std::size_t i = 0; i < pr.rows.size(); ++i)
                    if (std::abs(jac_prior(i, col)) > 1e-7) f.rows.push_back(pr.rows[i]->id);
                f.bound = true;
            }
        }
        f.note = f.fitted ? "least squares on log(predicted/measured); prior: " + defs[j].prior_source
                 : f.bound ? "moved by the fit until no row uses it (no row favours it): a bound, not a measured value; prior: " +
                                 defs[j].prior_source
                           : "not fitted (no row depends on it); value from " + defs[j].prior_source;
        if (f.name == "roce_efficiency") f.note = "set equal to infiniband_efficiency: same ConnectX NICs and verbs transport; no RoCE row";
        if (f.name == "nvls5_efficiency")
            f.note = "no Blackwell row: nvls_efficiency x 0.74 / 0.85, NCCL's Blackwell over Hopper nvlsEfficiency (" + defs[j].prior_source + ")";
        result.parameters.push_back(std::move(f));
    }
    return result;
}

std::vector<ValidationRow> validate_network(const CalibrationData& data, const NetworkParams& params) {
    std::map<std::string, const RowInterpretation*, std::less<>> interpretation;
    for (const RowInterpretation& it : data.interpretations) interpretation[it.id] = &it;
    const Problem pr = make_problem(data);
    std::map<std::string, std::size_t, std::less<>> problem_index;
    for (std::size_t i = 0; i < pr.rows.size(); ++i) problem_index[pr.rows[i]->id] = i;

    std::vector<ValidationRow> out;
    for (const MeasuredRow& m : data.rows) {
        if (m.category != "nccl_busbw" && m.category != "p2p_bw") continue;
        ValidationRow v;
        v.id = m.id;
        v.measured = m.value;
        const auto it = interpretation.find(m.id);
        if (it == interpretation.end()) {
            v.note = "no interpretation in nccl_rows.csv";
            out.push_back(v);
            continue;
        }
        const RowInterpretation& row = *it->second;
        v.note = row.note;
        v.modelled = row.modelled;
        if (row.modelled) {
            const std::size_t i = problem_index.at(m.id);
            const CollectiveEstimate e = predict(pr.networks[i].with_params(params), row);
            v.op = std::string(to_string(row.op));
            v.algorithm = std::string(to_string(e.algorithm)) + "/" + std::string(to_string(e.protocol));
            v.bytes = row.bytes;
            v.gpus = row.ranks.empty() ? row.gpus : static_cast<int>(row.ranks.size());
            v.predicted = pr.algbw[i] ? e.algbw_gbps : e.busbw_gbps;
            v.error_pct = (v.predicted - v.measured) / v.measured * 100.0;
            v.size_stated = row.size_stated;
        }
        out.push_back(v);
    }
    return out;
}

namespace {
std::string size_text(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4 && std::fmod(bytes, 1024.0) == 0.0) {
        bytes /= 1024.0;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:g} {}", bytes, units[u]);
}
}  // namespace

std::string validation_markdown(const std::vector<ValidationRow>& rows, const CalibrationResult& fit) {
    std::string s;
    s += "# Network model: predicted against measured NCCL bandwidth\n\n";
    s += "Generated by the `network_tests` test program (tests/models/network/calibration_test.cpp),\n"
         "which fails when this file is out of date; run it with RENTSIM_UPDATE_GOLDEN=1 to rewrite it.\n\n";
    s += "Every row below is a `calibrate` row of the nccl_busbw and p2p_bw categories of\n"
         "models/compute/measurements/measured.csv: the model's constants were fitted to these same\n"
         "rows (data/fitted.csv), so the table shows how well the model can describe them,\n"
         "not how well it predicts unseen systems. Bandwidths are\n"
         "nccl-tests bus bandwidth in GB/s (algorithm bandwidth for the point-to-point rows). Sizes in\n"
         "italics are assumptions (the source does not state them; see data/nccl_rows.csv).\n\n";
    s += fmt::format("Fit: {} parameters, root-mean-square log error {:.3f}.\n\n",
                     std::count_if(fit.parameters.begin(), fit.parameters.end(), [](const FittedParameter& p) { return p.fitted; }),
                     fit.rms_log_error);
    s += "| id | op | bytes | gpus | algorithm | measured | predicted | error % |\n";
    s += "|---|---|---|---:|---|---:|---:|---:|\n";
    for (const ValidationRow& v : rows) {
        if (!v.modelled) continue;
        const std::string size = v.size_stated ? size_text(v.bytes) : "*" + size_text(v.bytes) + "*";
        s += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:+.1f} |\n", v.id, v.op, size, v.gpus,
                         v.algorithm, v.measured, v.predicted, v.error_pct);
    }
    s += "\n## Rows not modelled\n\n| id | reason |\n|---|---|\n";
    for (const ValidationRow& v : rows)
        if (!v.modelled) s += fmt::format("| {} | {} |\n", v.id, v.note);
    return s;
}

std::string fitted_csv(const CalibrationResult& fit, std::string_view date) {
    std::string s = "parameter,value,prior,fitted,fitted_from,date,note\n";
    for (const FittedParameter& p : fit.parameters) {
        std::string rows;
        for (const std::string& id : p.rows) rows += (rows.empty() ? "" : ";") + id;
        std::string note = p.note;
        std::replace(note.begin(), note.end(), '"', '\'');
        s += fmt::format("{},{:.6g},{:.6g},{},{},{},\"{}\"\n", p.name, p.value, p.prior, p.fitted ? "yes" : p.bound ? "bound" : "no", rows,
                         date, note);
    }
    return s;
}

}  // namespace rentsim::net
