// philly: Microsoft Philly cluster_job_log, a JSON array of jobs. The real file is about 1 GB, so
// it is read with nlohmann's SAX interface: one job object at a time is built, turned into a Job
// and dropped; only the compact Jobs are kept, to be sorted.
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/jobs/formats.hpp"
#include "analysis/jobs/table_reader.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::jobs {

namespace {

using Json = nlohmann::json;

// The file's bytes, with the line of the byte last read.
class CountingInput {
public:
    explicit CountingInput(const std::string& path) : in_(path, std::ios::binary), buf_(std::size_t{1} << 16) {
        if (!in_) throw analysis::InputError(path, "", "cannot open file");
        fill();
    }
    bool at_end() const { return pos_ == end_; }
    char current() const { return buf_[pos_]; }
    void advance() {
        const char c = buf_[pos_];
        if (c == '\n') ++line_;
        else if (c != ' ' && c != '\t' && c != '\r') token_line_ = line_;
        if (++pos_ == end_) fill();
    }
    // The line of the last byte read that is not white space: the parser reads one byte past a
    // number, which may be a line break.
    std::int64_t line() const { return token_line_; }

private:
    void fill() {
        in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        end_ = static_cast<std::size_t>(in_.gcount());
        pos_ = 0;
    }
    std::ifstream in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, end_ = 0;
    std::int64_t line_ = 1, token_line_ = 1;
};

// An input iterator over CountingInput for nlohmann::json::sax_parse; the default one is the end.
struct CharIterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;
    CountingInput* in = nullptr;
    char operator*() const { return in->current(); }
    CharIterator& operator++() {
        in->advance();
        return *this;
    }
    CharIterator operator++(int) {
        CharIterator old = *this;
        in->advance();
        return old;
    }
    bool done() const { return in == nullptr || in->at_end(); }
    bool operator==(const CharIterator& o) const { return done() == o.done(); }
};

std::optional<double> date(const Json& v) {
    if (!v.is_string()) return std::nullopt;
    return parse_datetime(v.get_ref<const std::string&>());
}

bool is_none(const Json& v) { return v.is_null() || (v.is_string() && v.get_ref<const std::string&>() == "None"); }

std::string shown(const Json& v) { return v.is_string() ? quote_cell(v.get_ref<const std::string&>()) : std::string("a JSON ") + v.type_name(); }

// One job object of the log; `job` is filled when the verdict is `job`.
Row philly_job(const Json& j, Job& job) {
    auto field = [&](const char* key) -> const Json* {
        auto it = j.find(key);
        return it == j.end() ? nullptr : &*it;
    };
    const Json* id = field("jobid");
    if (!id || !id->is_string()) return bad_row("expected \"jobid\" as a string");
    const Json* submitted = field("submitted_time");
    const auto submit = submitted ? date(*submitted) : std::nullopt;
    if (!submit)
        return bad_row("\"submitted_time\": expected a date 'YYYY-MM-DD HH:MM:SS', got " +
                       (submitted ? shown(*submitted) : std::string("nothing")));
    const Json* attempts = field("attempts");
    if (!attempts || !attempts->is_array()) return bad_row("expected \"attempts\" as an array");
    // GPUs: those of the first attempt that was placed; run time: the sum of the attempts that
    // have both a start and an end (the gaps between retries are queueing, not GPU time).
    std::int64_t gpus = 0;
    double run_s = 0;
    for (std::size_t a = 0; a < attempts->size(); ++a) {
        const Json& at = (*attempts)[a];
        const std::string where = "\"attempts\"[" + std::to_string(a) + "]";
        if (!at.is_object()) return bad_row(where + ": expected an object, got a JSON " + std::string(at.type_name()));
        if (gpus == 0) {
            auto detail = at.find("detail");
            if (detail != at.end() && !detail->is_null()) {
                if (!detail->is_array()) return bad_row(where + ".detail: expected an array of {\"ip\", \"gpus\"}");
                for (const Json& d : *detail) {
                    auto g = d.is_object() ? d.find("gpus") : d.end();
                    if (!d.is_object() || g == d.end() || !g->is_array())
                        return bad_row(where + ".detail: expected objects with \"gpus\" as an array");
                    gpus += static_cast<std::int64_t>(g->size());
                }
            }
        }
        auto start = at.find("start_time");
        auto end = at.find("end_time");
        if (start == at.end() || end == at.end() || is_none(*start) || is_none(*end)) continue;
        const auto s = date(*start);
        if (!s) return bad_row(where + ".start_time: expected a date 'YYYY-MM-DD HH:MM:SS' or \"None\", got " + shown(*start));
        const auto e = date(*end);
        if (!e) return bad_row(where + ".end_time: expected a date 'YYYY-MM-DD HH:MM:SS' or \"None\", got " + shown(*end));
        if (*e > *s) run_s += *e - *s;
    }
    if (gpus > max_job_gpus) return bad_row("more than 1048576 GPUs in one attempt");
    if (gpus == 0 || run_s <= 0) return not_run_row();
    job.id = id->get_ref<const std::string&>();
    job.submit_s = *submit;
    job.duration_s = run_s;
    job.gpus = static_cast<int>(gpus);
    if (const Json* u = field("user"); u && u->is_string()) job.user = u->get_ref<const std::string&>();
    if (const Json* vc = field("vc"); vc && vc->is_string()) job.vc = vc->get_ref<const std::string&>();
    if (job.user.empty()) job.user = job.vc;
    return job_row();
}

// Builds each element of the top-level array as a small DOM, hands it to philly_job and drops it.
class JobsSax : public nlohmann::json_sax<Json> {
public:
    JobsSax(const std::string& path, CountingInput& in, BadRowLog& log) : path_(path), in_(in), log_(log) {}

    bool null() override { return value(Json(nullptr)); }
    bool boolean(bool v) override { return value(Json(v)); }
    bool number_integer(number_integer_t v) override { return value(Json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return value(Json(v)); }
    bool number_float(number_float_t v, const string_t&) override { return value(Json(v)); }
    bool string(string_t& v) override {
        // Built in place: GCC 12 warns, wrongly, of an out-of-bounds read in Json(std::string&&).
        Json s(Json::value_t::string);
        s.get_ref<std::string&>() = std::move(v);
        return value(std::move(s));
    }
    bool binary(binary_t& v) override { return value(Json(v)); }
    bool key(string_t& k) override {
        key_ = std::move(k);
        return true;
    }
    bool start_object(std::size_t) override { return open(Json::object()); }
    bool start_array(std::size_t) override { return open(Json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." -> the part after the location
        std::string what = e.what();
        const auto colon = what.find(": ");
        if (colon != std::string::npos) what = what.substr(colon + 2);
        throw analysis::InputError(path_, "line " + std::to_string(in_.line()), "invalid JSON: " + what);
    }

    std::vector<Job> jobs;
    std::int64_t not_run = 0;

private:
    bool open(Json container) {
        if (depth_ == 0) {
            if (!container.is_array())
                throw analysis::InputError(path_, "line " + std::to_string(in_.line()),
                                           "expected a JSON array of Philly jobs ([{\"jobid\": ...}, ...]), got an object");
        } else if (depth_ == 1) {
            job_ = std::move(container);
            job_line_ = in_.line();
            stack_.assign(1, &job_);
        } else {
            stack_.push_back(insert(std::move(container)));
        }
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        if (depth_ >= 1) stack_.pop_back();
        if (depth_ == 1) finish();
        return true;
    }
    bool value(Json v) {
        if (depth_ == 0)
            throw analysis::InputError(path_, "line " + std::to_string(in_.line()),
                                       "expected a JSON array of Philly jobs ([{\"jobid\": ...}, ...])");
        if (depth_ == 1) {
            log_.add(in_.line(), std::string("expected a job object, got a JSON ") + v.type_name());
            return true;
        }
        insert(std::move(v));
        return true;
    }
    Json* insert(Json v) {
        Json& top = *stack_.back();
        if (top.is_object()) {
            Json& slot = top[key_];
            slot = std::move(v);
            return &slot;
        }
        top.push_back(std::move(v));
        return &top.back();
    }
    void finish() {
        if (!job_.is_object()) {
            log_.add(job_line_, std::string("expected a job object, got a JSON ") + job_.type_name());
            return;
        }
        Job job;
        const Row row = philly_job(job_, job);
        if (row.kind == RowKind::bad) log_.add(job_line_, row.message);
        else if (row.kind == RowKind::not_run) ++not_run;
        else {
            job.line = job_line_;
            jobs.push_back(std::move(job));
        }
        job_ = Json();
    }

    const std::string& path_;
    CountingInput& in_;
    BadRowLog& log_;
    int depth_ = 0;
    Json job_;
    std::int64_t job_line_ = 0;
    std::vector<Json*> stack_;
    std::string key_;
};

}  // namespace

std::unique_ptr<JobReader> open_philly_json(const std::string& path, BadRowPolicy policy) {
    CountingInput in(path);
    BadRowLog log(path, policy);
    JobsSax sax(path, in, log);
    CharIterator first{&in}, last{};
    Json::sax_parse(first, last, &sax);
    return make_sorted_reader(std::move(sax.jobs), std::move(log), sax.not_run);
}

}  // namespace rentsim::jobs
