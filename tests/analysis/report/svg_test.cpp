// The SVG writer: fixed number formatting, escaping, tick and scale arithmetic (checked by
// hand), and charts whose marks land where the arithmetic says.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/report/svg.hpp"

using namespace rentsim::analysis;

namespace {

std::vector<std::string> labels(const svg::Ticks& t) { return t.labels; }
using Labels = std::vector<std::string>;

}  // namespace

TEST_CASE("coordinates have one decimal and never a negative zero") {
    CHECK(svg::coord(12.345) == "12.3");
    CHECK(svg::coord(2.25) == "2.3");
    CHECK(svg::coord(-0.04) == "0.0");
    CHECK(svg::coord(-3.0) == "-3.0");
    CHECK(svg::coord(503.9285) == "503.9");
}

TEST_CASE("text is escaped for XML and control characters are dropped") {
    CHECK(svg::escape("a<b & \"c\" 'd'>\x01") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    CHECK(svg::escape("tab\there") == "tab\there");
}

TEST_CASE("linear ticks step by 1, 2 or 5 times a power of ten and cover the range") {
    // 66.6 / 5 = 13.3 -> step 10; 0 to 70.
    const auto a = svg::linear_ticks(0, 66.6);
    CHECK(a.lo == 0);
    CHECK(a.hi == 70);
    CHECK(labels(a) == Labels{"0", "10", "20", "30", "40", "50", "60", "70"});
    // 0.73 / 5 = 0.146 -> step 0.1, one decimal.
    CHECK(labels(svg::linear_ticks(0.2, 0.93)) == Labels{"0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"});
    // 12345 / 5 = 2469 -> step 2000, in thousands from 10^4.
    CHECK(labels(svg::linear_ticks(0, 12345)) == Labels{"0", "2k", "4k", "6k", "8k", "10k", "12k", "14k"});
    // One value: widened by 10% each way (4.5 to 5.5), step 0.2.
    const auto one = svg::linear_ticks(5, 5);
    CHECK(one.lo == doctest::Approx(4.4));
    CHECK(one.hi == doctest::Approx(5.6));
    CHECK(labels(one) == Labels{"4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"});
}

TEST_CASE("log ticks end at 1, 2 or 5 x 10^k and take 2 and 5 between decades over fewer than three") {
    const auto wide = svg::log_ticks(8, 400);  // 5 to 500: three decades started, so decades and the ends
    CHECK(wide.lo == 5);
    CHECK(wide.hi == 500);
    CHECK(labels(wide) == Labels{"5", "10", "100", "500"});
    const auto narrow = svg::log_ticks(30, 300);  // widened to 20 and 500
    CHECK(narrow.lo == 20);
    CHECK(narrow.hi == 500);
    CHECK(labels(narrow) == Labels{"20", "50", "100", "200", "500"});
    CHECK(labels(svg::log_ticks(2e4, 3e5)) == Labels{"20k", "50k", "100k", "200k", "500k"});
    CHECK(svg::tick_label(1.5e6, 5e5, 2e6) == "1.5M");
}

TEST_CASE("scales map data to pixels, linearly or by log10") {
    CHECK(svg::Scale{0, 10, 100, 200, false}(5) == 150);
    CHECK(svg::Scale{0, 10, 378, 58, false}(10) == 58);  // a vertical axis runs upwards
    CHECK(svg::Scale{1, 100, 0, 100, true}(10) == doctest::Approx(50));
}

TEST_CASE("a line chart places each marker where the scales say") {
    svg::LineChart c;
    c.title = "t";
    c.y_from_zero = true;
    c.x_ticks = {8, 16};
    svg::Series s;
    s.color = "#0072b2";
    s.points = {{8, 100}, {16, 75}};
    c.series.push_back(s);
    const std::string doc = svg::render(c);
    // y: ticks 0 to 100 (step 20) over 378 (bottom) to 58 (top): 75 -> 378 - 0.75 * 320 = 138.
    // x: ticks at 8 and 16 padded by 6% of 8 (7.52 to 16.48) over 78 to 700 (no legend):
    //    8 -> 78 + 0.48 / 8.96 * 622 = 111.3, 16 -> 78 + 8.48 / 8.96 * 622 = 666.7.
    CHECK(doc.find("<circle cx=\"666.7\" cy=\"138.0\" r=\"4.5\"") != std::string::npos);
    CHECK(doc.find("<polyline points=\"111.3,58.0 666.7,138.0\"") != std::string::npos);
    CHECK(doc.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"440\""));
    CHECK(doc.ends_with("</svg>\n"));
}

TEST_CASE("stacked bars stack their parts from zero") {
    svg::StackedBars b;
    b.title = "m";
    b.categories = {"a"};
    b.parts = {"x", "y"};
    b.colors = {"#111111", "#222222"};
    b.values = {{30, 10}};
    b.y_rule = 80;
    const std::string doc = svg::render(b);
    // Ticks 0 to 80 (step 20) over 378 to 58: 4 px per unit. One slot of 450 px, bar 56 px wide
    // centred at 303: x from 275. Part x from 0 to 30 (378 to 258), part y from 30 to 40 (258 to 218).
    CHECK(doc.find("<rect x=\"275.0\" y=\"258.0\" width=\"56.0\" height=\"120.0\" fill=\"#111111\"/>") != std::string::npos);
    CHECK(doc.find("<rect x=\"275.0\" y=\"218.0\" width=\"56.0\" height=\"40.0\" fill=\"#222222\"/>") != std::string::npos);
}
