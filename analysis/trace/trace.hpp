// A recorded op-level trace, as the importers hand it over: what each rank ran, on which
// thread or stream, when and for how long, and the links the recording states explicitly.
// Both importers (Kineto Chrome-trace JSON, Chakra execution traces) produce this; the
// replay (graph.hpp) infers the rest of the dependency structure from it.
//
// Units: times and durations are integer nanoseconds (Kineto's microseconds x 1000, rounded to
// the nearest ns); sizes are bytes. A value the recording does not give is -1 (or empty).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rentsim::trace {

enum class Format : std::uint8_t { kineto, chakra_protobuf, chakra_json, chakra_workload_graph, pytorch_et };

// What an event is. Host events run on a thread (`stream` holds the thread id); device events
// on a GPU stream.
enum class EventKind : std::uint8_t {
    cpu_op,       // a framework operator on a host thread (Kineto "cpu_op", Chakra CPU COMP node)
    runtime,      // a CUDA/HIP runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, ...)
    kernel,       // a GPU kernel (communication kernels too; see `coll`)
    memcpy,       // a GPU copy (Kineto "gpu_memcpy")
    memset,       // a GPU memset (Kineto "gpu_memset")
    annotation,   // a user or profiler range (Kineto "user_annotation", "gpu_user_annotation")
    python,       // a Python function (Kineto "python_function")
    comm,         // a communication node with no kernel of its own (Chakra COMM_* on a host)
    other,        // anything else the importer keeps (counted in `unknown_kinds` too)
};

// A kernel's class, for retargeting to another GPU. The importer fills it from the name (and
// the shape where the recording gives one); `unknown` kernels are rescaled by the roofline of
// the class the retargeter assigns and listed by name.
enum class KernelClass : std::uint8_t {
    none,           // not a device computation (host events, annotations)
    gemm,           // matrix multiplications (cuBLAS, CUTLASS, *gemm*)
    convolution,    // cuDNN convolutions and their gradients
    attention,      // fused attention (flash, fmha, efficient attention, sdpa)
    elementwise,    // elementwise, reductions, normalisation, softmax, embedding gathers
    optimizer,      // fused optimizer updates (multi_tensor_apply, adam, sgd, adagrad)
    copy,           // memcpy, memset, copy/cat kernels
    communication,  // NCCL/RCCL kernels and Chakra COMM nodes
    unknown,
};

enum class CollectiveOp : std::uint8_t {
    unknown, all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send, recv,
    send_recv,  // ncclKernel_SendRecv / ncclDevKernel_SendRecv: point-to-point, all-to-all parts
    barrier,
};

// A collective as the recording describes it. Absent facts stay -1 / empty.
struct Collective {
    CollectiveOp op = CollectiveOp::unknown;
    std::int64_t in_bytes = -1;    // input message per rank: nelems x dtype size
    std::int64_t out_bytes = -1;   // output message per rank
    int group_size = -1;           // ranks in the process group
    std::string process_group;     // its name or description, as recorded
    std::vector<int> group_ranks;  // global ranks of the group, when recorded
    std::int64_t seq = -1;         // this collective's index in its group on this rank
    std::string dtype;             // "Float", "BFloat16", ... as recorded
    int peer = -1;                 // point-to-point: the other rank (Chakra comm_dst of a send,
                                   // comm_src of a recv)
    std::int64_t tag = -1;         // point-to-point tag (Chakra comm_tag)
};

struct Event {
    std::string name;
    EventKind kind = EventKind::other;
    KernelClass cls = KernelClass::none;
    int device = -1;                 // GPU index, -1 on the host
    std::int64_t stream = -1;        // GPU stream, or host thread id
    std::int64_t start_ns = -1;      // -1 when the recording gives durations only (Chakra)
    std::int64_t dur_ns = 0;
    std::int64_t correlation = -1;   // launch <-> kernel correlation id (Kineto)
    std::int64_t cuda_event = -1;    // the CUDA event of a cudaEventRecord/cudaStreamWaitEvent
    // Kineto names a CUDA event by the correlation id of the cudaEventRecord that recorded it:
    // a record's `cuda_event` is its own correlation; a cudaStreamWaitEvent's or
    // cudaEventSynchronize's is the record's, when the trace has "cuda_sync" events (else -1).
    std::int64_t sync_stream = -1;     // runtime call: the GPU stream it acts on (the waiting or
                                       // synchronised stream), when recorded ("cuda_sync")
    std::int64_t wait_on_stream = -1;  // a wait: the GPU stream the awaited event was recorded on
    int step = -1;                   // ProfilerStep number it belongs to, -1 if none
    double flops = -1;               // work, when the recording or its shapes give it
    double bytes_accessed = -1;      // memory traffic, when known
    std::string dtype;               // operand type when recorded ("BFloat16", ...)
    bool has_coll = false;
    Collective coll;                 // meaningful when has_coll
    std::int64_t source_id = -1;     // the recording's own id (Chakra node id), -1 if none
};

enum class DepKind : std::uint8_t {
    flow,     // a recorded launch -> kernel link (Kineto "ac2g" flow events)
    data,     // Chakra data dependency
    control,  // Chakra control dependency
};

// A dependency stated by the recording: `to` may not start before `from` ends (indices into
// RankTrace::events).
struct Dep {
    std::uint32_t from = 0, to = 0;
    DepKind kind = DepKind::flow;
};

struct Step {
    int number = -1;          // N of ProfilerStep#N
    std::int64_t start_ns = 0;
    std::int64_t dur_ns = 0;
};

// One rank's recording, in the order the file lists its events.
struct RankTrace {
    std::string file;                      // where it came from (for messages)
    Format format = Format::kineto;
    int rank = 0;                          // distributedInfo.rank, or the file's position
    int world_size = 1;                    // distributedInfo.world_size, or the number of files
    std::string gpu_name;                  // deviceProperties[0].name when recorded
    std::vector<Event> events;
    std::vector<Dep> deps;
    std::vector<Step> steps;               // ProfilerStep annotations, in time order
    std::map<std::string, std::int64_t> unknown_kinds;  // event kinds not understood -> count
    std::vector<std::string> notes;        // things a user should know ("no ProfilerStep: ...")
};

struct Trace {
    std::vector<RankTrace> ranks;          // sorted by rank
};

}  // namespace rentsim::trace
