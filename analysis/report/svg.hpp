// A small SVG writer for the result charts: axes with nice ticks (linear or logarithmic),
// lines with markers, a legend, titles and units; and stacked bars. Coordinates and labels are
// formatted with fixed decimals, so that the same chart gives the same bytes everywhere. No
// fonts or scripts are referenced: text uses the viewer's sans-serif.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rentsim::analysis::svg {

// A coordinate with one decimal ("12.5"; never "-0.0").
std::string coord(double x);
// Text for XML content and attribute values: & < > " ' escaped, control characters dropped.
std::string escape(std::string_view text);

// The ticks of an axis: positions in data units, their labels, and the axis range they span.
struct Ticks {
    double lo = 0, hi = 1;
    std::vector<double> values;
    std::vector<std::string> labels;
};
// Linear ticks: a step of 1, 2 or 5 x 10^k giving about `target` intervals; lo and hi are
// widened to multiples of the step. lo == hi is widened around the value.
Ticks linear_ticks(double lo, double hi, int target = 5);
// Logarithmic ticks for 0 < lo <= hi: the decades that cover the range, with 2 and 5 between
// them where the range spans fewer than three decades; lo and hi widened to tick values.
Ticks log_ticks(double lo, double hi);
// A tick label: `v` with the decimals `step` needs, in thousands (k) or millions (M) when the
// axis reaches 10^4 or 10^6 (`largest`: the largest absolute tick).
std::string tick_label(double v, double step, double largest);

// Maps data to pixels along one axis (log: by log10).
struct Scale {
    double lo = 0, hi = 1;  // data range
    double from = 0, to = 1;  // pixel range (to < from for a vertical axis)
    bool log = false;
    double operator()(double v) const;
};

// ring: a hollow circle drawn around a point (the Pareto front's points).
enum class Shape { circle, square, triangle, diamond, ring };

// One line of a chart. `line` false: markers only (a scatter).
struct Series {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (x, y) in data units
    std::string color;
    Shape shape = Shape::circle;
    bool line = true, markers = true, dashed = false;
};

// A point called out with a ring and a label.
struct Callout {
    double x = 0, y = 0;
    std::string label;
};

struct LineChart {
    std::string title, subtitle, x_label, y_label;
    bool log_x = false, log_y = false;
    bool y_from_zero = false;                 // linear y axis starting at 0
    std::vector<double> x_ticks;              // non-empty: ticks at these values (GPU counts)
    std::vector<Series> series;
    std::optional<double> x_rule;             // a vertical dashed line (a deadline) ...
    std::string x_rule_label;                 // ... and its label
    std::optional<Callout> callout;
    std::string note;                         // a line under the plot
};

// Stacked bars: one bar per category, one segment per part.
struct StackedBars {
    std::string title, subtitle, y_label;
    std::vector<std::string> categories;
    std::vector<std::string> parts;
    std::vector<std::string> colors;          // one per part
    std::vector<std::vector<double>> values;  // [category][part], each >= 0
    std::optional<double> y_rule;             // a horizontal dashed line (memory available) ...
    std::string y_rule_label;
    std::string note;
};

// Colours told apart also by people with colour blindness (Okabe and Ito, "Color Universal
// Design", 2008), in the order lines take them.
const std::vector<std::string>& palette();

// Whole SVG documents, 720 x 440 px. Requires at least one point (line chart) or category.
std::string render(const LineChart& chart);
std::string render(const StackedBars& chart);

}  // namespace rentsim::analysis::svg
