#include "analysis/report/charts.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "analysis/report/atomic_file.hpp"
#include "analysis/report/svg.hpp"
#include "analysis/scenario/input_error.hpp"

extern char** environ;

namespace rentsim::analysis {

namespace {

// Swept keys that set the GPU count: the x axis of the charts against GPU count, not a group.
bool gpu_count_key(const std::string& key) { return key == "cluster.gpus" || key == "cluster.nodes"; }

// A swept value for a label: strings without their quotes.
std::string shown(const std::string& json_text) {
    if (json_text.size() >= 2 && json_text.front() == '"' && json_text.back() == '"') return json_text.substr(1, json_text.size() - 2);
    return json_text;
}

// Whether a point ran to its end, so that its time and cost are a time to train and its cost.
bool finished(const ResultPoint& p) {
    return p.fits && p.time_to_train_s && p.cost_usd && (p.status == "done" || p.status.starts_with("missed deadline"));
}

std::string usd(double x) {
    if (x >= 1e6) return fmt::format("${:.2f}M", x / 1e6);
    if (x >= 1e4) return fmt::format("${:.0f}", x);
    return fmt::format("${:.2f}", x);
}

// A unit of time for an axis, from its largest value (as the tables choose theirs).
struct TimeAxis {
    double seconds;
    const char* name;
};
TimeAxis time_axis(double largest_s) {
    if (largest_s >= 2 * 86400.0) return {86400.0, "days"};
    if (largest_s >= 2 * 3600.0) return {3600.0, "hours"};
    if (largest_s >= 120.0) return {60.0, "minutes"};
    return {1.0, "seconds"};
}

// Logarithmic where the values span a factor of `factor` or more.
bool spans(const std::vector<double>& v, double factor) {
    if (v.empty()) return false;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *lo > 0 && *hi / *lo >= factor;
}

struct Group {
    std::string label;
    std::vector<std::size_t> points;  // indices, in file order
};

// The groups of the file in order of first appearance.
std::vector<Group> groups_of(const ResultFile& f) {
    std::vector<Group> groups;
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < f.points.size(); ++i) {
        std::string label;
        for (const auto& [key, value] : f.points[i].swept)
            if (!gpu_count_key(key)) label += (label.empty() ? "" : ", ") + shown(value);
        auto [it, fresh] = index.try_emplace(label, groups.size());
        if (fresh) groups.push_back({label, {}});
        groups[it->second].points.push_back(i);
    }
    // One group: name it by its GPU, which the legend then shows.
    if (groups.size() == 1 && groups[0].label.empty()) groups[0].label = f.points.front().gpu;
    return groups;
}

std::string subtitle(const ResultFile& f) {
    const ResultPoint& p = f.points.front();
    return fmt::format("{}: {}, {}", p.name, p.model, p.precision);
}

svg::Series series_for(std::size_t g, const std::string& label) {
    svg::Series s;
    s.label = label;
    const auto& colors = svg::palette();
    s.color = colors[g % colors.size()];
    s.shape = static_cast<svg::Shape>(g % 4);
    // Past the palette, lines repeat their colour with dashes.
    s.dashed = (g / colors.size()) % 2 == 1;
    return s;
}

std::string left_out_note(std::size_t excluded) {
    if (excluded == 0) return {};
    return fmt::format("{} left out: not finished (stopped, gave up, invalid or does not fit)",
                       excluded == 1 ? std::string("1 point") : fmt::format("{} points", excluded));
}

// The chart of one figure against GPU count, one line per group; nullopt where no group has
// two GPU counts among its finished points.
struct AgainstGpus {
    std::string name, title, y_label;
    double (*figure)(const ResultPoint&, double unit);  // in the y unit
};

std::optional<svg::LineChart> against_gpus(const ResultFile& f, const std::vector<Group>& groups, const AgainstGpus& spec,
                                          double unit, long callout, std::string& why) {
    svg::LineChart c;
    c.title = spec.title;
    c.subtitle = subtitle(f);
    c.x_label = "GPUs";
    c.y_label = spec.y_label;
    c.y_from_zero = true;
    bool any_line = false;
    std::set<double> counts;
    std::vector<double> ys;
    std::size_t excluded = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        svg::Series s = series_for(g, groups.size() > 1 || !groups[g].label.empty() ? groups[g].label : "");
        std::vector<std::size_t> idx;
        for (std::size_t i : groups[g].points) {
            if (finished(f.points[i])) idx.push_back(i);
            else ++excluded;
        }
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return f.points[a].gpus < f.points[b].gpus; });
        std::set<std::int64_t> distinct;
        for (std::size_t i : idx) {
            const double x = static_cast<double>(f.points[i].gpus), y = spec.figure(f.points[i], unit);
            s.points.emplace_back(x, y);
            counts.insert(x);
            ys.push_back(y);
            distinct.insert(f.points[i].gpus);
        }
        any_line = any_line || distinct.size() >= 2;
        if (!s.points.empty()) c.series.push_back(std::move(s));
    }
    if (!any_line) {
        why = "no line has two GPU counts (sweep cluster.gpus or cluster.nodes to draw one)";
        return std::nullopt;
    }
    const std::vector<double> xs(counts.begin(), counts.end());
    c.log_x = spans(xs, 8);
    if (xs.size() <= 12) c.x_ticks = xs;
    c.log_y = spans(ys, 20);
    if (callout >= 0) {
        const ResultPoint& p = f.points[static_cast<std::size_t>(callout)];
        c.callout = svg::Callout{static_cast<double>(p.gpus), spec.figure(p, unit), "cheapest within the deadline: " + usd(*p.cost_usd)};
    }
    c.note = left_out_note(excluded);
    return c;
}

std::string point_label(const ResultPoint& p) {
    if (p.swept.empty()) return p.name;
    std::string label;
    for (const auto& [key, value] : p.swept)
        label += (label.empty() ? "" : ", ") + shown(value) + (key == "cluster.gpus" ? " GPUs" : key == "cluster.nodes" ? (value == "1" ? " node" : " nodes") : "");
    return label;
}

}  // namespace

std::vector<std::size_t> pareto_front(const ResultFile& f) {
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < f.points.size(); ++i)
        if (finished(f.points[i])) all.push_back(i);
    std::stable_sort(all.begin(), all.end(), [&](std::size_t a, std::size_t b) {
        const auto &pa = f.points[a], &pb = f.points[b];
        return *pa.time_to_train_s != *pb.time_to_train_s ? *pa.time_to_train_s < *pb.time_to_train_s : *pa.cost_usd < *pb.cost_usd;
    });
    std::vector<std::size_t> front;
    for (std::size_t i : all)
        if (front.empty() || *f.points[i].cost_usd < *f.points[front.back()].cost_usd) front.push_back(i);
    return front;
}

long cheapest_within_deadline(const ResultFile& f) {
    long best = -1;
    for (std::size_t i = 0; i < f.points.size(); ++i) {
        const ResultPoint& p = f.points[i];
        if (!finished(p) || !p.deadline_h || !p.deadline_met_fraction || *p.deadline_met_fraction < 1 - 1e-12) continue;
        if (best < 0 || *p.cost_usd < *f.points[static_cast<std::size_t>(best)].cost_usd) best = static_cast<long>(i);
    }
    return best;
}

Charts result_charts(const ResultFile& f) {
    Charts out;
    const auto groups = groups_of(f);
    const long cheapest = cheapest_within_deadline(f);
    double longest = 0;
    for (const auto& p : f.points)
        if (finished(p)) longest = std::max(longest, *p.time_to_train_s);
    const TimeAxis t = time_axis(longest);
    std::size_t finished_points = 0;
    for (const auto& p : f.points) finished_points += finished(p) ? 1 : 0;

    const auto add = [&out](std::string name, std::string title, const std::string& svg_text) {
        out.charts.push_back({std::move(name), std::move(title), svg_text});
    };
    const auto skip = [&out](const std::string& name, const std::string& why) { out.notes.push_back(name + ": left out: " + why); };

    // 1 and 2: time and cost against GPU count.
    const AgainstGpus time_spec{"time-vs-gpus", "Time to train against GPU count", fmt::format("time to train ({})", t.name),
                                [](const ResultPoint& p, double unit) { return *p.time_to_train_s / unit; }};
    const AgainstGpus cost_spec{"cost-vs-gpus", "Cost against GPU count", "cost (USD)",
                                [](const ResultPoint& p, double) { return *p.cost_usd; }};
    for (const AgainstGpus* spec : {&time_spec, &cost_spec}) {
        std::string why;
        if (auto c = against_gpus(f, groups, *spec, t.seconds, spec == &cost_spec ? cheapest : -1, why))
            add(spec->name, spec->title, svg::render(*c));
        else
            skip(spec->name, why);
    }

    // 3: cost against time, with the Pareto front: the points no other is both faster and cheaper than.
    if (finished_points < 2) {
        skip("cost-vs-time", "needs two finished points");
    } else {
        svg::LineChart c;
        c.title = "Cost against time to train";
        c.subtitle = subtitle(f);
        c.x_label = fmt::format("time to train ({})", t.name);
        c.y_label = "cost (USD)";
        c.y_from_zero = true;
        std::vector<std::size_t> all;
        std::vector<double> xs, ys;
        for (std::size_t i = 0; i < f.points.size(); ++i)
            if (finished(f.points[i])) {
                all.push_back(i);
                xs.push_back(*f.points[i].time_to_train_s / t.seconds);
                ys.push_back(*f.points[i].cost_usd);
            }
        svg::Series front;
        front.label = "Pareto front";
        front.color = "#888888";
        front.shape = svg::Shape::ring;
        front.dashed = true;
        for (std::size_t i : pareto_front(f)) front.points.emplace_back(*f.points[i].time_to_train_s / t.seconds, *f.points[i].cost_usd);
        c.series.push_back(std::move(front));
        for (std::size_t g = 0; g < groups.size(); ++g) {
            svg::Series s = series_for(g, groups[g].label);
            s.line = false;
            for (std::size_t i : groups[g].points)
                if (finished(f.points[i])) s.points.emplace_back(*f.points[i].time_to_train_s / t.seconds, *f.points[i].cost_usd);
            if (!s.points.empty()) c.series.push_back(std::move(s));
        }
        c.log_x = spans(xs, 20);
        c.log_y = spans(ys, 20);
        // The deadline as a rule where every finished point shares one.
        std::set<double> deadlines;
        for (std::size_t i : all) deadlines.insert(f.points[i].deadline_h.value_or(-1));
        if (deadlines.size() == 1 && *deadlines.begin() > 0) {
            c.x_rule = *deadlines.begin() * 3600 / t.seconds;
            c.x_rule_label = fmt::format("deadline {:g} h", *deadlines.begin());
        }
        if (cheapest >= 0) {
            const ResultPoint& p = f.points[static_cast<std::size_t>(cheapest)];
            c.callout = svg::Callout{*p.time_to_train_s / t.seconds, *p.cost_usd, "cheapest within the deadline: " + usd(*p.cost_usd)};
        }
        c.note = left_out_note(f.points.size() - finished_points);
        add("cost-vs-time", c.title, svg::render(c));
    }

    // 4: scaling efficiency, (throughput / GPUs) over that of the group's smallest GPU count.
    {
        svg::LineChart c;
        c.title = "Scaling efficiency against GPU count";
        c.subtitle = subtitle(f);
        c.x_label = "GPUs";
        c.y_label = "throughput per GPU vs the fewest GPUs (%)";
        c.y_from_zero = true;
        std::set<double> counts;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            std::vector<std::size_t> idx;
            for (std::size_t i : groups[g].points)
                if (finished(f.points[i]) && f.points[i].throughput_samples_per_s && *f.points[i].throughput_samples_per_s > 0)
                    idx.push_back(i);
            std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return f.points[a].gpus < f.points[b].gpus; });
            if (idx.size() < 2 || f.points[idx.front()].gpus == f.points[idx.back()].gpus) continue;
            const ResultPoint& base = f.points[idx.front()];
            const double per_gpu0 = *base.throughput_samples_per_s / static_cast<double>(base.gpus);
            svg::Series s = series_for(g, groups[g].label);
            for (std::size_t i : idx) {
                const auto& p = f.points[i];
                s.points.emplace_back(static_cast<double>(p.gpus), 100 * *p.throughput_samples_per_s / static_cast<double>(p.gpus) / per_gpu0);
                counts.insert(static_cast<double>(p.gpus));
            }
            c.series.push_back(std::move(s));
        }
        if (c.series.empty()) {
            skip("scaling-efficiency", "no line has two GPU counts (sweep cluster.gpus or cluster.nodes to draw one)");
        } else {
            const std::vector<double> xs(counts.begin(), counts.end());
            svg::Series ideal;
            ideal.label = "linear scaling";
            ideal.color = "#888888";
            ideal.markers = false;
            ideal.dashed = true;
            ideal.points = {{xs.front(), 100.0}, {xs.back(), 100.0}};
            c.series.insert(c.series.begin(), std::move(ideal));
            c.log_x = spans(xs, 8);
            if (xs.size() <= 12) c.x_ticks = xs;
            add("scaling-efficiency", c.title, svg::render(c));
        }
    }

    // 5: memory per GPU by part. Points with the same parts share a bar (a pricing sweep has one).
    {
        constexpr std::size_t kMaxBars = 40;
        svg::StackedBars c;
        c.title = "Memory per GPU by part";
        c.subtitle = subtitle(f);
        c.y_label = "memory per GPU (GiB)";
        c.parts = {"weights", "gradients", "optimizer state", "activations", "workspace"};
        c.colors = {"#0072b2", "#56b4e9", "#e69f00", "#009e73", "#999999"};
        std::map<std::vector<long long>, std::size_t> bar_of;  // parts in 1/1000 GiB -> bar
        std::vector<std::size_t> shared, first_of_bar;
        std::set<double> available;
        for (std::size_t i = 0; i < f.points.size(); ++i) {
            const ResultPoint& p = f.points[i];
            if (p.status == "invalid") continue;
            const std::vector<double> parts{p.params_gib, p.gradients_gib, p.optimizer_gib, p.activations_gib, p.workspace_gib};
            std::vector<long long> key;
            for (double v : parts) key.push_back(std::llround(v * 1000));
            key.push_back(std::llround(p.memory_available_gib * 1000));
            const auto [it, fresh] = bar_of.try_emplace(key, c.categories.size());
            if (fresh) {
                first_of_bar.push_back(i);
                c.categories.push_back(point_label(p));
                c.values.push_back(parts);
                shared.push_back(0);
            } else {
                ++shared[it->second];
            }
            available.insert(p.memory_available_gib);
        }
        // Bars named by the swept keys that tell them apart (key=value), when several do.
        if (c.categories.size() == 1 && shared[0] > 0) {
            c.categories[0] = fmt::format("all {} points", shared[0] + 1);
            shared[0] = 0;
        } else if (c.categories.size() > 1 && !first_of_bar.empty()) {
            const auto& keys = f.points[first_of_bar[0]].swept;
            for (std::size_t b = 0; b < c.categories.size(); ++b) {
                std::string label;
                for (std::size_t k = 0; k < keys.size(); ++k) {
                    bool varies = false;
                    for (std::size_t i : first_of_bar) {
                        const auto& sw = f.points[i].swept;
                        varies = varies || k >= sw.size() || sw[k] != keys[k];
                    }
                    const auto& sw = f.points[first_of_bar[b]].swept;
                    if (varies && k < sw.size())
                        label += (label.empty() ? "" : ", ") + sw[k].first.substr(sw[k].first.rfind('.') + 1) + "=" + shown(sw[k].second);
                }
                if (!label.empty()) c.categories[b] = label;
            }
        }
        const bool evenly = std::all_of(shared.begin(), shared.end(), [&](std::size_t n) { return n == shared[0]; });
        for (std::size_t b = 0; b < c.categories.size() && !evenly; ++b)
            if (shared[b] > 0) c.categories[b] += fmt::format(" (+{})", shared[b]);
        if (c.categories.empty()) {
            skip("memory-by-part", "no valid point");
        } else if (c.categories.size() > kMaxBars) {
            skip("memory-by-part", fmt::format("{} distinct memory breakdowns, more than {} bars (see the CSV)", c.categories.size(), kMaxBars));
        } else {
            if (available.size() == 1) {
                c.y_rule = *available.begin();
                c.y_rule_label = fmt::format("GPU memory {:.0f} GiB", *available.begin());
            } else {
                c.note = "the GPUs differ in memory: see memory_available_gib in the CSV";
            }
            if (evenly && shared[0] > 0)
                c.note += std::string(c.note.empty() ? "" : "; ") + fmt::format("each bar stands for {} points with the same parts", shared[0] + 1);
            else if (std::any_of(shared.begin(), shared.end(), [](std::size_t n) { return n > 0; }))
                c.note += std::string(c.note.empty() ? "" : "; ") + "(+n): n more points with the same parts";
            add("memory-by-part", c.title, svg::render(c));
        }
    }
    return out;
}

std::string find_rsvg_convert() {
    const char* path = std::getenv("PATH");
    if (!path) return {};
    std::string_view rest(path);
    while (true) {
        const std::size_t colon = rest.find(':');
        const std::string dir(rest.substr(0, colon));
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/rsvg-convert";
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        if (colon == std::string_view::npos) return {};
        rest.remove_prefix(colon + 1);
    }
}

namespace {

// Runs `rsvg-convert -f png SVG` and returns what it writes on standard output; nullopt when it
// cannot be started or fails. Its standard error is discarded: the caller names the chart.
std::optional<std::string> render_png(const std::string& rsvg_convert, const std::string& svg_path) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::string a0 = rsvg_convert, a1 = "-f", a2 = "png", a3 = svg_path;
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, rsvg_convert.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return std::nullopt;
    }
    std::string png;
    char buf[65536];
    while (true) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) png.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || png.empty()) return std::nullopt;
    return png;
}

}  // namespace

std::vector<std::string> write_charts(const Charts& charts, const std::string& dir, const std::string& rsvg_convert) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw InputError(dir, "", "cannot create the folder for the plots" + (ec ? ": " + ec.message() : std::string()));
    std::vector<std::string> lines;
    std::vector<std::string> failed;
    // The folder shows this result only: charts of an earlier run that this one leaves out (or
    // has no PNG for) are removed.
    std::set<std::string> stale;
    for (const char* name : {"time-vs-gpus", "cost-vs-gpus", "cost-vs-time", "scaling-efficiency", "memory-by-part"})
        for (const char* ext : {".svg", ".png"}) stale.insert(std::string(name) + ext);
    for (const Chart& c : charts.charts) {
        const std::string svg_path = (std::filesystem::path(dir) / (c.name + ".svg")).string();
        write_file_atomically(svg_path, c.svg);
        stale.erase(c.name + ".svg");
        std::string line = "wrote " + svg_path;
        if (!rsvg_convert.empty()) {
            // An absolute path, so that a folder named like an option ("-x") stays a file name.
            if (const auto png = render_png(rsvg_convert, std::filesystem::absolute(svg_path).string())) {
                const std::string png_path = (std::filesystem::path(dir) / (c.name + ".png")).string();
                write_file_atomically(png_path, *png);
                stale.erase(c.name + ".png");
                line += " and " + c.name + ".png";
            } else {
                failed.push_back(c.name);
            }
        }
        lines.push_back(line);
    }
    for (const auto& name : stale) std::filesystem::remove(std::filesystem::path(dir) / name, ec);
    for (const auto& n : charts.notes) lines.push_back(n);
    if (rsvg_convert.empty() && !charts.charts.empty())
        lines.push_back("no PNG: rsvg-convert is not on PATH (Debian package librsvg2-bin); SVG only");
    if (!failed.empty()) {
        std::string names;
        for (const auto& n : failed) names += (names.empty() ? "" : ", ") + n;
        lines.push_back("no PNG for " + names + ": " + rsvg_convert + " failed");
    }
    return lines;
}

}  // namespace rentsim::analysis
