#include "analysis/run/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::analysis {

std::vector<std::optional<Result>> run_points(const ScenarioSet& set, int jobs, const RunOptions& options,
                                              SweepControl control) {
    const std::size_t n = set.points.size();
    if (!control.done.empty() && control.done.size() != n)
        throw std::invalid_argument("run_points: `done` does not have one entry per point");
    std::vector<std::optional<Result>> results(n);
    for (std::size_t i = 0; i < control.done.size(); ++i) results[i] = std::move(control.done[i]);
    std::vector<std::exception_ptr> errors(n);
    std::exception_ptr sink_error;
    std::mutex sink_mutex;
    std::atomic<bool> halted{false};
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
        while (!halted && !(control.stop && control.stop())) {
            const std::size_t i = next++;
            if (i >= n) return;
            if (results[i]) continue;  // finished by an earlier run; each index has one thread
            try {
                Result r = set.points[i].invalid.empty() ? run_scenario(set.points[i], options) : invalid_result(set.points[i]);
                if (control.finished) {
                    const std::lock_guard lock(sink_mutex);
                    try {
                        control.finished(i, r);
                    } catch (...) {
                        sink_error = std::current_exception();
                        halted = true;
                    }
                }
                results[i] = std::move(r);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, jobs)), std::max<std::size_t>(n, 1));
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    if (sink_error) std::rethrow_exception(sink_error);
    return results;
}

std::vector<Result> run_all(const ScenarioSet& set, int jobs, const RunOptions& options) {
    auto points = run_points(set, jobs, options, {});
    std::vector<Result> results;
    results.reserve(points.size());
    for (auto& p : points) results.push_back(std::move(*p));
    return results;
}

namespace {

using Record = nlohmann::ordered_json;

// Counts the members of an aggregate: the most initializers it accepts.
struct AnyMember {
    template <class T>
    constexpr operator T() const noexcept;  // never defined: only in unevaluated requirements
};
template <class T, class... A>
constexpr std::size_t member_count() {
    if constexpr (requires { T{A{}..., AnyMember{}}; })
        return member_count<T, A..., AnyMember>();
    else
        return sizeof...(A);
}

// Every member of a Result, by a dotted name: the record's list. A member added to Result (or
// to a struct inside it) must be added here too, so that a journal restores it; the counts
// below make the build say so.
static_assert(member_count<Result>() == 55 && member_count<Breakdown>() == 4 && member_count<RlResult>() == 5 && member_count<InputDiagnosis>() == 9 &&
                  member_count<EpochResult>() == 3 && member_count<Stats>() == 4 && member_count<LifecycleResult>() == 32 &&
                  member_count<LayoutResult>() == 5 && member_count<MemoryParts>() == 5 && member_count<Accuracy>() == 4,
              "Result changed: list its new member in each_member() (analysis/run/sweep.cpp)");

template <class R, class V>
void each_member(R& r, V&& v) {
    v("name", r.name);
    v("point", r.point);
    v("model", r.model);
    v("gpu", r.gpu);
    v("precision", r.precision);
    v("framework", r.framework);
    v("attention", r.attention);
    v("network_model", r.network_model);
    v("gpus", r.gpus);
    v("tp", r.tp);
    v("pp", r.pp);
    v("dp", r.dp);
    v("cp", r.cp);
    v("layout.searched", r.layout.searched);
    v("layout.chosen", r.layout.chosen);
    v("layout.runner_up", r.layout.runner_up);
    v("layout.candidates", r.layout.candidates);
    v("layout.refused", r.layout.refused);
    v("global_batch", r.global_batch);
    v("micro_batch", r.micro_batch);
    v("micro_steps", r.micro_steps);
    v("samples", r.samples);
    v("iterations", r.iterations);
    v("time_to_train_s", r.time_to_train_s);
    v("billed_s", r.billed_s);
    v("cost_usd", r.cost_usd);
    v("cost_per_sample_usd", r.cost_per_sample_usd);
    v("throughput_samples_per_s", r.throughput_samples_per_s);
    v("throughput_tokens_per_s", r.throughput_tokens_per_s);
    v("iteration_s", r.iteration_s);
    v("breakdown.compute_s", r.breakdown.compute_s);
    v("breakdown.exposed_comm_s", r.breakdown.exposed_comm_s);
    v("breakdown.input_stall_s", r.breakdown.input_stall_s);
    v("breakdown.pipeline_bubble_s", r.breakdown.pipeline_bubble_s);
    v("rl.ppo_epochs", r.rl.ppo_epochs);
    v("rl.rollout_s", r.rl.rollout_s);
    v("rl.generation_s", r.rl.generation_s);
    v("rl.scoring_s", r.rl.scoring_s);
    v("rl.kv_cache_gib", r.rl.kv_cache_gib);
    v("tflops_per_gpu", r.tflops_per_gpu);
    v("mfu", r.mfu);
    v("hardware_tflops_per_gpu", r.hardware_tflops_per_gpu);
    v("memory_per_gpu_gib", r.memory_per_gpu_gib);
    v("memory.params_gib", r.memory.params_gib);
    v("memory.gradients_gib", r.memory.gradients_gib);
    v("memory.optimizer_gib", r.memory.optimizer_gib);
    v("memory.activations_gib", r.memory.activations_gib);
    v("memory.workspace_gib", r.memory.workspace_gib);
    v("memory_available_gib", r.memory_available_gib);
    v("fits", r.fits);
    v("status", r.status);
    v("accuracy.family_calibrated", r.accuracy.family_calibrated);
    v("accuracy.check_rows", r.accuracy.check_rows);
    v("accuracy.median_error", r.accuracy.median_error);
    v("accuracy.p90_error", r.accuracy.p90_error);
    v("allreduce_busbw_gbps", r.allreduce_busbw_gbps);
    v("staging_s", r.staging_s);
    v("evaluations", r.evaluations);
    v("evaluation_s", r.evaluation_s);
    v("from_instance", r.from_instance);
    v("note", r.note);
    v("step_source", r.step_source);
    v("storage_pipeline", r.storage_pipeline);
    v("input.bound_by", r.input.bound_by);
    v("input.stall_fraction", r.input.stall_fraction);
    v("input.input_bound_s", r.input.input_bound_s);
    v("input.workers_to_compute_bound", r.input.workers_to_compute_bound);
    v("input.compute_samples_per_s", r.input.compute_samples_per_s);
    v("input.workers_samples_per_s", r.input.workers_samples_per_s);
    v("input.storage_samples_per_s", r.input.storage_samples_per_s);
    v("input.ingress_samples_per_s", r.input.ingress_samples_per_s);
    v("input.h2d_samples_per_s", r.input.h2d_samples_per_s);
    v("epochs", r.epochs);
    auto& l = r.lifecycle;
    v("lifecycle.plan", l.plan);
    v("lifecycle.provider", l.provider);
    v("lifecycle.instance", l.instance);
    v("lifecycle.region", l.region);
    v("lifecycle.price_source", l.price_source);
    v("lifecycle.plan_kind", l.plan_kind);
    v("lifecycle.usd_per_gpu_hour", l.usd_per_gpu_hour);
    v("lifecycle.gpus_per_instance", l.gpus_per_instance);
    v("lifecycle.instances", l.instances);
    v("lifecycle.billed_gpus", l.billed_gpus);
    v("lifecycle.instance_hours", l.instance_hours);
    v("lifecycle.billed_instance_hours", l.billed_instance_hours);
    v("lifecycle.compute_usd", l.compute_usd);
    v("lifecycle.storage_usd", l.storage_usd);
    v("lifecycle.egress_usd", l.egress_usd);
    v("lifecycle.checkpoint_gb", l.checkpoint_gb);
    v("lifecycle.checkpoint_write_s", l.checkpoint_write_s);
    v("lifecycle.checkpoint_interval_s", l.checkpoint_interval_s);
    v("lifecycle.restart_s", l.restart_s);
    v("lifecycle.preemptions", l.preemptions);
    v("lifecycle.failures", l.failures);
    v("lifecycle.checkpoints", l.checkpoints);
    v("lifecycle.resizes", l.resizes);
    v("lifecycle.restarts", l.restarts);
    v("lifecycle.lost_work_s", l.lost_work_s);
    v("lifecycle.budget_alert_s", l.budget_alert_s);
    v("lifecycle.finished_fraction", l.finished_fraction);
    v("lifecycle.gave_up_fraction", l.gave_up_fraction);
    v("lifecycle.deadline_h", l.deadline_h);
    v("lifecycle.window_h", l.window_h);
    v("lifecycle.deadline_met_fraction", l.deadline_met_fraction);
    v("lifecycle.trained_fraction", l.trained_fraction);
    v("replications", r.replications);
    v("seed", r.seed);
    v("time_stats.mean", r.time_stats.mean);
    v("time_stats.p5", r.time_stats.p5);
    v("time_stats.p50", r.time_stats.p50);
    v("time_stats.p95", r.time_stats.p95);
    v("cost_stats.mean", r.cost_stats.mean);
    v("cost_stats.p5", r.cost_stats.p5);
    v("cost_stats.p50", r.cost_stats.p50);
    v("cost_stats.p95", r.cost_stats.p95);
    v("simulated_iterations", r.simulated_iterations);
    v("events", r.events);
    v("fingerprint", r.fingerprint);
}

// Doubles are JSON numbers (shortest text that reads back to the same double), or the
// strings "nan", "inf" and "-inf", which JSON numbers cannot hold.
Record encode(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return x;
}

Record encode(const std::string& s) { return s; }
Record encode(bool b) { return b; }

template <class T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
Record encode(T x) {
    if constexpr (std::is_enum_v<T>)
        return static_cast<std::int64_t>(x);
    else
        return x;
}

Record encode(const std::vector<EpochResult>& epochs) {
    Record a = Record::array();
    for (const auto& e : epochs) a.push_back(Record::array({encode(e.time_s), encode(e.input_stall_s), encode(e.stall_fraction)}));
    return a;
}

Record encode(const std::map<std::string, int>& counts) {
    Record o = Record::object();
    for (const auto& [k, n] : counts) o[k] = n;
    return o;
}

[[noreturn]] void bad_record(const char* key) { throw std::invalid_argument(std::string("result record: bad member ") + key); }

void decode(const Record& j, const char* key, double& x) {
    if (j.is_number()) {
        x = j.get<double>();
    } else if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        if (s == "nan") x = std::numeric_limits<double>::quiet_NaN();
        else if (s == "inf") x = std::numeric_limits<double>::infinity();
        else if (s == "-inf") x = -std::numeric_limits<double>::infinity();
        else bad_record(key);
    } else {
        bad_record(key);
    }
}

void decode(const Record& j, const char* key, std::string& s) {
    if (!j.is_string()) bad_record(key);
    s = j.get<std::string>();
}

void decode(const Record& j, const char* key, bool& b) {
    if (!j.is_boolean()) bad_record(key);
    b = j.get<bool>();
}

template <class T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
void decode(const Record& j, const char* key, T& x) {
    using Int = std::conditional_t<std::is_enum_v<T>, std::int64_t, T>;
    if (!j.is_number_integer()) bad_record(key);
    if constexpr (std::is_unsigned_v<Int>) {
        if (!j.is_number_unsigned()) bad_record(key);
        x = j.get<Int>();
    } else {
        if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))
            bad_record(key);
        const std::int64_t v = j.get<std::int64_t>();
        if constexpr (sizeof(Int) < sizeof(std::int64_t))
            if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) bad_record(key);
        x = static_cast<T>(v);
    }
}

void decode(const Record& j, const char* key, std::vector<EpochResult>& epochs) {
    if (!j.is_array()) bad_record(key);
    epochs.clear();
    for (const auto& e : j) {
        if (!e.is_array() || e.size() != 3) bad_record(key);
        EpochResult r;
        decode(e[0], key, r.time_s);
        decode(e[1], key, r.input_stall_s);
        decode(e[2], key, r.stall_fraction);
        epochs.push_back(r);
    }
}

void decode(const Record& j, const char* key, std::map<std::string, int>& counts) {
    if (!j.is_object()) bad_record(key);
    counts.clear();
    for (const auto& [k, n] : j.items()) decode(n, key, counts[k]);
}

std::string hex64(std::uint64_t h) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 15];
    return s;
}

// FNV-1a, 64 bits: identifies a point's inputs (not a defence against forgery).
std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "(unreadable)";
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The same value with the members of every object sorted by name: one text whatever the
// order and spacing of the file.
Record canonical(const Record& j) {
    if (j.is_array()) {
        Record a = Record::array();
        for (const auto& x : j) a.push_back(canonical(x));
        return a;
    }
    if (!j.is_object()) return j;
    std::vector<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.push_back(key);
    std::sort(keys.begin(), keys.end());
    Record o = Record::object();
    for (const auto& key : keys) o[key] = canonical(j.at(key));
    return o;
}

void sync_folder_of(const std::string& path) {
    std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) folder = ".";
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    if (::fsync(fd) != 0) {
        // Some file systems do not sync folders; the journal's lines are synced themselves.
    }
    ::close(fd);
}

}  // namespace

std::string result_record(const Result& r) {
    Record j = Record::object();
    each_member(r, [&j](const char* key, const auto& member) { j[key] = encode(member); });
    return j.dump();
}

Result result_from_record(std::string_view record) {
    const Record j = Record::parse(record, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::invalid_argument("result record: not a JSON object");
    Result r;
    std::size_t members = 0;
    each_member(r, [&](const char* key, auto& member) {
        const auto it = j.find(key);
        if (it == j.end()) bad_record(key);
        decode(*it, key, member);
        ++members;
    });
    if (members != j.size()) throw std::invalid_argument("result record: unknown members");
    return r;
}

std::vector<std::string> point_input_hashes(const ScenarioSet& set, std::string_view scenario_text,
                                            const RunOptions& options) {
    Record base = Record::parse(scenario_text, nullptr, false);
    if (base.is_object()) base.erase("sweep");
    const std::string scenario = base.is_discarded() ? std::string(scenario_text) : canonical(base).dump();
    std::map<std::string, std::string> calibrations;
    std::vector<std::string> hashes;
    hashes.reserve(set.points.size());
    for (std::size_t i = 0; i < set.points.size(); ++i) {
        const Scenario& s = set.points[i];
        Record point = Record::object();
        point["format"] = 1;
        point["scenario"] = scenario;
        Record swept = Record::array();
        for (const auto& kv : s.swept) swept.push_back(Record::array({kv.first, kv.second}));
        point["sweep"] = swept;
        point["point"] = s.point;
        point["seed"] = options.seed.value_or(s.seed);
        point["replications"] = options.replications;
        const std::string& calibration = s.cluster.calibration_file;
        if (!calibration.empty()) {
            auto it = calibrations.find(calibration);
            if (it == calibrations.end()) it = calibrations.emplace(calibration, file_text(calibration)).first;
            point["calibration"] = it->second;
        }
        hashes.push_back(hex64(fnv1a(point.dump())));
    }
    return hashes;
}

PointJournal::PointJournal(std::string path, std::vector<std::string> input_hashes, bool resume)
    : path_(std::move(path)), hashes_(std::move(input_hashes)), restored_(hashes_.size()) {
    const int flags = O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | (resume ? 0 : O_EXCL);
    fd_ = ::open(path_.c_str(), flags, 0666);
    if (fd_ < 0 && errno == EEXIST)
        throw InputError(path_, "", "holds the finished points of an interrupted run: pass --resume to finish that run, "
                                    "or delete the file to start again");
    if (fd_ < 0) throw InputError(path_, "", std::string("cannot write journal: ") + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
        throw InputError(path_, "", "in use by another rentsim writing the same outputs");
    }
    // Whole lines only: a kill mid-append leaves a torn last line, cut here before appending.
    std::string text;
    char buf[1 << 16];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd_);
            fd_ = -1;
            throw InputError(path_, "", std::string("cannot read journal: ") + std::strerror(error));
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
    const std::size_t newline = text.rfind('\n');
    const std::size_t whole = newline == std::string::npos ? 0 : newline + 1;
    if (whole < text.size() && (::ftruncate(fd_, static_cast<off_t>(whole)) != 0 || ::fsync(fd_) != 0)) {
        const int error = errno;
        ::close(fd_);
        fd_ = -1;
        throw InputError(path_, "", std::string("cannot write journal: ") + std::strerror(error));
    }
    for (std::size_t start = 0; start < whole;) {
        const std::size_t end = text.find('\n', start);
        const std::string_view line(text.data() + start, end - start);
        start = end + 1;
        const auto j = Record::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) continue;
        const auto index = j.find("index"), inputs = j.find("inputs"), result = j.find("result");
        if (index == j.end() || inputs == j.end() || result == j.end() || !index->is_number_unsigned() ||
            !inputs->is_string() || !result->is_object())
            continue;
        const auto i = index->get<std::uint64_t>();
        if (i >= hashes_.size() || inputs->get<std::string>() != hashes_[i]) continue;
        try {
            restored_[i] = result_from_record(result->dump());
        } catch (const std::invalid_argument&) {
            // A line of another version or a damaged one: the point runs again.
        }
    }
    sync_folder_of(path_);
}

PointJournal::~PointJournal() {
    if (fd_ < 0) return;
    if (!removed_ && points() == 0) ::unlink(path_.c_str());
    ::close(fd_);
}

std::size_t PointJournal::restored_count() const {
    std::size_t n = 0;
    for (const auto& r : restored_) n += r.has_value();
    return n;
}

std::size_t PointJournal::points() const {
    const std::lock_guard lock(mutex_);
    return restored_count() + appended_;
}

void PointJournal::append(std::size_t index, const Result& r) {
    if (index >= hashes_.size()) throw std::out_of_range("PointJournal::append: no such point");
    const std::string line = "{\"index\":" + std::to_string(index) + ",\"inputs\":\"" + hashes_[index] +
                             "\",\"result\":" + result_record(r) + "}\n";
    const std::lock_guard lock(mutex_);
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputError(path_, "", std::string("cannot write journal: ") + std::strerror(errno));
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fdatasync(fd_) != 0) throw InputError(path_, "", std::string("cannot write journal: ") + std::strerror(errno));
    ++appended_;
}

void PointJournal::remove() {
    if (removed_ || fd_ < 0) return;
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
        throw InputError(path_, "", std::string("cannot remove journal: ") + std::strerror(errno));
    removed_ = true;
    sync_folder_of(path_);
}

}  // namespace rentsim::analysis
