#include "sim/activity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace rentsim::sim {

std::string_view to_string(ActivityState s) {
    switch (s) {
    case ActivityState::inited: return "inited";
    case ActivityState::started: return "started";
    case ActivityState::failed: return "failed";
    case ActivityState::canceled: return "canceled";
    case ActivityState::finished: return "finished";
    }
    return "unknown";
}

ActivityGraph::ActivityGraph(Engine& e) : engine_(e) {}

ActivityGraph::Activity& ActivityGraph::at(Handle h) {
    if (h >= acts_.size()) throw std::out_of_range("ActivityGraph: no activity with handle " + std::to_string(h));
    return acts_[h];
}

const ActivityGraph::Activity& ActivityGraph::at(Handle h) const {
    if (h >= acts_.size()) throw std::out_of_range("ActivityGraph: no activity with handle " + std::to_string(h));
    return acts_[h];
}

void ActivityGraph::require_idle(const char* what) const {
    if (running_) throw std::logic_error(std::string("ActivityGraph::") + what + ": not allowed while a run is in progress");
}

ActivityGraph::Handle ActivityGraph::add(Activity a) {
    require_idle("add");
    if (acts_.size() >= std::numeric_limits<Handle>::max()) throw std::length_error("ActivityGraph: too many activities");
    acts_.push_back(std::move(a));
    checked_ = false;
    return static_cast<Handle>(acts_.size() - 1);
}

ActivityGraph::Handle ActivityGraph::add_delay(std::string name, Time duration, std::uint32_t kind) {
    if (duration < 0) throw std::invalid_argument("ActivityGraph::add_delay: negative duration for '" + name + "'");
    Activity a;
    a.name = std::move(name);
    a.type = Type::delay;
    a.kind = kind;
    a.duration = duration;
    return add(std::move(a));
}

ActivityGraph::Handle ActivityGraph::add_resource_use(std::string name, FifoResource& r, Time hold, std::uint32_t kind) {
    if (hold < 0) throw std::invalid_argument("ActivityGraph::add_resource_use: negative hold for '" + name + "'");
    Activity a;
    a.name = std::move(name);
    a.type = Type::resource_use;
    a.kind = kind;
    a.duration = hold;
    a.resource = &r;
    return add(std::move(a));
}

ActivityGraph::Handle ActivityGraph::add_transfer(std::string name, SharedLink& link, double bytes, std::uint32_t kind) {
    if (!(std::isfinite(bytes) && bytes >= 0.0)) {
        throw std::invalid_argument("ActivityGraph::add_transfer: bytes must be finite and >= 0 for '" + name + "'");
    }
    Activity a;
    a.name = std::move(name);
    a.type = Type::transfer;
    a.kind = kind;
    a.bytes = bytes;
    a.link = &link;
    return add(std::move(a));
}

void ActivityGraph::precede(Handle before, Handle after) {
    require_idle("precede");
    at(before).successors.push_back(after);
    ++at(after).predecessors;
    checked_ = false;
}

void ActivityGraph::set_duration(Handle h, Time d) {
    require_idle("set_duration");
    Activity& a = at(h);
    if (a.type == Type::transfer) throw std::invalid_argument("ActivityGraph::set_duration: '" + a.name + "' is a transfer");
    if (d < 0) throw std::invalid_argument("ActivityGraph::set_duration: negative duration for '" + a.name + "'");
    a.duration = d;
}

void ActivityGraph::set_bytes(Handle h, double bytes) {
    require_idle("set_bytes");
    Activity& a = at(h);
    if (a.type != Type::transfer) throw std::invalid_argument("ActivityGraph::set_bytes: '" + a.name + "' is not a transfer");
    if (!(std::isfinite(bytes) && bytes >= 0.0)) {
        throw std::invalid_argument("ActivityGraph::set_bytes: bytes must be finite and >= 0 for '" + a.name + "'");
    }
    a.bytes = bytes;
}

void ActivityGraph::on_finished(Handle h, std::function<void(Time)> cb) {
    require_idle("on_finished");
    at(h).on_finished = std::move(cb);
}

ActivityState ActivityGraph::state(Handle h) const { return at(h).state; }
Time ActivityGraph::started_at(Handle h) const { return at(h).started_at; }
Time ActivityGraph::finished_at(Handle h) const { return at(h).finished_at; }
const std::string& ActivityGraph::name(Handle h) const { return at(h).name; }

void ActivityGraph::check_acyclic() {
    // Kahn's algorithm; whatever it cannot order lies on or behind a cycle. Run once per
    // change of structure, so re-running a graph does not pay (or allocate) for it.
    const std::size_t n = acts_.size();
    std::vector<std::uint32_t> indegree(n);
    std::vector<Handle> ready;
    for (std::size_t i = 0; i < n; ++i) {
        indegree[i] = acts_[i].predecessors;
        if (indegree[i] == 0) ready.push_back(static_cast<Handle>(i));
    }
    std::size_t ordered = 0;
    while (!ready.empty()) {
        const Handle h = ready.back();
        ready.pop_back();
        ++ordered;
        for (const Handle s : acts_[h].successors) {
            if (--indegree[s] == 0) ready.push_back(s);
        }
    }
    if (ordered == n) {
        checked_ = true;
        return;
    }
    // Every activity left over has a left-over predecessor; walking predecessors from one
    // of them must revisit an activity, and the walk from there on is a cycle.
    std::vector<std::vector<Handle>> preds(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (indegree[i] == 0) continue;
        for (const Handle s : acts_[i].successors) {
            if (indegree[s] != 0) preds[s].push_back(static_cast<Handle>(i));
        }
    }
    Handle cur = 0;
    while (indegree[cur] == 0) ++cur;
    std::vector<std::size_t> position(n, n);
    std::vector<Handle> walk;
    while (position[cur] == n) {
        position[cur] = walk.size();
        walk.push_back(cur);
        cur = preds[cur].front();
    }
    // The walk went backwards along edges: reverse it, and start at the first-added activity
    // so the message does not depend on where the walk began.
    std::vector<Handle> cycle(walk.rbegin(), walk.rend() - static_cast<std::ptrdiff_t>(position[cur]));
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string message = "ActivityGraph::start: dependency cycle: ";
    for (const Handle h : cycle) message += "'" + acts_[h].name + "' -> ";
    message += "'" + acts_[cycle.front()].name + "'";
    throw std::logic_error(message);
}

void ActivityGraph::start(std::function<void(Time)> on_all_finished) {
    require_idle("start");
    if (!checked_) check_acyclic();
    for (Activity& a : acts_) {
        a.state = ActivityState::inited;
        a.waiting_for = a.predecessors;
        a.started_at = -1;
        a.finished_at = -1;
        a.event = EventId{};
        a.ticket = 0;
        a.flow = FlowId{};
    }
    finished_count_ = 0;
    on_all_finished_ = std::move(on_all_finished);
    running_ = true;
    if (acts_.empty()) {
        end_run();
        return;
    }
    // Launching never finishes an activity synchronously (even a zero delay is an event),
    // so this loop does not race with finish().
    for (std::size_t i = 0; i < acts_.size(); ++i) {
        if (acts_[i].predecessors == 0) launch(static_cast<Handle>(i));
    }
}

void ActivityGraph::launch(Handle h) {
    Activity& a = acts_[h];
    a.state = ActivityState::started;
    a.started_at = engine_.now();
    switch (a.type) {
    case Type::delay:
        a.event = engine_.schedule_in(a.duration, [this, h] { finish(h); }, a.kind, h);
        break;
    case Type::resource_use: {
        const FifoResource::Ticket t = a.resource->request([this, h] { granted(h); });
        // A free unit is granted inside request(), which has then scheduled the hold.
        if (!a.event.valid()) a.ticket = t;
        break;
    }
    case Type::transfer:
        a.flow = a.link->transfer(a.bytes, [this, h] { finish(h); });
        break;
    }
}

void ActivityGraph::granted(Handle h) {
    Activity& a = acts_[h];
    a.ticket = 0;
    a.event = engine_.schedule_in(
        a.duration,
        [this, h] {
            Activity& held = acts_[h];
            held.event = EventId{};
            held.resource->release();
            finish(h);
        },
        a.kind, h);
}

void ActivityGraph::finish(Handle h) {
    Activity& a = acts_[h];
    const Time now = engine_.now();
    a.event = EventId{};
    a.flow = FlowId{};
    a.state = ActivityState::finished;
    a.finished_at = now;
    ++finished_count_;
    if (a.on_finished) a.on_finished(now);
    if (!running_) return;  // the hook cancelled the run
    for (const Handle s : a.successors) {
        if (--acts_[s].waiting_for == 0) launch(s);
    }
    if (finished_count_ == acts_.size()) end_run();
}

void ActivityGraph::end_run() {
    running_ = false;
    // Moved out first: the hook may start the next run, which replaces on_all_finished_.
    std::function<void(Time)> done = std::move(on_all_finished_);
    on_all_finished_ = nullptr;
    if (done) done(engine_.now());
}

void ActivityGraph::stop_activity(Activity& a) {
    if (a.ticket != 0) {
        a.resource->cancel_request(a.ticket);
        a.ticket = 0;
    }
    if (a.event.valid()) {
        engine_.cancel(a.event);
        a.event = EventId{};
        if (a.type == Type::resource_use) a.resource->release();
    }
    if (a.flow.valid()) {
        a.link->cancel(a.flow);
        a.flow = FlowId{};
    }
}

void ActivityGraph::abort(Handle failed) {
    running_ = false;
    on_all_finished_ = nullptr;
    // Withdraw queued requests before releasing held units, so that a release does not
    // grant a unit to an activity of this graph that is about to be stopped.
    for (Activity& a : acts_) {
        if (a.state == ActivityState::started && a.ticket != 0) {
            a.resource->cancel_request(a.ticket);
            a.ticket = 0;
        }
    }
    for (std::size_t i = 0; i < acts_.size(); ++i) {
        Activity& a = acts_[i];
        if (a.state != ActivityState::started) continue;
        stop_activity(a);
        a.state = i == failed ? ActivityState::failed : ActivityState::canceled;
    }
}

void ActivityGraph::cancel() {
    if (running_) abort(no_handle);
}

void ActivityGraph::fail(Handle h) {
    const Activity& a = at(h);
    if (!running_ || a.state != ActivityState::started) {
        throw std::logic_error("ActivityGraph::fail: '" + a.name + "' is not started");
    }
    abort(h);
}

}  // namespace rentsim::sim
