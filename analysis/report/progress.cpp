#include "analysis/report/progress.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include "analysis/report/report.hpp"

namespace rentsim::analysis {

ProgressMode progress_mode(bool quiet, bool stderr_is_terminal, const char* ci) {
    if (quiet) return ProgressMode::none;
    const std::string_view c = ci ? ci : "";
    if (c == "true" || c == "1") return ProgressMode::lines;
    return stderr_is_terminal ? ProgressMode::bar : ProgressMode::lines;
}

namespace {

std::string rate_and_left(std::size_t done, std::size_t total, std::size_t ran, double elapsed_s, bool bar) {
    if (ran == 0 || elapsed_s <= 0) return "";
    const double rate = static_cast<double>(ran) / elapsed_s;
    const double left = static_cast<double>(total - done) / rate;
    return bar ? fmt::format("  {:.1f} points/s  ETA {}", rate, human_duration(left))
               : fmt::format(", {:.1f} points/s, {} left", rate, human_duration(left));
}

}  // namespace

std::string progress_line(std::size_t done, std::size_t total, std::size_t ran, double elapsed_s) {
    const std::size_t pct = total == 0 ? 100 : 100 * done / total;
    return fmt::format("rentsim: {}/{} points ({}%){}\n", done, total, pct, rate_and_left(done, total, ran, elapsed_s, false));
}

std::string progress_bar(std::size_t done, std::size_t total, std::size_t ran, double elapsed_s) {
    constexpr std::size_t width = 30;
    const std::size_t filled = total == 0 ? width : width * done / total;
    const std::size_t pct = total == 0 ? 100 : 100 * done / total;
    return "[" + std::string(filled, '#') + std::string(width - filled, '-') +
           fmt::format("]  {}/{}  {:>3}%", done, total, pct) + rate_and_left(done, total, ran, elapsed_s, true);
}

Progress::Progress(ProgressMode mode, std::size_t total, std::size_t done, Clock clock, Sink sink)
    : mode_(mode), total_(total), done_(done), clock_(std::move(clock)), sink_(std::move(sink)) {
    start_s_ = mode_ == ProgressMode::none ? 0 : clock_();
    last_tenth_ = total_ == 0 ? 10 : 10 * done_ / total_;
}

void Progress::point_done() {
    if (mode_ == ProgressMode::none) return;
    const std::lock_guard lock(mutex_);
    ++done_;
    ++ran_;
    speak();
}

void Progress::finish() {
    if (mode_ == ProgressMode::none) return;
    const std::lock_guard lock(mutex_);
    if (mode_ == ProgressMode::bar && drawn_) sink_("\r\033[K");
    drawn_ = false;
}

void Progress::speak() {
    const double now = clock_(), elapsed = now - start_s_;
    if (mode_ == ProgressMode::bar) {
        if (elapsed < progress_bar_after_s) return;
        if (done_ < total_ && last_s_ >= 0 && now - last_s_ < progress_bar_every_s) return;
        sink_("\r" + progress_bar(done_, total_, ran_, elapsed) + "\033[K");
        drawn_ = true;
        last_s_ = now;
        return;
    }
    const std::size_t tenth = total_ == 0 ? 10 : 10 * done_ / total_;
    const bool new_tenth = tenth > last_tenth_;
    last_tenth_ = std::max(last_tenth_, tenth);
    if (elapsed < progress_lines_after_s) return;
    const bool due = last_s_ < 0 || now - last_s_ >= progress_line_every_s;
    if (!new_tenth && !due) return;
    sink_(progress_line(done_, total_, ran_, elapsed));
    last_s_ = now;
}

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_to_stderr(std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
        if (n <= 0) return;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace rentsim::analysis
