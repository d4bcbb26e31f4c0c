#include "analysis/report/check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "analysis/report/fields.hpp"
#include "analysis/report/report.hpp"

namespace rentsim::analysis {

namespace {

// The number a result holds for a numeric field; nullopt where it holds null or nothing.
std::optional<double> value_at(const Result& r, std::string_view name) {
    const auto v = reported_value(field(name), r);
    if (!v) return std::nullopt;
    if (const auto* d = std::get_if<double>(&*v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&*v)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&*v)) return static_cast<double>(*u);
    return std::nullopt;
}

// The unit shown after a figure; fractions go bare (0.35, not "0.35 fraction").
std::string_view unit_of(std::string_view name) {
    const auto* unit = expectation_field_registry().find(name);
    return !unit || *unit == "fraction" ? std::string_view() : *unit;
}

// A figure as a reader wants it: whole numbers whole, others to two decimals (four
// significant digits below 1), the unit after it, long durations also in hours or days.
std::string figure(double x, std::string_view unit) {
    std::string n;
    if (x == std::floor(x) && std::abs(x) < 1e15) n = fmt::format("{:.0f}", x);
    else if (std::abs(x) >= 1) n = fmt::format("{:.2f}", x);
    else n = fmt::format("{:.4g}", x);
    if (!unit.empty()) n += " " + std::string(unit);
    if (unit == "s" && std::abs(x) >= 120) n += " (" + human_duration(x) + ")";
    return n;
}

// "cost_usd <= 5000 USD": bounds as the user wrote them (shortest form of the number).
std::string bound_text(const Bound& b) {
    const std::string unit = unit_of(b.field).empty() ? "" : " " + std::string(unit_of(b.field));
    if (b.min && b.max) return fmt::format("{} <= {} <= {}{}", *b.min, b.field, *b.max, unit);
    if (b.min) return fmt::format("{} >= {}{}", b.field, *b.min, unit);
    return fmt::format("{} <= {}{}", b.field, *b.max, unit);
}

std::string label(const Result& r) { return r.point.empty() ? r.name : r.point; }

// Empty when `r` meets the bound; else what broke it.
std::string broken(const Bound& b, const Result& r) {
    const auto x = value_at(r, b.field);
    const auto unit = unit_of(b.field);
    if (!x) return fmt::format("{} has no value ({})", b.field, r.status);
    if (b.max && *x > *b.max) return fmt::format("{} = {}, above the max {}", b.field, figure(*x, unit), figure(*b.max, unit));
    if (b.min && *x < *b.min) return fmt::format("{} = {}, below the min {}", b.field, figure(*x, unit), figure(*b.min, unit));
    return {};
}

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100 * fraction); }

// Parts that moved a figure: (what, change as a fraction of the old figure); those under
// 0.05% are left out. "" when none is known.
std::string parts_text(const std::vector<std::pair<std::string, double>>& parts, std::string_view of) {
    std::string o;
    for (const auto& [what, change] : parts)
        if (std::isfinite(change) && std::abs(change) >= 0.0005) o += (o.empty() ? "" : ", ") + what + " " + percent(change);
    return o.empty() ? o : fmt::format("; {} {}", of, o);
}

double get(const ResultRow& row, const std::string& name) {
    const auto it = row.numbers.find(name);
    return it == row.numbers.end() || !it->second ? std::numeric_limits<double>::quiet_NaN() : *it->second;
}

double now(const Result& r, std::string_view name) {
    return value_at(r, name).value_or(std::numeric_limits<double>::quiet_NaN());
}

// Why time_to_train_s moved: each part of one step as a share of the old step, the number of
// steps, and the time outside steps (interruptions, staging) as a share of the old time.
std::string why_time(const Result& r, const ResultRow& old) {
    const double step = get(old, "iteration_s"), time = get(old, "time_to_train_s");
    std::vector<std::pair<std::string, double>> step_parts;
    for (const auto& [name, what] : {std::pair<std::string, std::string>{"breakdown.compute_s", "compute"},
                                     {"breakdown.exposed_comm_s", "communication"},
                                     {"breakdown.input_stall_s", "input"},
                                     {"breakdown.pipeline_bubble_s", "pipeline bubble"}})
        step_parts.emplace_back(what, (now(r, name) - get(old, name)) / step);
    std::string o = parts_text(step_parts, "per step:");
    o += parts_text({{"steps", now(r, "iterations") / get(old, "iterations") - 1},
                     {"work lost to interruptions", (now(r, "lifecycle.lost_work_s") - get(old, "lifecycle.lost_work_s")) / time},
                     {"staging", (now(r, "staging_s") - get(old, "staging_s")) / time},
                     {"evaluation", (now(r, "evaluation_s") - get(old, "evaluation_s")) / time}},
                    "run:");
    return o;
}

// Why cost_usd moved: the price, the GPUs billed and the billed time (each as its own
// ratio), and storage and egress as shares of the old cost.
std::string why_cost(const Result& r, const ResultRow& old) {
    const double cost = get(old, "cost_usd");
    const auto ratio = [&](const char* name) { return now(r, name) / get(old, name) - 1; };
    return parts_text({{"price per GPU-hour", ratio("lifecycle.usd_per_gpu_hour")},
                       {"GPUs billed", ratio("lifecycle.billed_gpus")},
                       {"billed time", ratio("billed_s")},
                       {"storage", (now(r, "lifecycle.storage_usd") - get(old, "lifecycle.storage_usd")) / cost},
                       {"egress", (now(r, "lifecycle.egress_usd") - get(old, "lifecycle.egress_usd")) / cost}},
                      "from:");
}

// Why a gated field moved, where the breakdown says: figures of the step from its parts,
// figures of money from the bill's parts; nothing for the others.
std::string why(std::string_view name, const Result& r, const ResultRow& old) {
    if (name == "cost_usd" || name == "cost_per_sample_usd") return why_cost(r, old);
    if (name == "time_to_train_s" || name == "iteration_s" || name == "throughput_samples_per_s" ||
        name == "throughput_tokens_per_s")
        return why_time(r, old);
    return {};
}

}  // namespace

std::vector<CheckCase> check_expectations(const Expectations& e, const std::vector<Result>& results) {
    std::vector<CheckCase> cases;
    for (const Result& r : results) {
        if (r.status == "invalid") continue;
        for (const Bound& b : e.each) cases.push_back({label(r) + ": " + bound_text(b), broken(b, r)});
    }
    if (e.best.empty()) return cases;
    const Result* best = nullptr;
    double least = 0;
    for (const Result& r : results)
        if (const auto x = value_at(r, e.best_by); x && r.status == "done" && (!best || *x < least)) {
            best = &r;
            least = *x;
        }
    const std::string head = "best (least " + e.best_by + (best ? ": " + label(*best) : std::string()) + "): ";
    for (const Bound& b : e.best)
        cases.push_back({head + bound_text(b),
                         best ? broken(b, *best) : "no point finished (status done) with a value of " + e.best_by});
    return cases;
}

std::vector<std::string> parse_gates(std::string_view text) {
    const auto& fields = expectation_field_registry();
    std::vector<std::string> gates;
    if (text == "all") {
        for (const auto& e : fields.entries()) gates.emplace_back(e.name);
        return gates;
    }
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t comma = std::min(text.find(',', from), text.size());
        const std::string_view name = text.substr(from, comma - from);
        if (!fields.find(name)) throw std::invalid_argument("--gate: " + fields.unknown_message(name) + ", or all");
        if (std::find(gates.begin(), gates.end(), name) == gates.end()) gates.emplace_back(name);
        from = comma + 1;
    }
    return gates;
}

void compare_with_baseline(const std::vector<Result>& results, const std::vector<ResultRow>& baseline, double tolerance,
                           const std::vector<std::string>& gates, FileCheck& check) {
    for (const Result& r : results) {
        if (r.status == "invalid") continue;
        const ResultRow* old = nullptr;
        for (const auto& row : baseline)
            if (row.name == r.name && row.point == r.point) old = &row;
        if (!old) {
            check.notes.push_back(label(r) + ": not in the baseline");
            continue;
        }
        std::string also;
        for (const auto& entry : expectation_field_registry().entries()) {
            const std::string name(entry.name);
            const bool gated = std::find(gates.begin(), gates.end(), name) != gates.end();
            const auto x = value_at(r, name);
            const double before = get(*old, name);
            const auto unit = unit_of(name);
            // What changed, without the field's name: "29.32 USD -> 30.48 USD (+4.0%)", or a value
            // that came or went.
            std::string change_text;
            bool figures = false;
            if (!x && !std::isnan(before)) change_text = fmt::format("was {}, now has no value ({})", figure(before, unit), r.status);
            else if (x && std::isnan(before)) change_text = fmt::format("had no value, now {}", figure(*x, unit));
            else if (x) {
                const double change = before == 0 ? (*x == 0 ? 0 : std::numeric_limits<double>::infinity()) : *x / before - 1;
                figures = std::abs(change) > tolerance;
                if (figures)
                    change_text = fmt::format("{} -> {} ({})", figure(before, unit), figure(*x, unit),
                                              std::isfinite(change) ? percent(change) : "from 0");
            }
            if (gated) {
                const std::string failure =
                    figures ? fmt::format("{} moved {}{}", name, change_text, why(name, r, *old)) : change_text;
                check.cases.push_back({fmt::format("baseline: {}: {} within {:g}%", label(r), name, 100 * tolerance), failure});
            } else if (!change_text.empty()) {
                also += (also.empty() ? "" : ", ") + name + " " + change_text;
            }
        }
        if (!also.empty()) check.notes.push_back(label(r) + ": also moved: " + also);
    }
}

double parse_tolerance(const std::string& text) {
    const bool percent_sign = !text.empty() && text.back() == '%';
    const std::string number = percent_sign ? text.substr(0, text.size() - 1) : text;
    std::size_t used = 0;
    double x = 0;
    try {
        x = std::stod(number, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (number.empty() || used != number.size() || !std::isfinite(x) || x < 0)
        throw std::invalid_argument("--tolerance: expected a share such as 2% or 0.02, got '" + text.substr(0, 64) + "'");
    return percent_sign ? x / 100 : x;
}

std::string format_checks(const std::vector<FileCheck>& checks) {
    std::string o;
    std::size_t cases = 0, failed = 0, errors = 0;
    for (const FileCheck& c : checks) {
        std::size_t f = 0;
        for (const auto& k : c.cases) f += !k.failure.empty();
        cases += c.cases.size();
        failed += f;
        errors += !c.errors.empty();
        const std::string points = fmt::format("{} point{}", c.points, c.points == 1 ? "" : "s");
        if (!c.errors.empty() && c.points == 0) o += c.file + ": does not load\n";
        else if (!c.ran) o += c.file + ": " + points + ", no expectations (loaded, not run)\n";
        else if (f > 0) o += fmt::format("{}: {}, {} of {} checks failed\n", c.file, points, f, c.cases.size());
        else o += fmt::format("{}: {}, {} check{} passed\n", c.file, points, c.cases.size(), c.cases.size() == 1 ? "" : "s");
        for (const auto& e : c.errors) o += "  ERROR " + e + "\n";
        for (const auto& k : c.cases)
            if (!k.failure.empty()) o += "  FAIL " + k.name + ": " + k.failure + "\n";
        for (const auto& n : c.notes) o += "  note " + n + "\n";
    }
    o += fmt::format("{} file{}, {} checks, {} failed, {} with errors\n", checks.size(), checks.size() == 1 ? "" : "s", cases,
                     failed, errors == 1 ? "1 file" : fmt::format("{} files", errors));
    return o;
}

std::string xml_escape(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    static constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '&': o += "&amp;"; break;
                case '<': o += "&lt;"; break;
                case '>': o += "&gt;"; break;
                case '"': o += "&quot;"; break;
                case '\'': o += "&apos;"; break;
                case '\t': o += "&#9;"; break;
                case '\n': o += "&#10;"; break;
                case '\r': o += "&#13;"; break;
                default: o += c < 0x20 || c == 0x7f ? std::string(replacement) : std::string(1, static_cast<char>(c));
            }
            ++i;
            continue;
        }
        // A whole, shortest UTF-8 sequence of a valid code point, or U+FFFD for one byte.
        const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        bool ok = n > 0 && c < 0xF5 && i + n <= s.size();
        char32_t cp = n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
        for (std::size_t k = 1; ok && k < n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            ok = (d & 0xC0) == 0x80;
            cp = (cp << 6) | (d & 0x3F);
        }
        const char32_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
        ok = ok && cp >= least && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) && cp != 0xFFFE && cp != 0xFFFF;
        if (ok) {
            o.append(s.substr(i, n));
            i += n;
        } else {
            o += replacement;
            ++i;
        }
    }
    return o;
}

std::string junit_xml(const std::vector<FileCheck>& checks) {
    struct Tally {
        std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    };
    const auto counts_of = [](const FileCheck& c) {
        Tally n;
        n.errors = c.errors.size();
        n.skipped = c.errors.empty() && c.cases.empty() ? 1 : 0;
        n.tests = c.cases.size() + n.errors + n.skipped;
        for (const auto& k : c.cases) n.failures += !k.failure.empty();
        return n;
    };
    Tally all;
    for (const auto& c : checks) {
        const Tally n = counts_of(c);
        all.tests += n.tests;
        all.failures += n.failures;
        all.errors += n.errors;
        all.skipped += n.skipped;
    }
    std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o += fmt::format("<testsuites name=\"rentsim check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n", all.tests,
                     all.failures, all.errors, all.skipped);
    for (const auto& c : checks) {
        const Tally n = counts_of(c);
        const std::string file = xml_escape(c.file);
        o += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n", file, n.tests,
                         n.failures, n.errors, n.skipped);
        for (std::size_t i = 0; i < c.errors.size(); ++i)
            o += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                             file, i == 0 ? std::string("input") : fmt::format("input {}", i + 1), xml_escape(c.errors[i]));
        if (n.skipped > 0)
            o += fmt::format("    <testcase classname=\"{}\" name=\"expectations\">\n      <skipped message=\"no expect "
                             "block\"/>\n    </testcase>\n",
                             file);
        for (const auto& k : c.cases) {
            if (k.failure.empty()) {
                o += fmt::format("    <testcase classname=\"{}\" name=\"{}\"/>\n", file, xml_escape(k.name));
                continue;
            }
            const std::string why = xml_escape(k.failure);
            o += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n      <failure message=\"{}\">{}</failure>\n"
                             "    </testcase>\n",
                             file, xml_escape(k.name), why, why);
        }
        o += "  </testsuite>\n";
    }
    o += "</testsuites>\n";
    return o;
}

}  // namespace rentsim::analysis
