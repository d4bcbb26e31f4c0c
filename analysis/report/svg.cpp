#include "analysis/report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rentsim::analysis::svg {

namespace {

// The page and the plot area inside it, in px. The legend takes the right-hand column.
constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 78, kTop = 58, kBottomGap = 62, kRightGap = 20, kLegendWidth = 172;
constexpr double kFont = 12, kSmallFont = 11, kTitleFont = 16;
constexpr double kCharWidth = 6.6;  // average advance of the 11-12 px sans-serif, for truncating labels
constexpr const char* kInk = "#222222";
constexpr const char* kGrid = "#e4e4e4";
constexpr const char* kMuted = "#666666";
constexpr const char* kRule = "#c0392b";

std::string fixed(double x, int decimals) {
    std::string s = fmt::format("{:.{}f}", x, decimals);
    if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-') s.erase(0, 1);  // "-0.0" -> "0.0"
    return s;
}

// At most `chars` characters, cut with an ellipsis (counting UTF-8 code points).
std::string truncated(const std::string& s, std::size_t chars) {
    std::size_t count = 0, at = 0;
    for (; at < s.size(); ++at) {
        if ((static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) continue;
        if (count == chars) break;
        ++count;
    }
    if (at >= s.size()) return s;
    std::size_t cut = at;
    // Leave room for the ellipsis: drop one more code point.
    while (cut > 0 && (static_cast<unsigned char>(s[--cut]) & 0xC0) == 0x80) {
    }
    return s.substr(0, cut) + "\xE2\x80\xA6";
}

class Doc {
public:
    Doc() {
        o_ = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                         "font-family=\"sans-serif\">\n",
                         fixed(kWidth, 0), fixed(kHeight, 0));
        o_ += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", fixed(kWidth, 0),
                          fixed(kHeight, 0));
    }
    void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width, bool dashed = false) {
        o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", coord(x1),
                          coord(y1), coord(x2), coord(y2), stroke, coord(width), dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    void rect(double x, double y, double w, double h, const std::string& fill) {
        o_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", coord(x), coord(y), coord(w),
                          coord(h), fill);
    }
    void polyline(const std::vector<std::pair<double, double>>& px, const std::string& stroke, bool dashed) {
        std::string pts;
        for (const auto& [x, y] : px) pts += (pts.empty() ? "" : " ") + coord(x) + "," + coord(y);
        o_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-linejoin=\"round\"{}/>\n",
                          pts, stroke, dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    void ring(double x, double y, double r) {
        o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", coord(x),
                          coord(y), coord(r), kInk);
    }
    void marker(Shape shape, double x, double y, const std::string& fill) {
        const std::string tail = fmt::format(" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"1\"/>\n", fill);
        switch (shape) {
            case Shape::ring:
                o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"8\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", coord(x),
                                  coord(y), fill);
                break;
            case Shape::circle: o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\"", coord(x), coord(y)) + tail; break;
            case Shape::square:
                o_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\"", coord(x - 4), coord(y - 4)) + tail;
                break;
            case Shape::triangle:
                o_ += fmt::format("<polygon points=\"{},{} {},{} {},{}\"", coord(x), coord(y - 5.5), coord(x + 5), coord(y + 4),
                                  coord(x - 5), coord(y + 4)) + tail;
                break;
            case Shape::diamond:
                o_ += fmt::format("<polygon points=\"{},{} {},{} {},{} {},{}\"", coord(x), coord(y - 5.5), coord(x + 5.5),
                                  coord(y), coord(x), coord(y + 5.5), coord(x - 5.5), coord(y)) + tail;
                break;
        }
    }
    // anchor: start, middle, end. rotate: degrees about (x, y).
    void text(double x, double y, const std::string& s, double size, const char* anchor, const char* fill = kInk,
              bool bold = false, double rotate = 0) {
        o_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\"{}{}>{}</text>\n", coord(x),
                          coord(y), coord(size), anchor, fill, bold ? " font-weight=\"bold\"" : "",
                          rotate != 0 ? fmt::format(" transform=\"rotate({} {} {})\"", coord(rotate), coord(x), coord(y)) : "",
                          escape(s));
    }
    std::string finish() { return o_ + "</svg>\n"; }

private:
    std::string o_;
};

void header(Doc& d, const std::string& title, const std::string& subtitle) {
    d.text(kLeft, 26, title, kTitleFont, "start", kInk, true);
    if (!subtitle.empty()) d.text(kLeft, 44, truncated(subtitle, 95), kSmallFont, "start", kMuted);
}

// Ticks at given values, the range padded so that no marker sits on the frame.
Ticks given_ticks(std::vector<double> values, bool log) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    Ticks t;
    t.values = values;
    const double lo = values.front(), hi = values.back();
    const double largest = std::max(std::abs(lo), std::abs(hi));
    for (double v : values) t.labels.push_back(tick_label(v, v == std::floor(v) ? 1.0 : 0.01, largest));
    if (log) {
        const double pad = hi > lo ? std::pow(hi / lo, 0.06) : 1.5;
        t.lo = lo / pad;
        t.hi = hi * pad;
    } else {
        const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(1.0, std::abs(lo) * 0.1);
        t.lo = lo - pad;
        t.hi = hi + pad;
    }
    return t;
}

void y_axis(Doc& d, const Ticks& t, const Scale& y, double left, double right) {
    for (std::size_t i = 0; i < t.values.size(); ++i) {
        const double py = y(t.values[i]);
        d.line(left, py, right, py, kGrid, 1);
        d.text(left - 6, py + 4, t.labels[i], kSmallFont, "end");
    }
}

void x_axis(Doc& d, const Ticks& t, const Scale& x, double top, double bottom) {
    for (std::size_t i = 0; i < t.values.size(); ++i) {
        const double px = x(t.values[i]);
        d.line(px, top, px, bottom, kGrid, 1);
        d.line(px, bottom, px, bottom + 4, kInk, 1);
        d.text(px, bottom + 17, t.labels[i], kSmallFont, "middle");
    }
}

void frame(Doc& d, double left, double top, double right, double bottom, const std::string& x_label,
           const std::string& y_label) {
    d.line(left, bottom, right, bottom, kInk, 1);
    d.line(left, top, left, bottom, kInk, 1);
    if (!x_label.empty()) d.text((left + right) / 2, bottom + 38, x_label, kFont, "middle");
    if (!y_label.empty()) d.text(18, (top + bottom) / 2, y_label, kFont, "middle", kInk, false, -90);
}

// Legend entries in the right-hand column: a swatch (a line with its marker, or a box) and a label.
struct Entry {
    std::string label, color;
    std::optional<Shape> shape;  // the marker; nullopt: none
    bool line = true, dashed = false;
    bool box = false;            // a filled box (bars)
};

void legend(Doc& d, const std::vector<Entry>& entries, double x, double top) {
    constexpr std::size_t kMaxEntries = 16;
    constexpr double kRow = 18;
    double y = top + 6;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i + 1 == kMaxEntries && entries.size() > kMaxEntries) {
            d.text(x, y + 4, fmt::format("+{} more", entries.size() - i), kSmallFont, "start", kMuted);
            break;
        }
        const Entry& e = entries[i];
        if (e.box) {
            d.rect(x, y - 6, 14, 12, e.color);
        } else {
            if (e.line) d.line(x - 2, y, x + 18, y, e.color, 2, e.dashed);
            if (e.shape) d.marker(*e.shape, x + 8, y, e.color);
        }
        d.text(x + 24, y + 4, truncated(e.label, 21), kSmallFont, "start");
        y += kRow;
    }
}

}  // namespace

std::string coord(double x) { return fixed(std::round(x * 10) / 10, 1); }

std::string escape(std::string_view text) {
    std::string o;
    o.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&#39;"; break;
            default:
                // XML 1.0 allows no control characters but tab, newline and carriage return.
                if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r') o += c;
        }
    }
    return o;
}

std::string tick_label(double v, double step, double largest) {
    if (v == 0) return "0";
    double div = 1;
    const char* suffix = "";
    if (largest >= 1e6) {
        div = 1e6;
        suffix = "M";
    } else if (largest >= 1e4) {
        div = 1e3;
        suffix = "k";
    }
    const double s = std::abs(step) / div;
    const int decimals = s >= 1 || s <= 0 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
    return fixed(v / div, decimals) + suffix;
}

Ticks linear_ticks(double lo, double hi, int target) {
    // A range too narrow for its magnitude (or empty) is widened around its middle.
    if (!(hi - lo > 1e-9 * std::max(std::abs(lo), std::abs(hi)))) {
        lo = hi = (lo + hi) / 2;
        const double d = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
        lo -= d;
        hi += d;
    }
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / mag;
    const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    // Integer multiples of the step, so that ticks do not accumulate rounding.
    const double k0 = std::floor(lo / step + 1e-9), k1 = std::ceil(hi / step - 1e-9);
    Ticks t;
    t.lo = k0 * step;
    t.hi = k1 * step;
    const double largest = std::max(std::abs(t.lo), std::abs(t.hi));
    constexpr int kMaxTicks = 64;  // `target` ~ 5 gives at most 2 * target + 1; a bound against rounding at extremes
    const int n = static_cast<int>(std::min<double>(kMaxTicks, std::max(0.0, std::round(k1 - k0))));
    for (int i = 0; i <= n; ++i) {
        const double v = (k0 + i) * step;
        t.values.push_back(v == 0 ? 0.0 : v);
        t.labels.push_back(tick_label(v, step, largest));
    }
    return t;
}

Ticks log_ticks(double lo, double hi) {
    if (!(lo > 0) || !(hi >= lo)) return linear_ticks(lo, hi);
    if (hi == lo) {
        lo /= 2;
        hi *= 2;
    }
    const int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9)), d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    // The ends: the 1, 2, 5 x 10^k around the range, so that it is not widened to whole decades.
    Ticks t;
    t.lo = std::pow(10.0, d0);
    t.hi = std::pow(10.0, d1);
    for (int d = d0; d <= d1; ++d)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double c = m * std::pow(10.0, d);
            if (c <= lo * (1 + 1e-9)) t.lo = c;
            if (c >= hi * (1 - 1e-9) && c < t.hi) t.hi = c;
        }
    // Ticks: 1, 2 and 5 of each decade over fewer than three decades, else the decades; and the ends.
    const bool fine = d1 - d0 < 3;
    for (int d = d0; d <= d1; ++d)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double c = m * std::pow(10.0, d);
            if (c < t.lo * (1 - 1e-9) || c > t.hi * (1 + 1e-9)) continue;
            if (fine || m == 1.0 || c == t.lo || c == t.hi) {
                t.values.push_back(c);
                t.labels.push_back(tick_label(c, c, t.hi));
            }
        }
    return t;
}

double Scale::operator()(double v) const {
    double t = 0;
    if (log) {
        const double a = std::log10(lo), b = std::log10(hi);
        t = b > a ? (std::log10(v) - a) / (b - a) : 0.5;
    } else {
        t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    }
    return from + t * (to - from);
}

const std::vector<std::string>& palette() {
    static const std::vector<std::string> colors{"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                                 "#56b4e9", "#d55e00", "#000000", "#f0e442"};
    return colors;
}

std::string render(const LineChart& c) {
    Doc d;
    header(d, c.title, c.subtitle);
    std::vector<Entry> entries;
    for (const Series& s : c.series)
        if (!s.label.empty()) entries.push_back({s.label, s.color, s.markers ? std::optional<Shape>(s.shape) : std::nullopt, s.line, s.dashed, false});
    const bool has_legend = !entries.empty();
    const double left = kLeft, top = kTop, bottom = kHeight - kBottomGap;
    const double right = kWidth - kRightGap - (has_legend ? kLegendWidth : 0);

    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const Series& s : c.series)
        for (const auto& [x, y] : s.points) {
            x0 = std::min(x0, x), x1 = std::max(x1, x);
            y0 = std::min(y0, y), y1 = std::max(y1, y);
        }
    if (c.x_rule) x0 = std::min(x0, *c.x_rule), x1 = std::max(x1, *c.x_rule);
    if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // no points: an empty frame
    if (c.y_from_zero && !c.log_y) y0 = std::min(0.0, y0);
    const Ticks xt = !c.x_ticks.empty() ? given_ticks(c.x_ticks, c.log_x)
                     : c.log_x          ? log_ticks(x0, x1)
                                        : linear_ticks(c.y_from_zero ? std::min(0.0, x0) : x0, x1);
    const Ticks yt = c.log_y ? log_ticks(y0, y1) : linear_ticks(y0, y1);
    const Scale xs{xt.lo, xt.hi, left, right, c.log_x};
    const Scale ys{yt.lo, yt.hi, bottom, top, c.log_y};
    y_axis(d, yt, ys, left, right);
    x_axis(d, xt, xs, top, bottom);
    frame(d, left, top, right, bottom, c.x_label, c.y_label);
    if (c.x_rule) {
        const double px = xs(*c.x_rule);
        d.line(px, top, px, bottom, kRule, 1.5, true);
        // On the side with room: right of a rule in the left half, else left of it.
        const bool room_right = px < (left + right) / 2;
        d.text(room_right ? px + 4 : px - 4, top + 12, c.x_rule_label, kSmallFont, room_right ? "start" : "end", kRule);
    }
    for (const Series& s : c.series) {
        std::vector<std::pair<double, double>> px;
        for (const auto& [x, y] : s.points) px.emplace_back(xs(x), ys(y));
        if (s.line && px.size() > 1) d.polyline(px, s.color, s.dashed);
        if (s.markers)
            for (const auto& [x, y] : px) d.marker(s.shape, x, y, s.color);
    }
    if (c.callout) {
        const double px = xs(c.callout->x), py = ys(c.callout->y);
        d.ring(px, py, 10);
        // Beside the ring, on the side away from the frame's nearer corner, so that the
        // label does not run over the points around it (most lie level with it).
        const bool left_half = px < (left + right) / 2, upper_half = py < (top + bottom) / 2;
        d.text(left_half ? px + 10 : px - 10, upper_half ? py + 26 : py - 16, c.callout->label, kSmallFont,
               left_half ? "start" : "end", kInk, true);
    }
    if (has_legend) legend(d, entries, right + 22, top);
    if (!c.note.empty()) d.text(left, kHeight - 8, truncated(c.note, 100), kSmallFont, "start", kMuted);
    return d.finish();
}

std::string render(const StackedBars& c) {
    Doc d;
    header(d, c.title, c.subtitle);
    const std::size_t n = c.categories.size();
    const double slot_chars_limit = 14;
    const bool rotate = n > 6;
    const double left = kLeft, top = kTop, bottom = kHeight - (rotate ? 112 : kBottomGap);
    const double right = kWidth - kRightGap - kLegendWidth;
    double total_max = c.y_rule.value_or(0);
    for (const auto& row : c.values) {
        double t = 0;
        for (double v : row) t += v;
        total_max = std::max(total_max, t);
    }
    const Ticks yt = linear_ticks(0, total_max > 0 ? total_max : 1);
    const Scale ys{yt.lo, yt.hi, bottom, top, false};
    y_axis(d, yt, ys, left, right);
    frame(d, left, top, right, bottom, "", c.y_label);
    const double slot = (right - left) / static_cast<double>(std::max<std::size_t>(n, 1));
    const double bar = std::min(56.0, slot * 0.7);
    for (std::size_t i = 0; i < n; ++i) {
        const double cx = left + slot * (static_cast<double>(i) + 0.5);
        double base = 0;
        for (std::size_t p = 0; p < c.parts.size() && p < c.values[i].size(); ++p) {
            const double v = c.values[i][p];
            if (v > 0) d.rect(cx - bar / 2, ys(base + v), bar, ys(base) - ys(base + v), c.colors[p % c.colors.size()]);
            base += v;
        }
        if (rotate) {
            // Rotated 35 degrees about its end: as many characters as fit between the page's edge and the bar.
            const double fit = (cx - 4) / std::cos(35 * std::acos(-1.0) / 180) / kCharWidth;
            d.text(cx + 3, bottom + 12, truncated(c.categories[i], static_cast<std::size_t>(std::clamp(fit, 4.0, 24.0))), kSmallFont,
                   "end", kInk, false, -35);
        } else {
            d.text(cx, bottom + 17,
                   truncated(c.categories[i], static_cast<std::size_t>(std::max(4.0, std::min(slot_chars_limit * 2, slot / kCharWidth)))),
                   kSmallFont, "middle");
        }
    }
    if (c.y_rule) {
        const double py = ys(*c.y_rule);
        d.line(left, py, right, py, kRule, 1.5, true);
        d.text(right - 4, py - 5, c.y_rule_label, kSmallFont, "end", kRule);
    }
    std::vector<Entry> entries;
    for (std::size_t p = c.parts.size(); p-- > 0;) entries.push_back({c.parts[p], c.colors[p % c.colors.size()], std::nullopt, false, false, true});
    legend(d, entries, right + 22, top);
    if (!c.note.empty()) d.text(left, kHeight - 8, truncated(c.note, 100), kSmallFont, "start", kMuted);
    return d.finish();
}

}  // namespace rentsim::analysis::svg
