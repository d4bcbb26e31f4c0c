// Tag types so that TEST_CASE_TEMPLATE runs a case once per event-set implementation, and
// the list of kinds for cases that loop over them.
#pragma once

#include "sim/event_set.hpp"

namespace rentsim::sim::testing {

struct FourAryHeap {
    using Set = FourAryHeapEventSet;
    static constexpr EventSetKind kind = EventSetKind::four_ary_heap;
};
struct BinaryHeap {
    using Set = BinaryHeapEventSet;
    static constexpr EventSetKind kind = EventSetKind::binary_heap;
};
struct Calendar {
    using Set = CalendarEventSet;
    static constexpr EventSetKind kind = EventSetKind::calendar;
};

inline constexpr EventSetKind all_kinds[] = {EventSetKind::four_ary_heap, EventSetKind::binary_heap,
                                             EventSetKind::calendar};

}  // namespace rentsim::sim::testing

#define RENTSIM_EVENT_SET_KINDS \
    rentsim::sim::testing::FourAryHeap, rentsim::sim::testing::BinaryHeap, rentsim::sim::testing::Calendar
