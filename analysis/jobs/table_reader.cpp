#include "analysis/jobs/table_reader.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::jobs {

void BadRowLog::add(std::int64_t line, const std::string& message) {
    if (policy_ == BadRowPolicy::fail) throw analysis::InputError(file_, "line " + std::to_string(line), message);
    ++skipped_;
    if (rows_.size() < max_kept_bad_rows) rows_.push_back({line, message});
}

std::string cell_message(std::string_view column, std::string_view expected, std::string_view got) {
    return "column '" + std::string(column) + "': expected " + std::string(expected) + ", got " + quote_cell(got);
}

std::size_t column(const std::string& file, const RecordReader::Record& header, std::string_view name,
                   std::string_view format, std::string_view expected_columns) {
    for (std::size_t i = 0; i < header.fields.size(); ++i)
        if (header.fields[i] == name) return i;
    throw analysis::InputError(file, "line " + std::to_string(header.line),
                               "the header has no column '" + std::string(name) + "'; " + std::string(format) +
                                   " has the columns " + std::string(expected_columns));
}

namespace {

class SortedReader : public JobReader {
public:
    SortedReader(std::vector<Job> jobs, BadRowLog log, std::int64_t not_run)
        : jobs_(std::move(jobs)), order_(jobs_.size()), log_(std::move(log)), not_run_(not_run) {
        // Sorting (time, index) keys, contiguous, instead of Jobs and their strings; the index
        // breaks ties, so that equal times keep file order.
        std::vector<std::pair<double, std::size_t>> keys(jobs_.size());
        for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = {jobs_[i].submit_s, i};
        std::sort(keys.begin(), keys.end());
        for (std::size_t i = 0; i < keys.size(); ++i) order_[i] = keys[i].second;
        if (!keys.empty()) origin_ = keys.front().first;
    }
    std::optional<Job> next() override {
        if (next_ == order_.size()) return std::nullopt;
        Job j = std::move(jobs_[order_[next_++]]);
        j.submit_s -= origin_;
        return j;
    }
    std::int64_t skipped() const override { return log_.skipped(); }
    const std::vector<BadRow>& bad_rows() const override { return log_.rows(); }
    std::int64_t not_run() const override { return not_run_; }

private:
    std::vector<Job> jobs_;
    std::vector<std::size_t> order_;
    std::size_t next_ = 0;
    double origin_ = 0;
    BadRowLog log_;
    std::int64_t not_run_;
};

class TableReader : public JobReader {
public:
    TableReader(const std::string& path, char separator, std::unique_ptr<RowParser> parser, Order order,
                BadRowPolicy policy, std::string format)
        : reader_(path, separator), parser_(std::move(parser)), order_(order), log_(path, policy),
          format_(std::move(format)) {
        read_header();
        if (order_ == Order::check) {
            // First pass: is the file sorted? Bad rows are left for the pass that reports them.
            double last = -std::numeric_limits<double>::infinity();
            bool sorted = true;
            Job job;
            while (reader_.next(record_)) {
                if (!record_.error.empty()) continue;
                job = Job{};
                if (parser_->parse(record_, job).kind != RowKind::job) continue;
                if (job.submit_s < last) {
                    sorted = false;
                    break;
                }
                last = job.submit_s;
            }
            reader_.rewind();
            read_header();
            if (!sorted) order_ = Order::sort;
        }
        if (order_ == Order::sort) {
            std::vector<Job> jobs;
            while (auto j = read_row()) jobs.push_back(std::move(*j));
            sorted_ = make_sorted_reader(std::move(jobs), log_, not_run_);
        }
    }

    std::optional<Job> next() override {
        if (sorted_) return sorted_->next();
        auto job = read_row();
        if (!job) return std::nullopt;
        if (!origin_) origin_ = job->submit_s;
        job->submit_s -= *origin_;
        return job;
    }
    std::int64_t skipped() const override { return sorted_ ? sorted_->skipped() : log_.skipped(); }
    const std::vector<BadRow>& bad_rows() const override { return sorted_ ? sorted_->bad_rows() : log_.rows(); }
    std::int64_t not_run() const override { return sorted_ ? sorted_->not_run() : not_run_; }

private:
    void read_header() {
        if (!parser_->has_header()) return;
        if (!reader_.next(record_)) throw analysis::InputError(reader_.path(), "line 1", "expected a header row, got an empty file");
        if (!record_.error.empty()) throw analysis::InputError(reader_.path(), "line " + std::to_string(record_.line), record_.error);
        parser_->header(reader_.path(), record_);
    }

    // The next job in file order (submit_s on the format's clock); bad and not-run rows are
    // counted on the way. A `sorted` format's row that goes back in time is a bad row.
    std::optional<Job> read_row() {
        while (reader_.next(record_)) {
            if (!record_.error.empty()) {
                log_.add(record_.line, record_.error);
                continue;
            }
            Job job;
            const Row row = parser_->parse(record_, job);
            if (row.kind == RowKind::bad) {
                log_.add(record_.line, row.message);
                continue;
            }
            if (row.kind == RowKind::not_run) {
                ++not_run_;
                continue;
            }
            if (order_ == Order::sorted && last_submit_ && job.submit_s < *last_submit_) {
                log_.add(record_.line, "submitted before the row above it: " + format_ +
                                           " must be sorted by submission time");
                continue;
            }
            last_submit_ = job.submit_s;
            job.line = record_.line;
            return job;
        }
        return std::nullopt;
    }

    RecordReader reader_;
    RecordReader::Record record_;
    std::unique_ptr<RowParser> parser_;
    Order order_;
    BadRowLog log_;
    std::string format_;
    std::int64_t not_run_ = 0;
    std::optional<double> origin_, last_submit_;
    std::unique_ptr<JobReader> sorted_;
};

}  // namespace

std::unique_ptr<JobReader> make_sorted_reader(std::vector<Job> jobs, BadRowLog log, std::int64_t not_run) {
    return std::make_unique<SortedReader>(std::move(jobs), std::move(log), not_run);
}

std::unique_ptr<JobReader> make_table_reader(const std::string& path, char separator, std::unique_ptr<RowParser> parser,
                                             Order order, BadRowPolicy policy, std::string format) {
    return std::make_unique<TableReader>(path, separator, std::move(parser), order, policy, std::move(format));
}

}  // namespace rentsim::jobs
