// The Kineto importer: PyTorch profiler traces (Chrome-trace JSON as `torch.profiler` writes
// it, one file per rank, plain or gzip) into trace.hpp's RankTrace.
//
// Streamed: the bytes are inflated as they are read and parsed once by nlohmann::json's
// SAX-driven parser with a callback; each entry of "traceEvents" is turned into an Event and
// dropped before the next is read, so a file is never held whole in memory.
//
// What is kept, from each "traceEvents" entry with "ph": "X" by its "cat":
//   cpu_op -> cpu_op; cuda_runtime, cuda_driver -> runtime; kernel -> kernel; gpu_memcpy ->
//   memcpy; gpu_memset -> memset; user_annotation, gpu_user_annotation -> annotation;
//   python_function -> python; any other cat -> other (and counted in unknown_kinds as
//   "X/<cat>").
// `ts` and `dur` are microseconds, possibly fractional: stored as ns rounded to the nearest.
// Host events: `stream` is the thread id (`tid`). Device events: `device` and `stream` from
// args "device" and "stream" (else `pid` and the number in `tid`, as older Kineto wrote
// "stream 7").
// Links: a runtime call and the device events with its args "correlation" get a Dep{flow}
// (runtime -> device event). The "ac2g" flow events ("s"/"f" pairs) state the same links by
// the same id, and so add nothing; "fwdbwd" flows, metadata ("M"), instant events ("i", "I")
// and the profiler's own span (cat "Trace") are read and dropped. Any other "ph" is counted
// in unknown_kinds as "ph <ph>".
// CUDA events: a cudaEventRecord's `cuda_event` is its correlation; "cuda_sync" entries
// (PyTorch's enable_cuda_sync_events) fill the matching cudaStreamWaitEvent's or
// cudaEventSynchronize's `cuda_event` (wait_on_cuda_event_record_corr_id), `sync_stream`
// (their stream) and `wait_on_stream`; synchronising calls (cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize) are runtime events known by their names
// (classify.hpp's runtime_call).
// Steps: user_annotation "ProfilerStep#N" -> `steps` (in time order); every event's `step`
// is the N of the step with step.start <= e.start < step.start + step.dur (as Holistic
// Trace Analysis assigns them; -1 outside every step). Without steps, a note says so.
// Collectives: NCCL kernels (ncclKernel_*, ncclDevKernel_*) and cpu_ops whose args name a
// known collective in "Collective name" (record_param_comms; not "wait") get `coll`: the op
// from "Collective name", else from the kernel name; bytes = "In msg nelems"/"Out msg
// nelems" x the size of "dtype"; "Group size"; the group from "Process Group Name" (else
// "Process Group ID"); its ranks from "Process Group Ranks" (a list, or a string "[0, 1]").
// `seq` counts, per rank, the collectives of each group in time order, kernels and host
// records apart.
// FLOPs: a cpu_op aten::mm, addmm, bmm, baddbmm, linear or matmul with "Input Dims" (traces
// recorded with record_shapes) gets `flops` = 2 x M x N x K of its shapes (an outer
// aten::linear repeats its inner aten::addmm); a GEMM-class kernel launched by a runtime call
// whose innermost enclosing cpu_op (same thread, by time) has FLOPs gets them, split evenly
// over that operator's GEMM kernels. Convolutions get none: "Input Dims" lacks their strides
// and padding.
// Top level: distributedInfo.rank and .world_size, deviceProperties[0].name -> gpu_name.
//
// Errors are InputError(file, where, message): malformed JSON ("line L, column C" of the
// uncompressed text), truncated or corrupt gzip, and entries that break the rules above at
// "/traceEvents/<index>/<field>" (a kept "X" entry needs a string name, numeric ts and a
// non-negative numeric dur).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace/trace.hpp"

namespace rentsim::trace {

// One rank's trace file. Without distributedInfo, rank 0 of world size 1.
RankTrace read_kineto(const std::string& path);

// The same from bytes in memory (plain or gzip); `name` stands for the file in messages.
RankTrace parse_kineto(std::string_view bytes, const std::string& name);

// One file per rank. When every file records distributedInfo.rank, ranks are sorted by it
// (two files of one rank are an error); otherwise each file's rank is its position in
// `paths`. World size: distributedInfo.world_size (files that disagree are an error), else
// the number of files. An empty list is an error.
Trace read_kineto_ranks(const std::vector<std::string>& paths);

// Deepest nesting of arrays and objects accepted in a trace file (Kineto writes 4).
inline constexpr int max_kineto_depth = 32;

}  // namespace rentsim::trace
