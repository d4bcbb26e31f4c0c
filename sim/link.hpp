// Fluid flows sharing link bandwidth.
//
// FlowNetwork: links of given capacity (bytes/s) and flows over paths of links. After its
// latency a flow joins; active flows share bandwidth max-min fairly (progressive filling),
// recomputed at every arrival, departure, cancellation and capacity change. A flow ends at
// the first nanosecond at or after its last byte would be delivered. Example:
//
//          B (link 0 only)         C (link 1 only)
//     o ===================== o ===================== o
//          link 0: 10 B/s          link 1: 4 B/s
//     A over both links. Link 1 is the bottleneck: A = C = 4/2 = 2 B/s, then B = 10 - 2 = 8.
//
// Re-sharing is incremental: a change re-shares only the flows and links connected to it
// (through flows sharing links), which is exact because max-min allocations of unconnected
// parts are independent; flows it does not reach keep their rates and completion times. Flows started inside a Batch (and by on_done callbacks of flows
// finishing at one instant) are re-shared once, when the batch ends. A flow of multiplicity m
// stands for m identical flows over the same path: each gets rate(f), the links carry m times it.
//
// The network keeps one engine event, its earliest completion, instead of one per flow:
// a rate change then costs one cancel and one schedule rather than one per flow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/callback.hpp"
#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace rentsim::sim {

using LinkId = std::uint32_t;

// Names one flow; a default-constructed id names none. Ids of finished flows are stale
// (queries return 0, cancel returns false), even once their storage is reused.
struct FlowId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;

    constexpr bool valid() const { return generation != 0; }
    friend constexpr bool operator==(const FlowId&, const FlowId&) = default;
};

class FlowNetwork {
public:
    // The engine must outlive the network. The network's events carry `event_kind`.
    explicit FlowNetwork(Engine& engine, std::uint32_t event_kind = 0);
    FlowNetwork(const FlowNetwork&) = delete;
    FlowNetwork& operator=(const FlowNetwork&) = delete;

    // Throws std::invalid_argument unless bytes_per_s >= 0 (0 stalls the link's flows).
    LinkId add_link(double bytes_per_s);
    std::size_t link_count() const { return capacity_.size(); }
    double capacity(LinkId l) const;
    // Takes effect now: progress so far is kept, rates and completions are recomputed.
    void set_capacity(LinkId l, double bytes_per_s);

    // Starts a flow of `bytes` (>= 0) over `path` (non-empty; a link may repeat), which
    // joins after `latency` (>= 0) ns and calls on_done when its last byte arrives. With
    // `multiplicity` m (>= 1) it is m flows of `bytes` each over the path, moving in step and
    // reported by one on_done. Throws std::invalid_argument / std::out_of_range on bad arguments.
    FlowId start_flow(std::span<const LinkId> path, double bytes, Callback on_done, Time latency = 0,
                      std::uint32_t multiplicity = 1);
    // Stops a flow in latency or active; on_done is not called. False if not in flight.
    bool cancel_flow(FlowId f);

    // Defers re-sharing: flows joining, leaving or changing capacity between begin_batch() and
    // the matching end_batch() (batches nest) are re-shared once, at the outermost end. Inside
    // a batch, rate() and link_rate() give the rates in force before it; remaining() and
    // delivered_bytes() stay exact. Begin and end a batch at one instant (in one event). The
    // Batch guard below pairs the two calls; end_batch() without begin_batch() throws
    // std::logic_error.
    void begin_batch() { ++batch_depth_; }
    void end_batch();
    class Batch {
    public:
        explicit Batch(FlowNetwork& net) : net_(net) { net_.begin_batch(); }
        Batch(const Batch&) = delete;
        Batch& operator=(const Batch&) = delete;
        ~Batch() { net_.end_batch(); }

    private:
        FlowNetwork& net_;
    };

    // Flows sharing bandwidth now (joined, not finished); a flow of multiplicity m counts once.
    std::size_t active_flows() const { return active_.size(); }
    // Flows started and not yet finished, including those still in their latency.
    std::size_t flows_in_flight() const { return in_flight_; }
    // Current rate in bytes/s; 0 if the flow is in its latency or not in flight.
    double rate(FlowId f) const;
    // Bytes still to deliver, as of now(); 0 if not in flight.
    double remaining(FlowId f) const;
    // Sum of the current rates of the flows crossing link l (each times its multiplicity and
    // the times its path crosses l), in bytes/s.
    double link_rate(LinkId l) const;
    // Bytes delivered by all flows since construction, as of now(): the integral of their
    // rates times their multiplicities. Equals the bytes of finished flows up to each one's
    // last-nanosecond rounding.
    double delivered_bytes() const;

private:
    enum class Phase : std::uint8_t { free, latency, active };
    struct Flow {
        std::vector<LinkId> path;        // kept when the slot is reused, so its capacity is reused
        std::vector<std::uint32_t> slot; // per hop: its position in link_hops_[path[h]] while active
        Callback on_done;
        double bytes = 0.0;
        double remaining = 0.0;
        double rate = 0.0;
        double multiplicity = 1.0;
        Time finish = time_max;
        EventId join_event;
        std::uint64_t order = 0;  // start order; completions at one instant run in it
        std::uint64_t seen = 0;   // stamp of the last re-share that reached it
        std::uint32_t generation = 1;
        Phase phase = Phase::free;
    };
    // One hop of an active flow over a link.
    struct Hop {
        std::uint32_t flow;
        std::uint32_t hop;
    };
    // A link's fair share when pushed on the filling heap; stale once the link's version moves.
    struct Share {
        double share;
        LinkId link;
        std::uint32_t version;
    };

    const Flow* find(FlowId f) const;
    void join(std::uint32_t index);
    void attach(std::uint32_t index);
    void detach(std::uint32_t index);
    void mark(LinkId l);
    void advance();
    void reshare();
    void fill();
    void retire(std::uint32_t index);
    void on_timer();

    Engine& engine_;
    std::uint32_t event_kind_;
    std::vector<double> capacity_;
    std::vector<std::vector<Hop>> link_hops_;  // per link, the active flows' hops over it
    std::vector<Flow> flows_;
    std::vector<std::uint32_t> free_flows_;
    std::vector<std::uint32_t> active_;  // in join order
    std::size_t in_flight_ = 0;
    std::uint64_t next_order_ = 0;
    Time last_update_ = 0;
    double delivered_ = 0.0;
    EventId timer_;
    Time timer_at_ = time_max;
    int batch_depth_ = 0;
    // Links whose flows or capacity changed since the last re-share, and the stamps that keep
    // each link and flow visited once per re-share.
    std::vector<LinkId> dirty_;
    std::vector<std::uint64_t> link_seen_;
    std::uint64_t stamp_ = 1;
    // Scratch space for reshare() and on_timer(), kept to avoid allocating per event.
    std::vector<double> left_;
    std::vector<double> unfrozen_;
    std::vector<std::uint32_t> version_;
    std::vector<std::uint64_t> touch_round_;
    std::uint64_t round_ = 0;
    std::vector<LinkId> part_links_;
    std::vector<std::uint32_t> part_flows_;
    std::vector<LinkId> touched_;
    std::vector<Share> heap_;
    std::vector<std::uint32_t> done_;
    std::vector<Callback> done_callbacks_;
};

// One link whose concurrent transfers share its bandwidth equally (processor sharing),
// each starting after the link's latency. A FlowNetwork with a single link.
class SharedLink {
public:
    SharedLink(Engine& engine, double bytes_per_s, Time latency, std::uint32_t event_kind = 0);

    FlowId transfer(double bytes, Callback on_done);
    bool cancel(FlowId f) { return net_.cancel_flow(f); }

    double capacity() const { return net_.capacity(link_); }
    void set_capacity(double bytes_per_s) { net_.set_capacity(link_, bytes_per_s); }
    Time latency() const { return latency_; }
    std::size_t active_flows() const { return net_.active_flows(); }
    double rate(FlowId f) const { return net_.rate(f); }
    FlowNetwork& network() { return net_; }
    const FlowNetwork& network() const { return net_; }

private:
    FlowNetwork net_;
    LinkId link_;
    Time latency_;
};

}  // namespace rentsim::sim
