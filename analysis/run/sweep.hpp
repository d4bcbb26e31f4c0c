// Runs every point of a scenario set, on `jobs` threads. Results come back in point order
// and are identical whatever the thread count: each point owns its engine and its seed.
// A sweep can stop between points and keep its finished ones in a journal (PointJournal).
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run/run.hpp"

namespace rentsim::analysis {

// The first error of the lowest-numbered failing point is rethrown after all threads stop.
std::vector<Result> run_all(const ScenarioSet& set, int jobs, const RunOptions& options = {});

// What an interruptible sweep is given: the points already finished, a sink for each newly
// finished one, and a stop request polled before each point (running points always finish).
struct SweepControl {
    std::vector<std::optional<Result>> done;                    // by index; not run again (empty: none)
    std::function<void(std::size_t, const Result&)> finished;  // one call at a time, from any thread
    std::function<bool()> stop;                                 // true: take no further point
};

// Every point, in order; nullopt where `stop` came first. Errors as run_all, those of
// `finished` included (which also stop the sweep).
std::vector<std::optional<Result>> run_points(const ScenarioSet& set, int jobs, const RunOptions& options,
                                              SweepControl control);

// A hash of each point's resolved inputs, by index: the canonical JSON of the scenario text
// without `sweep`, the point's swept values, the seed and replications of `options`, and the
// text of the calibration file it names. Equal hashes: the point would give the same result.
std::vector<std::string> point_input_hashes(const ScenarioSet& set, std::string_view scenario_text,
                                            const RunOptions& options);

// Every member of a Result as one line of JSON, doubles exact, and back (std::invalid_argument
// for a record that is not one): a restored result writes byte-identical JSON, CSV and tables.
std::string result_record(const Result& r);
Result result_from_record(std::string_view record);

// The journal of the finished points of a run with outputs, beside its first output
// (`o.json.journal`): one line per point, {"index", "inputs" (its hash), "result" (its record)},
// appended and fsynced as it finishes, so that a kill leaves whole lines and at most one torn
// last line, which reading ignores. It is locked (flock) while open: one run per journal.
class PointJournal {
public:
    static std::string path_for(const std::string& output) { return output + ".journal"; }

    // For points with these input hashes. Without `resume`, an existing journal is an
    // InputError (pass --resume or delete it); with it, lines whose index and hash match are
    // restored, others ignored. A journal locked by another process is an InputError.
    PointJournal(std::string path, std::vector<std::string> input_hashes, bool resume);
    PointJournal(const PointJournal&) = delete;
    PointJournal& operator=(const PointJournal&) = delete;
    // Closes; the file stays while it holds a finished point (unless remove() was called).
    ~PointJournal();

    const std::string& path() const { return path_; }
    const std::vector<std::optional<Result>>& restored() const { return restored_; }
    std::size_t restored_count() const;
    // Thread-safe; the line is on the disk when it returns. Throws InputError naming the journal.
    void append(std::size_t index, const Result& r);
    // Points held: restored and appended.
    std::size_t points() const;
    // The outputs are written: the journal goes.
    void remove();

private:
    std::string path_;
    std::vector<std::string> hashes_;
    std::vector<std::optional<Result>> restored_;
    int fd_ = -1;
    bool removed_ = false;
    mutable std::mutex mutex_;
    std::size_t appended_ = 0;
};

}  // namespace rentsim::analysis
