#include "sim/link.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace rentsim::sim {

namespace {

// Division, not multiplication by 1e-9 (which is not representable): 5e8 ns is exactly
// 0.5 s, so hand-computed cases come out exact.
double seconds(Time dt) { return static_cast<double>(dt) / 1e9; }

// Nanoseconds to cover `s` seconds, rounded up so a flow never finishes early, but
// forgiving floating-point noise so that 100 B at 50 B/s takes exactly 2 s.
// time_max if it does not fit in Time.
Time ceil_ns(double s) {
    const double ns = s * 1e9;
    if (!(ns < 9.2e18)) return time_max;
    const double r = std::round(ns);
    if (std::abs(ns - r) <= 4.0 * DBL_EPSILON * ns) return static_cast<Time>(r);
    return static_cast<Time>(std::ceil(ns));
}

Time saturating_add(Time a, Time b) { return b > time_max - a ? time_max : a + b; }

bool valid_rate(double bytes_per_s) { return std::isfinite(bytes_per_s) && bytes_per_s >= 0.0; }

}  // namespace

FlowNetwork::FlowNetwork(Engine& engine, std::uint32_t event_kind)
    : engine_(engine), event_kind_(event_kind), last_update_(engine.now()) {}

LinkId FlowNetwork::add_link(double bytes_per_s) {
    if (!valid_rate(bytes_per_s)) {
        throw std::invalid_argument("FlowNetwork::add_link: capacity must be finite and >= 0 bytes/s");
    }
    if (capacity_.size() >= std::numeric_limits<LinkId>::max()) throw std::length_error("FlowNetwork: too many links");
    capacity_.push_back(bytes_per_s);
    link_hops_.emplace_back();
    link_seen_.push_back(0);
    left_.push_back(0.0);
    unfrozen_.push_back(0.0);
    version_.push_back(0);
    touch_round_.push_back(0);
    return static_cast<LinkId>(capacity_.size() - 1);
}

double FlowNetwork::capacity(LinkId l) const {
    if (l >= capacity_.size()) throw std::out_of_range("FlowNetwork::capacity: no such link");
    return capacity_[l];
}

void FlowNetwork::set_capacity(LinkId l, double bytes_per_s) {
    if (l >= capacity_.size()) throw std::out_of_range("FlowNetwork::set_capacity: no such link");
    if (!valid_rate(bytes_per_s)) {
        throw std::invalid_argument("FlowNetwork::set_capacity: capacity must be finite and >= 0 bytes/s");
    }
    advance();
    capacity_[l] = bytes_per_s;
    mark(l);
    if (batch_depth_ == 0) reshare();
}

FlowId FlowNetwork::start_flow(std::span<const LinkId> path, double bytes, Callback on_done, Time latency,
                               std::uint32_t multiplicity) {
    if (path.empty()) throw std::invalid_argument("FlowNetwork::start_flow: empty path");
    for (const LinkId l : path) {
        if (l >= capacity_.size()) throw std::out_of_range("FlowNetwork::start_flow: path names no such link");
    }
    if (!(std::isfinite(bytes) && bytes >= 0.0)) {
        throw std::invalid_argument("FlowNetwork::start_flow: bytes must be finite and >= 0");
    }
    if (latency < 0) throw std::invalid_argument("FlowNetwork::start_flow: negative latency");
    if (!on_done) throw std::invalid_argument("FlowNetwork::start_flow: empty callback");
    if (multiplicity == 0) throw std::invalid_argument("FlowNetwork::start_flow: multiplicity must be at least 1");

    std::uint32_t index = 0;
    if (!free_flows_.empty()) {
        index = free_flows_.back();
        free_flows_.pop_back();
    } else {
        if (flows_.size() >= std::numeric_limits<std::uint32_t>::max()) {
            throw std::length_error("FlowNetwork: too many flows");
        }
        index = static_cast<std::uint32_t>(flows_.size());
        flows_.emplace_back();
        free_flows_.reserve(flows_.capacity());
        active_.reserve(flows_.capacity());
        done_.reserve(flows_.capacity());
    }
    Flow& f = flows_[index];
    f.path.assign(path.begin(), path.end());
    f.slot.resize(path.size());
    f.on_done = std::move(on_done);
    f.bytes = bytes;
    f.remaining = bytes;
    f.rate = 0.0;
    f.multiplicity = static_cast<double>(multiplicity);
    f.finish = time_max;
    f.order = next_order_++;
    f.phase = Phase::latency;
    ++in_flight_;
    const FlowId id{index, f.generation};
    if (latency == 0) {
        join(index);
    } else {
        f.join_event = engine_.schedule_in(latency, [this, index] { join(index); }, event_kind_, index);
    }
    return id;
}

const FlowNetwork::Flow* FlowNetwork::find(FlowId id) const {
    if (!id.valid() || id.index >= flows_.size()) return nullptr;
    const Flow& f = flows_[id.index];
    if (f.generation != id.generation || f.phase == Phase::free) return nullptr;
    return &f;
}

bool FlowNetwork::cancel_flow(FlowId id) {
    const Flow* f = find(id);
    if (f == nullptr) return false;
    if (f->phase == Phase::latency) {
        engine_.cancel(f->join_event);
        retire(id.index);
        return true;
    }
    advance();
    active_.erase(std::find(active_.begin(), active_.end(), id.index));
    detach(id.index);
    retire(id.index);
    if (batch_depth_ == 0) reshare();
    return true;
}

void FlowNetwork::end_batch() {
    if (batch_depth_ <= 0) throw std::logic_error("FlowNetwork::end_batch without begin_batch");
    if (--batch_depth_ == 0 && !dirty_.empty()) reshare();
}

double FlowNetwork::rate(FlowId id) const {
    const Flow* f = find(id);
    return f != nullptr && f->phase == Phase::active ? f->rate : 0.0;
}

double FlowNetwork::remaining(FlowId id) const {
    const Flow* f = find(id);
    if (f == nullptr) return 0.0;
    if (f->phase != Phase::active) return f->remaining;
    return f->remaining - f->rate * seconds(engine_.now() - last_update_);
}

double FlowNetwork::link_rate(LinkId l) const {
    if (l >= capacity_.size()) throw std::out_of_range("FlowNetwork::link_rate: no such link");
    double sum = 0.0;
    for (const Hop& h : link_hops_[l]) sum += flows_[h.flow].rate * flows_[h.flow].multiplicity;
    return sum;
}

double FlowNetwork::delivered_bytes() const {
    const double dt = seconds(engine_.now() - last_update_);
    double sum = delivered_;
    for (const std::uint32_t i : active_) sum += flows_[i].rate * dt * flows_[i].multiplicity;
    return sum;
}

void FlowNetwork::join(std::uint32_t index) {
    advance();
    Flow& f = flows_[index];
    f.phase = Phase::active;
    f.join_event = EventId{};
    active_.push_back(index);
    attach(index);
    if (batch_depth_ == 0) reshare();
}

void FlowNetwork::attach(std::uint32_t index) {
    Flow& f = flows_[index];
    for (std::size_t h = 0; h < f.path.size(); ++h) {
        std::vector<Hop>& hops = link_hops_[f.path[h]];
        f.slot[h] = static_cast<std::uint32_t>(hops.size());
        hops.push_back(Hop{index, static_cast<std::uint32_t>(h)});
        mark(f.path[h]);
    }
}

void FlowNetwork::detach(std::uint32_t index) {
    Flow& f = flows_[index];
    for (std::size_t h = 0; h < f.path.size(); ++h) {
        std::vector<Hop>& hops = link_hops_[f.path[h]];
        const std::uint32_t pos = f.slot[h];
        hops[pos] = hops.back();
        flows_[hops[pos].flow].slot[hops[pos].hop] = pos;
        hops.pop_back();
        mark(f.path[h]);
    }
}

void FlowNetwork::mark(LinkId l) { dirty_.push_back(l); }

void FlowNetwork::advance() {
    const Time now = engine_.now();
    if (now == last_update_) return;
    const double dt = seconds(now - last_update_);
    for (const std::uint32_t i : active_) {
        Flow& f = flows_[i];
        const double d = f.rate * dt;
        f.remaining -= d;
        delivered_ += d * f.multiplicity;
    }
    last_update_ = now;
}

void FlowNetwork::reshare() {
    // The part of the network a change reaches: the changed links, the flows over them, the
    // links of those flows, and so on. Flows outside it keep their rates, since max-min
    // allocations of parts that share no link are independent.
    ++stamp_;
    part_links_.clear();
    part_flows_.clear();
    for (const LinkId l : dirty_) {
        if (link_seen_[l] == stamp_) continue;
        link_seen_[l] = stamp_;
        part_links_.push_back(l);
    }
    dirty_.clear();
    for (std::size_t k = 0; k < part_links_.size(); ++k) {
        for (const Hop& h : link_hops_[part_links_[k]]) {
            Flow& f = flows_[h.flow];
            if (f.seen == stamp_) continue;
            f.seen = stamp_;
            part_flows_.push_back(h.flow);
            for (const LinkId l : f.path) {
                if (link_seen_[l] == stamp_) continue;
                link_seen_[l] = stamp_;
                part_links_.push_back(l);
            }
        }
    }
    fill();

    const Time now = engine_.now();
    for (const std::uint32_t i : part_flows_) {
        Flow& f = flows_[i];
        if (f.remaining <= 0.0) {
            f.finish = now;
        } else if (f.rate > 0.0) {
            f.finish = saturating_add(now, ceil_ns(f.remaining / f.rate));
        } else {
            f.finish = time_max;  // stalled on a zero-capacity link
        }
    }
    Time next = time_max;
    for (const std::uint32_t i : active_) next = std::min(next, flows_[i].finish);
    if (next == timer_at_) return;
    if (timer_.valid()) engine_.cancel(timer_);
    timer_ = EventId{};
    timer_at_ = next;
    if (next != time_max) timer_ = engine_.schedule_at(next, [this] { on_timer(); }, event_kind_, 0);
}

void FlowNetwork::fill() {
    // Progressive filling over the part: raise all unfrozen flows together; the link whose
    // fair share (capacity left / unfrozen flows on it, counted with multiplicity) is smallest
    // saturates first and freezes its flows at that share. Repeat until every flow is frozen.
    // A heap keyed by (share, link id) finds that link; entries go stale when a link's flows
    // change and are skipped. Ties go to the lower link id, so the arithmetic, and hence the
    // run, is the same every time.
    for (const LinkId l : part_links_) {
        left_[l] = capacity_[l];
        unfrozen_[l] = 0.0;
    }
    for (const std::uint32_t i : part_flows_) {
        Flow& f = flows_[i];
        f.rate = -1.0;
        for (const LinkId l : f.path) unfrozen_[l] += f.multiplicity;
    }
    const auto later = [](const Share& a, const Share& b) {
        return a.share > b.share || (a.share == b.share && a.link > b.link);
    };
    const auto share_of = [this](LinkId l) { return std::max(0.0, left_[l]) / unfrozen_[l]; };
    heap_.clear();
    for (const LinkId l : part_links_) {
        ++version_[l];
        if (unfrozen_[l] > 0.0) heap_.push_back(Share{share_of(l), l, version_[l]});
    }
    std::make_heap(heap_.begin(), heap_.end(), later);
    std::size_t pending = part_flows_.size();
    while (pending > 0 && !heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        const Share top = heap_.back();
        heap_.pop_back();
        if (top.version != version_[top.link]) continue;
        // Freeze the link's unfrozen flows; every link they cross gets a new share, pushed once.
        ++round_;
        touched_.clear();
        for (const Hop& h : link_hops_[top.link]) {
            Flow& f = flows_[h.flow];
            if (f.rate >= 0.0) continue;
            f.rate = top.share;
            const double used = top.share * f.multiplicity;
            for (const LinkId l : f.path) {
                left_[l] -= used;
                unfrozen_[l] -= f.multiplicity;
                if (touch_round_[l] != round_) {
                    touch_round_[l] = round_;
                    touched_.push_back(l);
                }
            }
            --pending;
        }
        for (const LinkId l : touched_) {
            ++version_[l];
            if (unfrozen_[l] > 0.0) {
                heap_.push_back(Share{share_of(l), l, version_[l]});
                std::push_heap(heap_.begin(), heap_.end(), later);
            }
        }
    }
}

void FlowNetwork::retire(std::uint32_t index) {
    Flow& f = flows_[index];
    f.phase = Phase::free;
    f.on_done.reset();
    f.rate = 0.0;
    f.remaining = 0.0;
    f.join_event = EventId{};
    if (++f.generation == 0) f.generation = 1;  // 0 marks an invalid FlowId
    free_flows_.push_back(index);
    --in_flight_;
}

void FlowNetwork::on_timer() {
    timer_ = EventId{};
    timer_at_ = time_max;
    advance();
    const Time now = engine_.now();
    done_.clear();
    for (const std::uint32_t i : active_) {
        if (flows_[i].finish <= now) done_.push_back(i);
    }
    std::erase_if(active_, [this, now](std::uint32_t i) { return flows_[i].finish <= now; });
    std::sort(done_.begin(), done_.end(),
              [this](std::uint32_t a, std::uint32_t b) { return flows_[a].order < flows_[b].order; });
    // Only on_timer() touches done_callbacks_, so it does not move while callbacks run.
    done_callbacks_.clear();
    done_callbacks_.reserve(done_.size());
    for (const std::uint32_t i : done_) {
        done_callbacks_.push_back(std::move(flows_[i].on_done));
        detach(i);
        retire(i);
    }
    // The network is consistent before any callback runs, since callbacks start flows; the
    // flows they start at this instant are re-shared together once they have all run.
    reshare();
    {
        const Batch batch(*this);
        for (Callback& cb : done_callbacks_) cb();
    }
    done_callbacks_.clear();
}

SharedLink::SharedLink(Engine& engine, double bytes_per_s, Time latency, std::uint32_t event_kind)
    : net_(engine, event_kind), link_(net_.add_link(bytes_per_s)), latency_(latency) {
    if (latency < 0) throw std::invalid_argument("SharedLink: negative latency");
}

FlowId SharedLink::transfer(double bytes, Callback on_done) {
    return net_.start_flow(std::span<const LinkId>(&link_, 1), bytes, std::move(on_done), latency_);
}

}  // namespace rentsim::sim
