// Activities with an explicit life cycle and dependencies, built once and run many times
// (one training iteration per run).
//
// Each activity goes inited -> started -> finished (or canceled, or failed). It starts as
// soon as all its predecessors have finished: a delay then takes its duration; a resource
// use waits for a unit of a FifoResource, holds it and releases it; a transfer is a flow on
// a SharedLink. The engine events an activity schedules carry its `kind` and, as entity,
// its handle. Resources, links and the engine must outlive the graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.hpp"
#include "sim/link.hpp"
#include "sim/resource.hpp"
#include "sim/time.hpp"

namespace rentsim::sim {

enum class ActivityState { inited, started, failed, canceled, finished };

std::string_view to_string(ActivityState s);

class ActivityGraph {
public:
    using Handle = std::uint32_t;

    explicit ActivityGraph(Engine& e);

    // Building. These throw std::logic_error while a run is in progress and
    // std::invalid_argument on a negative duration or bad byte count.
    Handle add_delay(std::string name, Time duration, std::uint32_t kind = 0);
    Handle add_resource_use(std::string name, FifoResource& r, Time hold, std::uint32_t kind = 0);
    Handle add_transfer(std::string name, SharedLink& link, double bytes, std::uint32_t kind = 0);
    // `after` starts only once `before` has finished.
    void precede(Handle before, Handle after);
    // Duration of a delay, or hold time of a resource use. Allowed between runs.
    void set_duration(Handle h, Time d);
    // Bytes of a transfer. Allowed between runs.
    void set_bytes(Handle h, double bytes);
    // Called with the finish time each time h finishes. Set it outside the hot path.
    void on_finished(Handle h, std::function<void(Time)> cb);

    // Resets every state to inited and starts the activities with no predecessor; calls
    // on_all_finished(now) when the last one finishes (at once if the graph is empty). It
    // may call start() again. Throws std::logic_error on a dependency cycle (naming it) or
    // if a run is in progress.
    void start(std::function<void(Time)> on_all_finished);
    // Cancels the started activities (state canceled); the inited ones never start and
    // on_all_finished is not called. No effect if no run is in progress.
    void cancel();
    // Marks a started activity failed and stops it; its successors never start, the run
    // ends as by cancel() for the others. Throws std::logic_error if h is not started.
    void fail(Handle h);

    bool running() const { return running_; }
    ActivityState state(Handle h) const;
    // Time h started (its predecessors finished), or -1 if it has not started in this run.
    Time started_at(Handle h) const;
    // Time h finished, or -1 if it has not finished in this run.
    Time finished_at(Handle h) const;
    std::size_t size() const { return acts_.size(); }
    const std::string& name(Handle h) const;

private:
    enum class Type : std::uint8_t { delay, resource_use, transfer };
    struct Activity {
        std::string name;
        Type type = Type::delay;
        std::uint32_t kind = 0;
        Time duration = 0;
        double bytes = 0.0;
        FifoResource* resource = nullptr;
        SharedLink* link = nullptr;
        std::vector<Handle> successors;
        std::uint32_t predecessors = 0;
        std::function<void(Time)> on_finished;
        // Per run.
        ActivityState state = ActivityState::inited;
        std::uint32_t waiting_for = 0;  // predecessors not finished yet
        Time started_at = -1;
        Time finished_at = -1;
        EventId event;                   // the delay or the hold
        FifoResource::Ticket ticket = 0;  // the queued request, 0 once granted
        FlowId flow;
    };

    Handle add(Activity a);
    Activity& at(Handle h);
    const Activity& at(Handle h) const;
    void require_idle(const char* what) const;
    void check_acyclic();
    void launch(Handle h);
    void granted(Handle h);
    void finish(Handle h);
    void stop_activity(Activity& a);
    void end_run();
    // Stops every started activity: `failed` becomes failed, the others canceled.
    void abort(Handle failed);

    static constexpr Handle no_handle = std::numeric_limits<Handle>::max();

    Engine& engine_;
    std::vector<Activity> acts_;
    std::function<void(Time)> on_all_finished_;
    std::size_t finished_count_ = 0;
    bool running_ = false;
    bool checked_ = false;  // the structure is known to be acyclic
};

}  // namespace rentsim::sim
