// The Chakra execution-trace importer: one file per rank, plain or gzip, in any of the forms
// people have (the form is detected from the content, not the file name):
//   chakra_protobuf        Chakra's `.et`: a varint-length-prefixed GlobalMetadata, then
//                          varint-length-prefixed Node messages (schema: et_def.proto)
//   chakra_json            the same messages as concatenated JSON objects (protobuf's
//                          MessageToJson: GlobalMetadata first, then one object per Node)
//   chakra_workload_graph  {"workload_graph": [{"Id", "Name", "NodeType", "runtime",
//                          "data_deps", "is_cpu_op", "comm_type", "comm_size", ...}, ...]}
//   pytorch_et             PyTorch's ExecutionTraceObserver output ({"schema", "nodes": [...]}),
//                          host operators only, without durations
//
// What a Chakra node becomes (Event): source_id = node id; start_ns = -1 (Chakra gives
// durations and dependencies, not start times); dur_ns = duration_micros / runtime x 1000;
// stream = the `tid` attribute; device = 0 (the rank's GPU) for GPU nodes, -1 on the host;
// flops = `num_ops` and bytes_accessed = `tensor_size` where recorded (the inputs of
// Chakra's roofline).
//   COMP_NODE, host        cpu_op
//   COMP_NODE, GPU         kernel with kernel_class(name); "Memcpy ..."/"Memset ..." names are
//                          memcpy/memset (class copy)
//   COMM_COLL/SEND/RECV    kernel on the GPU, comm on the host; class communication; has_coll
//                          with op from `comm_type` (else from the name), in_bytes = `comm_size`
//                          (bytes), process_group = `pg_name`, peer and tag for send/recv
//   other node types       other, counted in unknown_kinds ("node type MEM_LOAD_NODE")
// Dependencies: data_deps -> Dep{data}, ctrl_deps -> Dep{control}, from the node depended on to
// the node. A data dependency on an id that is not in the file is an error; control
// dependencies on absent ids (the operator parents that converters from PyTorch traces leave
// behind) are dropped and counted in a note, and so are dependencies of a node on itself
// (converters write them as control dependencies). Attributes not listed above are counted in
// unknown_kinds ("attribute NAME").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace/trace.hpp"

namespace rentsim::trace {

// Reads one rank's file. Malformed or truncated input raises analysis::InputError naming the
// file and the node index, byte offset or JSON pointer. rank 0, world_size 1.
RankTrace read_chakra(const std::string& path);

// The same on bytes already in memory (gzip or not); `file` names them in messages.
RankTrace parse_chakra(std::string_view bytes, const std::string& file);

// One file per rank, in rank order: rank = position, world_size = the number of files.
Trace read_chakra_ranks(const std::vector<std::string>& paths);

// The largest uncompressed size read (a guard against decompression bombs): 1 GiB.
inline constexpr std::size_t max_chakra_bytes = std::size_t{1} << 30;

}  // namespace rentsim::trace
