// Progress of a sweep, on standard error only (never in output files or standard output):
// on a terminal a bar with the rate and the time left, redrawn at most ten times a second;
// elsewhere (CI logs, pipes, `CI=true`) a quiet line when the points finished cross a tenth of
// the sweep or 30 s after the last line; nothing with --quiet. Short runs stay silent: the bar
// appears after 1 s, the first line after 10 s, so that a run's standard error is the same
// bytes every time unless it is long.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace rentsim::analysis {

enum class ProgressMode { none, bar, lines };

// --quiet: none; a terminal on standard error and no CI=true (`ci` is the variable's value,
// null when unset): bar; else lines. CI=true wins over a terminal, as in CI runners with a PTY.
ProgressMode progress_mode(bool quiet, bool stderr_is_terminal, const char* ci);

// When it speaks (seconds since the start of the run).
inline constexpr double progress_bar_after_s = 1.0;
inline constexpr double progress_bar_every_s = 0.1;
inline constexpr double progress_lines_after_s = 10.0;
inline constexpr double progress_line_every_s = 30.0;

// "rentsim: 400/1000 points (40%), 12.3 points/s, 48.8 s left": `ran` points finished in
// `elapsed_s` by this run (restored points of a resumed run do not count in the rate).
std::string progress_line(std::size_t done, std::size_t total, std::size_t ran, double elapsed_s);
// "[########------------]  400/1000  40%  12.3 points/s  ETA 48.8 s" (no carriage return).
std::string progress_bar(std::size_t done, std::size_t total, std::size_t ran, double elapsed_s);

class Progress {
public:
    using Clock = std::function<double()>;             // seconds, monotonic
    using Sink = std::function<void(std::string_view)>;  // writes to standard error

    // `done`: points already finished before this run (a resumed run's).
    Progress(ProgressMode mode, std::size_t total, std::size_t done, Clock clock, Sink sink);
    // One more point finished; thread-safe.
    void point_done();
    // The run is over: a bar is erased (the table follows), lines end.
    void finish();

private:
    void speak();
    ProgressMode mode_;
    std::size_t total_, done_, ran_ = 0;
    Clock clock_;
    Sink sink_;
    double start_s_, last_s_ = -1;
    std::size_t last_tenth_ = 0;
    bool drawn_ = false;
    std::mutex mutex_;
};

// The clock and sink of the program: steady_clock, and write(2) to standard error.
double steady_seconds();
void write_to_stderr(std::string_view text);

}  // namespace rentsim::analysis
