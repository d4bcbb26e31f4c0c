#include "analysis/capacity/rentsim_csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::capacity {
namespace {

constexpr std::string_view header = "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok";
// The longest line read; a longer one is a bad row (and a guard against a binary file).
constexpr std::size_t max_line = 4096;

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = s.find(',', start);
        out.push_back(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
    }
}

bool number(std::string_view s, double& out) {
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
}

bool integer(std::string_view s, std::int64_t& out) {
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

RentsimCsvJobReader::RentsimCsvJobReader(const std::string& path, jobs::BadRowPolicy policy)
    : path_(path), in_(path, std::ios::binary), policy_(policy) {
    if (!in_) throw analysis::InputError(path, "", "cannot open file");
    std::string first;
    std::getline(in_, first);
    line_ = 1;
    if (!first.empty() && first.back() == '\r') first.pop_back();
    if (first != header)
        throw analysis::InputError(path, "line 1", "expected the header '" + std::string(header) + "', got '" +
                                                       first.substr(0, 80) + "'");
}

std::optional<jobs::Job> RentsimCsvJobReader::next() {
    std::string text;
    while (std::getline(in_, text)) {
        ++line_;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (text.empty()) continue;
        std::string why;
        jobs::Job j;
        const auto f = split(text);
        double submit = 0, duration = 0;
        std::int64_t gpus = 0, priority = 0;
        if (text.size() > max_line) why = "a line longer than 4096 characters";
        else if (f.size() != 7) why = "expected 7 fields (" + std::string(header) + "), got " + std::to_string(f.size());
        else if (!number(f[0], submit) || submit < 0 || submit > 3.15e9) why = "submit_s: expected seconds in [0, 3.15e9]";
        else if (!integer(f[1], gpus) || gpus < 1 || gpus > 1000000) why = "gpus: expected an integer in [1, 1000000]";
        else if (!number(f[2], duration) || duration < 0 || duration > 3.15e9) why = "duration_s: expected seconds in [0, 3.15e9]";
        else if (!f[5].empty() && !integer(f[5], priority)) why = "priority: expected an integer";
        else if (f[6] != "0" && f[6] != "1" && f[6] != "true" && f[6] != "false" && !f[6].empty())
            why = "spot_ok: expected 0, 1, true or false";
        else if (submit < last_submit_) why = "submit_s goes back in time: rows must be in submission order";
        if (why.empty()) {
            j.id = "line " + std::to_string(line_);
            j.submit_s = submit;
            j.gpus = static_cast<int>(gpus);
            j.duration_s = duration;
            j.gpu_type = std::string(f[3]);
            j.user = std::string(f[4]);
            j.priority = static_cast<int>(std::clamp<std::int64_t>(priority, -1000000, 1000000));
            j.spot_ok = f[6] == "1" || f[6] == "true";
            j.line = line_;
            last_submit_ = submit;
            return j;
        }
        if (policy_ == jobs::BadRowPolicy::fail) throw analysis::InputError(path_, "line " + std::to_string(line_), why);
        ++skipped_;
        if (bad_.size() < max_kept_bad_rows) bad_.push_back({line_, why});
    }
    return std::nullopt;
}

}  // namespace rentsim::capacity
