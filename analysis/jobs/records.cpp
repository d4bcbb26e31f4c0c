#include "analysis/jobs/records.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::jobs {

namespace {
// Large enough that reading costs a few system calls per megabyte, small enough to open cheaply.
constexpr std::size_t buffer_bytes = std::size_t{1} << 16;
}  // namespace

RecordReader::RecordReader(const std::string& path, char separator)
    : path_(path), sep_(separator), in_(path, std::ios::binary), buf_(buffer_bytes) {
    if (!in_) throw analysis::InputError(path, "", "cannot open file");
}

bool RecordReader::fill() {
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    end_ = static_cast<std::size_t>(in_.gcount());
    pos_ = 0;
    return end_ > 0;
}

int RecordReader::get() {
    if (pos_ == end_ && !fill()) return -1;
    return static_cast<unsigned char>(buf_[pos_++]);
}

int RecordReader::peek() {
    if (pos_ == end_ && !fill()) return -1;
    return static_cast<unsigned char>(buf_[pos_]);
}

void RecordReader::rewind() {
    in_.clear();
    in_.seekg(0);
    pos_ = end_ = 0;
    line_ = 1;
    seen_record_ = false;
}

bool RecordReader::next(Record& r) {
    // Skip blank lines, and comment lines above the first record.
    for (;;) {
        const int c = peek();
        if (c == -1) return false;
        if (c == '\n') {
            get();
            ++line_;
        } else if (c == '\r') {
            get();  // the CR of a CRLF blank line (a stray CR at the start of a line is dropped too)
        } else if (c == '#' && !seen_record_) {
            for (int d = get(); d != -1 && d != '\n'; d = get()) {
            }
            ++line_;
        } else {
            break;
        }
    }
    seen_record_ = true;
    r.line = line_;
    r.error.clear();
    std::size_t nf = 0;
    auto next_field = [&]() -> std::string& {
        if (nf == r.fields.size()) r.fields.emplace_back();
        r.fields[nf].clear();
        return r.fields[nf++];
    };
    auto skip_line = [&] {
        for (int d = get(); d != -1; d = get())
            if (d == '\n') {
                ++line_;
                return;
            }
    };
    std::string* cell = &next_field();
    bool at_start = true;
    for (;;) {
        int c = get();
        if (c == -1) break;
        if (c == '"' && at_start && sep_ == ',') {
            at_start = false;
            bool closed = false;
            for (c = get(); c != -1; c = get()) {
                if (c == '"') {
                    if (peek() == '"') {
                        get();
                        cell->push_back('"');
                        continue;
                    }
                    closed = true;
                    break;
                }
                if (c == '\n') ++line_;
                cell->push_back(static_cast<char>(c));
                if (cell->size() > max_cell_chars) break;
            }
            if (cell->size() > max_cell_chars) {
                r.error = "a cell of more than " + std::to_string(max_cell_chars) + " characters";
                skip_line();
                break;
            }
            if (!closed) {
                r.error = "a quoted field is not closed before the end of the file";
                break;
            }
            const int after = peek();
            if (after != -1 && after != sep_ && after != '\n' && after != '\r') {
                r.error = "text after a closing quote; expected '" + std::string(1, sep_) + "' or the end of the line";
                skip_line();
                break;
            }
            continue;
        }
        at_start = false;
        if (c == sep_) {
            if (nf == max_fields) {
                r.error = "more than " + std::to_string(max_fields) + " fields";
                skip_line();
                break;
            }
            cell = &next_field();
            at_start = true;
            continue;
        }
        if (c == '\r' && peek() == '\n') continue;
        if (c == '\n') {
            ++line_;
            break;
        }
        cell->push_back(static_cast<char>(c));
        if (cell->size() > max_cell_chars) {
            r.error = "a cell of more than " + std::to_string(max_cell_chars) + " characters";
            skip_line();
            break;
        }
    }
    r.fields.resize(nf);
    return true;
}

std::optional<double> parse_number(std::string_view s) {
    if (s.empty()) return std::nullopt;
    double v = 0;
    const char* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<std::int64_t> parse_integer(std::string_view s) {
    if (s.empty()) return std::nullopt;
    std::int64_t v = 0;
    const char* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec == std::errc() && p == end) return v;
    // Some traces write counts as floats ("8.0").
    const auto d = parse_number(s);
    if (!d || *d != std::floor(*d) || std::fabs(*d) > 9.0e15) return std::nullopt;
    return static_cast<std::int64_t>(*d);
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// `n` digits at s[i..]; advances i.
std::optional<unsigned> digits(std::string_view s, std::size_t& i, std::size_t n) {
    if (i + n > s.size()) return std::nullopt;
    unsigned v = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const char c = s[i + k];
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    i += n;
    return v;
}

bool expect(std::string_view s, std::size_t& i, char c) {
    if (i >= s.size() || s[i] != c) return false;
    ++i;
    return true;
}

}  // namespace

std::optional<double> parse_datetime(std::string_view s) {
    std::size_t i = 0;
    const auto y = digits(s, i, 4);
    if (!y || !expect(s, i, '-')) return std::nullopt;
    const auto mo = digits(s, i, 2);
    if (!mo || !expect(s, i, '-')) return std::nullopt;
    const auto d = digits(s, i, 2);
    if (!d || i >= s.size() || (s[i] != ' ' && s[i] != 'T')) return std::nullopt;
    ++i;
    const auto h = digits(s, i, 2);
    if (!h || !expect(s, i, ':')) return std::nullopt;
    const auto mi = digits(s, i, 2);
    if (!mi || !expect(s, i, ':')) return std::nullopt;
    const auto se = digits(s, i, 2);
    if (!se) return std::nullopt;
    static constexpr unsigned month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*mo < 1 || *mo > 12) return std::nullopt;
    const unsigned dim = month_days[*mo - 1] + (*mo == 2 && leap(*y) ? 1 : 0);
    if (*d < 1 || *d > dim || *h > 23 || *mi > 59 || *se > 60) return std::nullopt;
    double frac = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        double scale = 0.1;
        const std::size_t first = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            frac += scale * (s[i] - '0');
            scale /= 10;
            ++i;
        }
        if (i == first) return std::nullopt;
    }
    std::int64_t offset_s = 0;
    if (i < s.size()) {
        if (s[i] == 'Z') {
            ++i;
        } else if (s[i] == '+' || s[i] == '-') {
            const int sign = s[i] == '+' ? 1 : -1;
            ++i;
            const auto oh = digits(s, i, 2);
            if (!oh || !expect(s, i, ':')) return std::nullopt;
            const auto om = digits(s, i, 2);
            if (!om || *oh > 23 || *om > 59) return std::nullopt;
            offset_s = sign * static_cast<std::int64_t>(*oh * 3600 + *om * 60);
        }
    }
    if (i != s.size()) return std::nullopt;
    const std::int64_t t = days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *se - offset_s;
    return static_cast<double>(t) + frac;
}

std::string quote_cell(std::string_view s) {
    constexpr std::size_t shown = 64;
    return "'" + std::string(s.substr(0, shown)) + (s.size() > shown ? "...'" : "'");
}

}  // namespace rentsim::jobs
