// Tag types so that TEST_CASE_TEMPLATE runs a case once per event-set implementation.
#pragma once

#include "sim/event_set.hpp"

namespace rentsim::sim::testing {

struct BinaryHeap {
    static constexpr EventSetKind kind = EventSetKind::binary_heap;
};
struct Calendar {
    static constexpr EventSetKind kind = EventSetKind::calendar;
};

}  // namespace rentsim::sim::testing

#define RENTSIM_EVENT_SET_KINDS rentsim::sim::testing::BinaryHeap, rentsim::sim::testing::Calendar
