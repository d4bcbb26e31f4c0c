#include "analysis/trace/chakra.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>
#include <zlib.h>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/json_reader.hpp"
#include "analysis/trace/et_def.pb.h"
#include "analysis/trace/classify.hpp"

namespace rentsim::trace {

namespace {

using analysis::InputError;
using analysis::Json;

constexpr std::int64_t ns_per_us = 1000;
constexpr std::uint64_t max_micros = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / ns_per_us);

// ---- bytes -----------------------------------------------------------------------------------

bool is_gzip(std::string_view b) {
    return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

// Inflates every gzip member of `in` (files made by concatenating gzip files have several).
std::string gunzip(std::string_view in, const std::string& file) {
    std::string out;
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) throw InputError(file, "", "cannot start gzip decompression");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), std::numeric_limits<uInt>::max()));
    std::size_t fed = zs.avail_in;
    char buf[1 << 16];
    for (;;) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buf, sizeof buf - zs.avail_out);
        const std::size_t consumed = fed - zs.avail_in;
        if (out.size() > max_chakra_bytes) {
            inflateEnd(&zs);
            throw InputError(file, "", "uncompressed size above 1 GiB; refusing to read further");
        }
        if (rc == Z_STREAM_END) {
            // Another member may follow (skip trailing zero padding, which gzip tolerates).
            std::size_t rest = consumed;
            while (rest < in.size() && in[rest] == '\0') ++rest;
            if (rest >= in.size()) break;
            if (!is_gzip(in.substr(rest))) {
                inflateEnd(&zs);
                throw InputError(file, "byte " + std::to_string(rest), "data after the end of the gzip stream");
            }
            inflateReset(&zs);
            zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + rest));
            zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size() - rest, std::numeric_limits<uInt>::max()));
            fed = rest + zs.avail_in;
            continue;
        }
        if (rc == Z_OK) continue;
        const std::string why = zs.msg != nullptr ? zs.msg : "unexpected end";
        inflateEnd(&zs);
        if (rc == Z_BUF_ERROR)
            throw InputError(file, "byte " + std::to_string(consumed), "gzip stream is truncated");
        throw InputError(file, "byte " + std::to_string(consumed), "gzip data is corrupt: " + why);
    }
    inflateEnd(&zs);
    return out;
}

// ---- one node, whatever the form -------------------------------------------------------------

struct RawNode {
    std::string where;                 // for messages: "node 12 (byte 3456)", a JSON pointer
    std::uint64_t id = 0;
    std::string name;
    int type = 0;                      // NodeType number
    std::optional<bool> is_cpu_op;
    std::int64_t tid = -1;
    std::uint64_t dur_us = 0;
    std::vector<std::uint64_t> data_deps, ctrl_deps;
    std::optional<std::int64_t> comm_type, comm_size, comm_src, comm_dst, comm_tag;
    std::optional<std::int64_t> num_ops, tensor_size;  // work and bytes accessed (Chakra's roofline inputs)
    std::string pg_name;
};

std::string node_type_name(int t) {
    if (ChakraProtoMsg::NodeType_IsValid(t)) return ChakraProtoMsg::NodeType_Name(static_cast<ChakraProtoMsg::NodeType>(t));
    return "node type " + std::to_string(t);
}

// Attributes rentsim reads, and those it knows and leaves (host bookkeeping of the PyTorch
// trace the file was converted from); any other name is counted.
bool known_ignored_attribute(std::string_view name) {
    static constexpr std::array<std::string_view, 9> names{"fw_parent", "fw_tid", "op_schema", "seq_id", "rf_id",
                                                            "scope", "involved_dim", "comm_priority", "pg_desc"};
    return std::find(names.begin(), names.end(), name) != names.end();
}

CollectiveOp op_from_comm_type(std::int64_t t, std::map<std::string, std::int64_t>& unknown) {
    switch (t) {
        case ChakraProtoMsg::ALL_REDUCE: return CollectiveOp::all_reduce;
        case ChakraProtoMsg::REDUCE: return CollectiveOp::reduce;
        case ChakraProtoMsg::ALL_GATHER: return CollectiveOp::all_gather;
        case ChakraProtoMsg::BROADCAST: return CollectiveOp::broadcast;
        case ChakraProtoMsg::ALL_TO_ALL: return CollectiveOp::all_to_all;
        case ChakraProtoMsg::REDUCE_SCATTER:
        case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: return CollectiveOp::reduce_scatter;
        case ChakraProtoMsg::BARRIER: return CollectiveOp::barrier;
        default: break;
    }
    const int ti = static_cast<int>(t);
    ++unknown[std::string("comm_type ") + (t >= 0 && t <= std::numeric_limits<int>::max() &&
                                                   ChakraProtoMsg::CollectiveCommType_IsValid(ti)
                                               ? ChakraProtoMsg::CollectiveCommType_Name(
                                                     static_cast<ChakraProtoMsg::CollectiveCommType>(ti))
                                               : std::to_string(t))];
    return CollectiveOp::unknown;
}

std::int64_t to_ns(std::uint64_t us, const RawNode& n, const std::string& file) {
    if (us > max_micros)
        throw InputError(file, n.where, "duration " + std::to_string(us) + " us is beyond the range of 64-bit nanoseconds");
    return static_cast<std::int64_t>(us) * ns_per_us;
}

// Builds the rank's events and dependencies from the nodes of any Chakra form.
RankTrace build(const std::string& file, Format format, std::vector<RawNode>& nodes,
                std::map<std::string, std::int64_t> unknown) {
    RankTrace t;
    t.file = file;
    t.format = format;
    t.unknown_kinds = std::move(unknown);
    if (nodes.size() > std::numeric_limits<std::uint32_t>::max())
        throw InputError(file, "", "more than 2^32 nodes");
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    index.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        auto [it, fresh] = index.emplace(nodes[i].id, static_cast<std::uint32_t>(i));
        if (!fresh)
            throw InputError(file, nodes[i].where,
                             "node id " + std::to_string(nodes[i].id) + " appears twice (first as node " +
                                 std::to_string(it->second) + ")");
    }
    std::int64_t dropped_ctrl = 0, self_deps = 0, comm_without_size = 0;
    t.events.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const RawNode& n = nodes[i];
        Event e;
        e.name = n.name;
        e.source_id = static_cast<std::int64_t>(std::min<std::uint64_t>(n.id, std::numeric_limits<std::int64_t>::max()));
        e.stream = n.tid;
        e.dur_ns = to_ns(n.dur_us, n, file);
        const bool cpu = n.is_cpu_op.value_or(false);
        e.device = cpu ? -1 : 0;
        if (n.num_ops && *n.num_ops >= 0) e.flops = static_cast<double>(*n.num_ops);
        if (n.tensor_size && *n.tensor_size >= 0) e.bytes_accessed = static_cast<double>(*n.tensor_size);
        switch (n.type) {
            case ChakraProtoMsg::COMP_NODE:
                if (cpu) {
                    e.kind = EventKind::cpu_op;
                } else {
                    e.cls = kernel_class(n.name);
                    e.kind = n.name.starts_with("Memcpy")   ? EventKind::memcpy
                             : n.name.starts_with("Memset") ? EventKind::memset
                                                            : EventKind::kernel;
                }
                break;
            case ChakraProtoMsg::COMM_COLL_NODE:
            case ChakraProtoMsg::COMM_SEND_NODE:
            case ChakraProtoMsg::COMM_RECV_NODE: {
                e.kind = cpu ? EventKind::comm : EventKind::kernel;
                e.cls = KernelClass::communication;
                e.has_coll = true;
                Collective& c = e.coll;
                if (n.type == ChakraProtoMsg::COMM_SEND_NODE) {
                    c.op = CollectiveOp::send;
                    if (n.comm_dst) c.peer = static_cast<int>(std::clamp<std::int64_t>(*n.comm_dst, -1, std::numeric_limits<int>::max()));
                } else if (n.type == ChakraProtoMsg::COMM_RECV_NODE) {
                    c.op = CollectiveOp::recv;
                    if (n.comm_src) c.peer = static_cast<int>(std::clamp<std::int64_t>(*n.comm_src, -1, std::numeric_limits<int>::max()));
                } else {
                    c.op = n.comm_type ? op_from_comm_type(*n.comm_type, t.unknown_kinds) : collective_from_name(n.name);
                }
                if (n.comm_tag) c.tag = *n.comm_tag;
                if (n.comm_size) {
                    if (*n.comm_size < 0) throw InputError(file, n.where, "comm_size " + std::to_string(*n.comm_size) + " is negative");
                    c.in_bytes = *n.comm_size;
                } else {
                    ++comm_without_size;
                }
                c.process_group = n.pg_name;
                break;
            }
            default:
                e.kind = EventKind::other;
                ++t.unknown_kinds[node_type_name(n.type)];
                break;
        }
        t.events.push_back(std::move(e));
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const RawNode& n = nodes[i];
        const auto to = static_cast<std::uint32_t>(i);
        for (std::uint64_t d : n.data_deps) {
            const auto it = index.find(d);
            if (it == index.end())
                throw InputError(file, n.where, "data dependency on node id " + std::to_string(d) + ", which is not in the trace");
            if (it->second == to) {
                ++self_deps;
                continue;
            }
            t.deps.push_back(Dep{it->second, to, DepKind::data});
        }
        for (std::uint64_t d : n.ctrl_deps) {
            const auto it = index.find(d);
            if (it == index.end()) {
                ++dropped_ctrl;
                continue;
            }
            if (it->second == to) {
                ++self_deps;
                continue;
            }
            t.deps.push_back(Dep{it->second, to, DepKind::control});
        }
    }
    t.notes.push_back("Chakra traces carry no ProfilerStep marks and no start times: the file is one window, "
                      "ordered by its dependencies");
    if (dropped_ctrl > 0)
        t.notes.push_back(std::to_string(dropped_ctrl) +
                          " control dependencies name nodes that are not in the file (operator parents of the "
                          "trace it was converted from); they were dropped");
    if (self_deps > 0)
        t.notes.push_back(std::to_string(self_deps) + " dependencies of a node on itself were dropped");
    if (comm_without_size > 0)
        t.notes.push_back(std::to_string(comm_without_size) +
                          " communication nodes carry no comm_size: their message size is unknown (-1)");
    return t;
}

// ---- protobuf .et ----------------------------------------------------------------------------

// The integer held by an attribute of any integer type.
std::optional<std::int64_t> attr_int(const ChakraProtoMsg::AttributeProto& a) {
    using A = ChakraProtoMsg::AttributeProto;
    const auto clamp_u = [](std::uint64_t v) {
        return static_cast<std::int64_t>(std::min<std::uint64_t>(v, std::numeric_limits<std::int64_t>::max()));
    };
    switch (a.value_case()) {
        case A::kInt32Val: return a.int32_val();
        case A::kInt64Val: return a.int64_val();
        case A::kUint32Val: return a.uint32_val();
        case A::kUint64Val: return clamp_u(a.uint64_val());
        case A::kSint32Val: return a.sint32_val();
        case A::kSint64Val: return a.sint64_val();
        case A::kFixed32Val: return a.fixed32_val();
        case A::kFixed64Val: return clamp_u(a.fixed64_val());
        case A::kSfixed32Val: return a.sfixed32_val();
        case A::kSfixed64Val: return a.sfixed64_val();
        case A::kBoolVal: return a.bool_val() ? 1 : 0;
        default: return std::nullopt;
    }
}

// Reads the attributes rentsim uses into `n`; `fail` reports an attribute of the wrong type.
template <class Fail>
void read_attribute(const std::string& name, std::optional<std::int64_t> as_int, std::optional<bool> as_bool,
                    const std::string* as_string, RawNode& n, std::map<std::string, std::int64_t>& unknown,
                    const Fail& fail) {
    const auto need_int = [&]() {
        if (!as_int) fail("attribute " + name + " is not an integer");
        return *as_int;
    };
    if (name == "is_cpu_op") {
        if (as_bool) n.is_cpu_op = *as_bool;
        else if (as_int) n.is_cpu_op = *as_int != 0;
        else fail("attribute is_cpu_op is not a boolean");
    } else if (name == "tid") {
        n.tid = need_int();
    } else if (name == "comm_type") {
        n.comm_type = need_int();
    } else if (name == "comm_size") {
        n.comm_size = need_int();
    } else if (name == "comm_src") {
        n.comm_src = need_int();
    } else if (name == "comm_dst") {
        n.comm_dst = need_int();
    } else if (name == "comm_tag") {
        n.comm_tag = need_int();
    } else if (name == "num_ops") {
        n.num_ops = need_int();
    } else if (name == "tensor_size") {
        n.tensor_size = need_int();
    } else if (name == "pg_name") {
        if (as_string == nullptr) fail("attribute pg_name is not a string");
        n.pg_name = *as_string;
    } else if (!known_ignored_attribute(name)) {
        ++unknown["attribute " + name];
    }
}

RankTrace parse_protobuf(std::string_view bytes, const std::string& file) {
    namespace io = google::protobuf::io;
    // The protobuf library logs to stderr what it refuses (a name that is not UTF-8); our
    // error says it, with the file and the place.
    const google::protobuf::LogSilencer quiet;
    io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
    in.SetTotalBytesLimit(static_cast<int>(bytes.size()));
    std::vector<RawNode> nodes;
    std::map<std::string, std::int64_t> unknown;
    bool metadata = true;
    while (static_cast<std::size_t>(in.CurrentPosition()) < bytes.size()) {
        const int at = in.CurrentPosition();
        const std::string what = metadata ? std::string("the GlobalMetadata message") : "node " + std::to_string(nodes.size());
        const std::string where = (metadata ? std::string() : "node " + std::to_string(nodes.size()) + " ") + "(byte " + std::to_string(at) + ")";
        std::uint32_t len = 0;
        if (!in.ReadVarint32(&len))
            throw InputError(file, "byte " + std::to_string(at), "bad or truncated length prefix of " + what);
        const std::size_t left = bytes.size() - static_cast<std::size_t>(in.CurrentPosition());
        if (len > left)
            throw InputError(file, where,
                             "truncated: the length prefix says " + std::to_string(len) + " bytes, " +
                                 std::to_string(left) + " remain");
        const auto limit = in.PushLimit(static_cast<int>(len));
        if (metadata) {
            ChakraProtoMsg::GlobalMetadata m;
            if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
                throw InputError(file, where, "the first message does not parse as a Chakra GlobalMetadata");
            metadata = false;
        } else {
            ChakraProtoMsg::Node p;
            if (!p.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
                throw InputError(file, where, "does not parse as a Chakra Node");
            RawNode n;
            n.where = "node " + std::to_string(nodes.size()) + " (byte " + std::to_string(at) + ")";
            n.id = p.id();
            n.name = p.name();
            n.type = p.type();
            n.dur_us = p.duration_micros();
            n.data_deps.assign(p.data_deps().begin(), p.data_deps().end());
            n.ctrl_deps.assign(p.ctrl_deps().begin(), p.ctrl_deps().end());
            for (const auto& a : p.attr()) {
                const std::optional<bool> b = a.value_case() == ChakraProtoMsg::AttributeProto::kBoolVal
                                                  ? std::optional<bool>(a.bool_val())
                                                  : std::nullopt;
                const std::string* s = a.value_case() == ChakraProtoMsg::AttributeProto::kStringVal ? &a.string_val() : nullptr;
                read_attribute(a.name(), attr_int(a), b, s, n, unknown,
                               [&](const std::string& m) { throw InputError(file, n.where, m); });
            }
            const auto& extra = p.GetReflection()->GetUnknownFields(p);
            for (int k = 0; k < extra.field_count(); ++k)
                ++unknown["Node field " + std::to_string(extra.field(k).number())];
            nodes.push_back(std::move(n));
        }
        in.PopLimit(limit);
    }
    if (metadata) throw InputError(file, "", "empty trace: no GlobalMetadata message");
    return build(file, Format::chakra_protobuf, nodes, std::move(unknown));
}

// ---- JSON helpers ----------------------------------------------------------------------------

[[noreturn]] void fail_at(const std::string& file, const std::string& where, const std::string& msg) {
    throw InputError(file, where, msg);
}

// A non-negative integer written as a number or, as protobuf's JSON printer writes 64-bit
// integers, as a string of digits.
std::uint64_t json_u64(const Json& j, const std::string& file, const std::string& where) {
    if (j.is_number_unsigned()) return j.get<std::uint64_t>();
    if (j.is_number_integer()) {
        const auto v = j.get<std::int64_t>();
        if (v >= 0) return static_cast<std::uint64_t>(v);
    }
    if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        if (!s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            std::uint64_t v = 0;
            bool overflow = false;
            for (char c : s) {
                const auto digit = static_cast<std::uint64_t>(c - '0');
                if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) overflow = true;
                v = v * 10 + digit;
            }
            if (!overflow) return v;
        }
    }
    fail_at(file, where, "expected a non-negative integer");
}

std::int64_t json_i64(const Json& j, const std::string& file, const std::string& where) {
    if (j.is_number_integer()) return j.get<std::int64_t>();
    if (j.is_number_unsigned()) return static_cast<std::int64_t>(std::min<std::uint64_t>(j.get<std::uint64_t>(), std::numeric_limits<std::int64_t>::max()));
    if (j.is_string() && j.get_ref<const std::string&>().starts_with("-")) {
        const std::uint64_t v = json_u64(Json(j.get_ref<const std::string&>().substr(1)), file, where);
        if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return -static_cast<std::int64_t>(v);
        fail_at(file, where, "expected an integer");
    }
    return static_cast<std::int64_t>(std::min<std::uint64_t>(json_u64(j, file, where), std::numeric_limits<std::int64_t>::max()));
}

std::vector<std::uint64_t> json_ids(const Json& j, const std::string& file, const std::string& where) {
    if (!j.is_array()) fail_at(file, where, "expected an array of node ids");
    std::vector<std::uint64_t> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(json_u64(j[i], file, where + "/" + std::to_string(i)));
    return out;
}

const std::string& json_string(const Json& j, const std::string& file, const std::string& where) {
    if (!j.is_string()) fail_at(file, where, "expected a string");
    return j.get_ref<const std::string&>();
}

int json_node_type(const Json& j, const std::string& file, const std::string& where) {
    if (j.is_string()) {
        ChakraProtoMsg::NodeType t{};
        if (ChakraProtoMsg::NodeType_Parse(j.get_ref<const std::string&>(), &t)) return t;
    }
    const std::uint64_t v = json_u64(j, file, where);
    if (v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) fail_at(file, where, "node type out of range");
    return static_cast<int>(v);
}

// ---- {"workload_graph": [...]} ---------------------------------------------------------------

RankTrace parse_workload_graph(const Json& doc, const std::string& file) {
    const Json& graph = doc["workload_graph"];
    if (!graph.is_array()) fail_at(file, "/workload_graph", "expected an array of nodes");
    std::map<std::string, std::int64_t> unknown;
    for (const auto& [key, value] : doc.items())
        if (key != "workload_graph") ++unknown["key " + key];
    std::vector<RawNode> nodes;
    nodes.reserve(graph.size());
    for (std::size_t i = 0; i < graph.size(); ++i) {
        const Json& j = graph[i];
        const std::string ptr = "/workload_graph/" + std::to_string(i);
        if (!j.is_object()) fail_at(file, ptr, "expected a node object");
        RawNode n;
        n.where = ptr;
        bool has_id = false, has_type = false;
        for (const auto& [key, v] : j.items()) {
            const std::string p = ptr + "/" + key;
            if (key == "Id") n.id = json_u64(v, file, p), has_id = true;
            else if (key == "Name") n.name = json_string(v, file, p);
            else if (key == "NodeType") n.type = json_node_type(v, file, p), has_type = true;
            else if (key == "runtime") n.dur_us = json_u64(v, file, p);
            else if (key == "data_deps") n.data_deps = json_ids(v, file, p);
            else if (key == "ctrl_deps") n.ctrl_deps = json_ids(v, file, p);
            else if (key == "is_cpu_op") {
                if (!v.is_boolean()) fail_at(file, p, "expected true or false");
                n.is_cpu_op = v.get<bool>();
            } else if (key == "comm_type") n.comm_type = json_i64(v, file, p);
            else if (key == "comm_size") n.comm_size = json_i64(v, file, p);
            else if (key == "comm_src") n.comm_src = json_i64(v, file, p);
            else if (key == "comm_dst") n.comm_dst = json_i64(v, file, p);
            else if (key == "comm_tag") n.comm_tag = json_i64(v, file, p);
            else if (key == "tid") n.tid = json_i64(v, file, p);
            else if (key == "num_ops") n.num_ops = json_i64(v, file, p);
            else if (key == "tensor_size") n.tensor_size = json_i64(v, file, p);
            else if (key == "pg_name") n.pg_name = json_string(v, file, p);
            else if (!known_ignored_attribute(key)) ++unknown["key " + key];
        }
        if (!has_id) fail_at(file, ptr, "node without \"Id\"");
        if (!has_type) fail_at(file, ptr, "node without \"NodeType\"");
        nodes.push_back(std::move(n));
    }
    return build(file, Format::chakra_workload_graph, nodes, std::move(unknown));
}

// ---- concatenated MessageToJson objects ------------------------------------------------------

// The byte ranges of the top-level values of `text` (objects one after another, whitespace
// between). Strings are skipped with their escapes; a value left open is an error.
std::vector<std::pair<std::size_t, std::size_t>> split_objects(std::string_view text, const std::string& file) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (true) {
        while (i < text.size() && space(text[i])) ++i;
        if (i == text.size()) break;
        if (text[i] != '{')
            fail_at(file, "byte " + std::to_string(i), "expected '{' to start JSON object " + std::to_string(out.size()));
        const std::size_t begin = i;
        int depth = 0;
        bool in_string = false;
        for (; i < text.size(); ++i) {
            const char c = text[i];
            if (in_string) {
                if (c == '\\') ++i;
                else if (c == '"') in_string = false;
            } else if (c == '"') {
                in_string = true;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) break;
            }
        }
        if (i >= text.size())
            fail_at(file, "byte " + std::to_string(begin), "JSON object " + std::to_string(out.size()) + " is truncated");
        ++i;
        out.emplace_back(begin, i);
    }
    return out;
}

// A field of a MessageToJson object under its JSON name (lowerCamelCase) or its proto name.
const Json* field(const Json& j, const char* json_name, const char* proto_name) {
    if (auto it = j.find(json_name); it != j.end()) return &*it;
    if (auto it = j.find(proto_name); it != j.end()) return &*it;
    return nullptr;
}

void read_json_attribute(const Json& a, const std::string& p, RawNode& n, std::map<std::string, std::int64_t>& unknown,
                         const std::string& file) {
    if (!a.is_object()) fail_at(file, p, "expected an attribute object");
    const Json* name = field(a, "name", "name");
    if (name == nullptr) fail_at(file, p, "attribute without \"name\"");
    const std::string& nm = json_string(*name, file, p + "/name");
    std::optional<std::int64_t> as_int;
    std::optional<bool> as_bool;
    const std::string* as_string = nullptr;
    for (const auto& [key, v] : a.items()) {
        if (key == "name" || key == "docString" || key == "doc_string") continue;
        const std::string vp = p + "/" + key;
        if (key == "boolVal" || key == "bool_val") {
            if (!v.is_boolean()) fail_at(file, vp, "expected true or false");
            as_bool = v.get<bool>();
        } else if (key == "stringVal" || key == "string_val") {
            as_string = &json_string(v, file, vp);
        } else if (key.ends_with("32Val") || key.ends_with("64Val") || key.ends_with("32_val") || key.ends_with("64_val")) {
            as_int = json_i64(v, file, vp);
        }
    }
    read_attribute(nm, as_int, as_bool, as_string, n, unknown, [&](const std::string& m) { fail_at(file, p, m); });
}

RankTrace parse_message_json(std::string_view text, const std::string& file) {
    const auto objects = split_objects(text, file);
    std::vector<RawNode> nodes;
    std::map<std::string, std::int64_t> unknown;
    for (std::size_t k = 0; k < objects.size(); ++k) {
        const auto [begin, end] = objects[k];
        const std::string where = "object " + std::to_string(k) + " (byte " + std::to_string(begin) + ")";
        Json j;
        try {
            j = analysis::parse_json_text(std::string(text.substr(begin, end - begin)), file);
        } catch (const InputError& e) {
            throw InputError(file, where + (e.where().empty() ? "" : ", " + e.where()), e.message());
        }
        // The first object is the GlobalMetadata when it holds nothing else.
        if (k == 0 && std::all_of(j.items().begin(), j.items().end(),
                                  [](const auto& kv) { return kv.key() == "version" || kv.key() == "attr"; }))
            continue;
        RawNode n;
        n.where = "node " + std::to_string(nodes.size()) + " (" + where + ")";
        for (const auto& [key, v] : j.items()) {
            const std::string p = n.where + ": /" + key;
            if (key == "id") n.id = json_u64(v, file, p);
            else if (key == "name") n.name = json_string(v, file, p);
            else if (key == "type") n.type = json_node_type(v, file, p);
            else if (key == "durationMicros" || key == "duration_micros") n.dur_us = json_u64(v, file, p);
            else if (key == "dataDeps" || key == "data_deps") n.data_deps = json_ids(v, file, p);
            else if (key == "ctrlDeps" || key == "ctrl_deps") n.ctrl_deps = json_ids(v, file, p);
            else if (key == "attr") {
                if (!v.is_array()) fail_at(file, p, "expected an array of attributes");
                for (std::size_t a = 0; a < v.size(); ++a) read_json_attribute(v[a], p + "/" + std::to_string(a), n, unknown, file);
            } else if (key == "inputs" || key == "outputs" || key == "startTimeMicros" || key == "start_time_micros") {
                continue;
            } else {
                ++unknown["key " + key];
            }
        }
        nodes.push_back(std::move(n));
    }
    return build(file, Format::chakra_json, nodes, std::move(unknown));
}

// ---- PyTorch execution trace (host) ----------------------------------------------------------

// Bytes of the tensors in one operand: a tensor is [tensor_id, storage_id, offset, numel,
// elem_bytes, device] with its shape alongside; a list of tensors sums. -1 when none.
std::int64_t tensor_bytes(const Json& value, const Json& shape) {
    if (value.is_array() && value.size() == 6 && value[5].is_string() && value[4].is_number_integer() &&
        shape.is_array() && std::all_of(shape.begin(), shape.end(), [](const Json& d) { return d.is_number_integer(); })) {
        std::int64_t elems = 1;
        for (const Json& d : shape) {
            const auto v = d.get<std::int64_t>();
            if (v < 0 || (v > 0 && elems > std::numeric_limits<std::int64_t>::max() / v)) return -1;
            elems *= v;
        }
        const auto eb = value[4].get<std::int64_t>();
        if (eb < 0 || (eb > 0 && elems > std::numeric_limits<std::int64_t>::max() / eb)) return -1;
        return elems * eb;
    }
    if (value.is_array() && shape.is_array() && value.size() == shape.size() && !value.empty()) {
        std::int64_t sum = 0;
        bool any = false;
        for (std::size_t i = 0; i < value.size(); ++i) {
            const std::int64_t b = tensor_bytes(value[i], shape[i]);
            if (b < 0) continue;
            if (sum > std::numeric_limits<std::int64_t>::max() - b) return -1;
            sum += b;
            any = true;
        }
        return any ? sum : -1;
    }
    return -1;
}

struct EtOperands {
    const Json* values = nullptr;
    const Json* shapes = nullptr;
    const Json* types = nullptr;
};

// Schema 1.0.x keeps operands in "inputs"/"input_shapes"/"input_types"; 1.1.x in
// "inputs": {"values", "shapes", "types"}.
EtOperands operands(const Json& node, const char* which) {
    EtOperands o;
    const auto it = node.find(which);
    if (it == node.end()) return o;
    if (it->is_object()) {
        if (auto v = it->find("values"); v != it->end() && v->is_array()) o.values = &*v;
        if (auto s = it->find("shapes"); s != it->end() && s->is_array()) o.shapes = &*s;
        if (auto t = it->find("types"); t != it->end() && t->is_array()) o.types = &*t;
        return o;
    }
    const std::string w(which);
    const std::string stem = w == "inputs" ? "input" : "output";
    if (it->is_array()) o.values = &*it;
    if (auto s = node.find(stem + "_shapes"); s != node.end() && s->is_array()) o.shapes = &*s;
    if (auto t = node.find(stem + "_types"); t != node.end() && t->is_array()) o.types = &*t;
    return o;
}

std::int64_t operand_bytes(const EtOperands& o, std::size_t i) {
    if (o.values == nullptr || o.shapes == nullptr || i >= o.values->size() || i >= o.shapes->size()) return -1;
    return tensor_bytes((*o.values)[i], (*o.shapes)[i]);
}

// "Tensor(float)" or "GenericList[Tensor(float)]" -> "float".
std::string operand_dtype(const EtOperands& o, std::size_t i) {
    if (o.types == nullptr || i >= o.types->size() || !(*o.types)[i].is_string()) return "";
    const auto& s = (*o.types)[i].get_ref<const std::string&>();
    const auto open = s.find("Tensor("), close = s.find(')', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos) return "";
    return s.substr(open + 7, close - open - 7);
}

// A 1.1.x node's attribute value, or nullptr.
const Json* et_attr(const Json& node, std::string_view name) {
    const auto it = node.find("attrs");
    if (it == node.end() || !it->is_array()) return nullptr;
    for (const Json& a : *it)
        if (a.is_object() && a.contains("name") && a["name"].is_string() &&
            a["name"].get_ref<const std::string&>() == name && a.contains("value"))
            return &a["value"];
    return nullptr;
}

RankTrace parse_pytorch_et(const Json& doc, const std::string& file) {
    const Json& nodes = doc["nodes"];
    if (!nodes.is_array()) fail_at(file, "/nodes", "expected an array of nodes");
    RankTrace t;
    t.file = file;
    t.format = Format::pytorch_et;
    const std::size_t count = nodes.size();
    std::vector<std::uint64_t> ids(count), parents(count, 0);
    std::vector<bool> has_parent(count, false);
    std::unordered_map<std::uint64_t, std::size_t> index;
    for (std::size_t i = 0; i < count; ++i) {
        const Json& j = nodes[i];
        const std::string ptr = "/nodes/" + std::to_string(i);
        if (!j.is_object()) fail_at(file, ptr, "expected a node object");
        if (!j.contains("id")) fail_at(file, ptr, "node without \"id\"");
        if (!j.contains("name")) fail_at(file, ptr, "node without \"name\"");
        ids[i] = json_u64(j["id"], file, ptr + "/id");
        const char* pkey = j.contains("parent") ? "parent" : j.contains("ctrl_deps") ? "ctrl_deps" : nullptr;
        if (pkey != nullptr) {
            parents[i] = json_u64(j[pkey], file, ptr + "/" + pkey);
            has_parent[i] = true;
        }
        if (auto [it, fresh] = index.emplace(ids[i], i); !fresh)
            fail_at(file, ptr, "node id " + std::to_string(ids[i]) + " appears twice (first as node " + std::to_string(it->second) + ")");
    }
    // Step of each node: the N of the nearest ProfilerStep#N above it (parents are walked with
    // memoisation; a parent cycle is cut where it closes).
    std::vector<int> step(count, -1);
    std::vector<std::uint8_t> state(count, 0);  // 0 new, 1 on the walk, 2 done
    for (std::size_t i = 0; i < count; ++i) {
        std::vector<std::size_t> path;
        std::size_t k = i;
        int found = -1;
        while (true) {
            if (state[k] == 2) { found = step[k]; break; }
            if (state[k] == 1) break;
            state[k] = 1;
            path.push_back(k);
            const std::string& nm = json_string(nodes[k]["name"], file, "/nodes/" + std::to_string(k) + "/name");
            if (nm.starts_with("ProfilerStep#")) {
                try {
                    found = std::stoi(nm.substr(13));
                } catch (const std::exception&) {
                    found = -1;
                }
                break;
            }
            if (!has_parent[k]) break;
            const auto it = index.find(parents[k]);
            if (it == index.end()) break;
            k = it->second;
        }
        for (std::size_t p : path) {
            step[p] = found;
            state[p] = 2;
        }
    }
    // The record_param_comms record under each collective.
    std::unordered_map<std::uint64_t, std::size_t> comms_record;
    for (std::size_t i = 0; i < count; ++i)
        if (has_parent[i] && nodes[i]["name"] == "record_param_comms") comms_record.emplace(parents[i], i);

    t.events.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const Json& j = nodes[i];
        Event e;
        e.name = nodes[i]["name"].get<std::string>();
        e.source_id = static_cast<std::int64_t>(std::min<std::uint64_t>(ids[i], std::numeric_limits<std::int64_t>::max()));
        e.start_ns = -1;
        e.dur_ns = -1;
        e.step = step[i];
        if (j.contains("tid")) e.stream = json_i64(j["tid"], file, "/nodes/" + std::to_string(i) + "/tid");
        else if (const Json* tid = et_attr(j, "tid")) e.stream = json_i64(*tid, file, "/nodes/" + std::to_string(i) + "/attrs");
        const CollectiveOp op = collective_from_name(e.name);
        if (e.name.starts_with("ProfilerStep#")) {
            e.kind = EventKind::annotation;
            Step s;
            s.number = step[i];
            s.start_ns = -1;
            s.dur_ns = -1;
            t.steps.push_back(s);
        } else if (e.name.starts_with("## ") || e.name.starts_with("[pytorch|profiler") ||
                   e.name == "record_param_comms" || e.name.starts_with("nccl:")) {
            // Root markers, user ranges, and the records that describe their enclosing collective.
            e.kind = EventKind::annotation;
        } else if (e.name.starts_with("c10d::") && op != CollectiveOp::unknown) {
            e.kind = EventKind::comm;
            e.cls = KernelClass::communication;
            e.has_coll = true;
            e.coll.op = op;
            const auto rec = comms_record.find(ids[i]);
            const Json& src = rec != comms_record.end() ? nodes[rec->second] : j;
            const EtOperands in = operands(src, "inputs"), out = operands(src, "outputs");
            // record_param_comms(input, seq, ...) -> output; a c10d op's own first operand.
            const std::size_t input_at = rec == comms_record.end() && op == CollectiveOp::all_to_all ? 1 : 0;
            e.coll.in_bytes = operand_bytes(in, input_at);
            e.coll.dtype = operand_dtype(in, input_at);
            if (rec != comms_record.end()) {
                e.coll.out_bytes = operand_bytes(out, 0);
                if (in.values != nullptr && in.values->size() > 1 && (*in.values)[1].is_number_integer())
                    e.coll.seq = (*in.values)[1].get<std::int64_t>();
                if (const Json* v = et_attr(src, "pg_name"); v != nullptr && v->is_string()) e.coll.process_group = v->get<std::string>();
                if (const Json* v = et_attr(src, "pg_size"); v != nullptr && v->is_number_integer())
                    e.coll.group_size = static_cast<int>(std::clamp<std::int64_t>(v->get<std::int64_t>(), -1, std::numeric_limits<int>::max()));
                if (const Json* v = et_attr(src, "dtype"); v != nullptr && v->is_string()) e.coll.dtype = v->get<std::string>();
            }
        } else {
            e.kind = EventKind::cpu_op;
        }
        t.events.push_back(std::move(e));
    }
    t.notes.push_back("PyTorch execution trace: host operators only, without durations (dur_ns = -1) or start "
                      "times; operators belong to the ProfilerStep#N they are nested in");
    if (t.steps.empty()) t.notes.push_back("no ProfilerStep annotations: the file is one window");
    return t;
}

// ---- detection -------------------------------------------------------------------------------

// JSON when the first non-space byte is '{' and the next is '"' or '}'. A protobuf stream
// starting with byte 0x7b (a 123-byte GlobalMetadata) continues with a field tag instead.
bool looks_like_json(std::string_view b) {
    std::size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (i < b.size() && space(b[i])) ++i;
    if (i == b.size() || b[i] != '{') return false;
    ++i;
    while (i < b.size() && space(b[i])) ++i;
    return i < b.size() && (b[i] == '"' || b[i] == '}');
}

}  // namespace

RankTrace parse_chakra(std::string_view bytes, const std::string& file) {
    std::string inflated;
    if (is_gzip(bytes)) {
        inflated = gunzip(bytes, file);
        bytes = inflated;
    }
    if (bytes.size() > max_chakra_bytes) throw InputError(file, "", "larger than 1 GiB; refusing to read");
    if (bytes.empty()) throw InputError(file, "", "empty file");
    // A JSON array ("[{" or "[]"; no protobuf stream starts so: 0x5b would be a 91-byte
    // GlobalMetadata whose first field tag cannot be '{' or ']').
    if (const auto first = bytes.find_first_not_of(" \t\r\n"); first != std::string_view::npos && bytes[first] == '[') {
        const auto next = bytes.find_first_not_of(" \t\r\n", first + 1);
        if (next != std::string_view::npos && (bytes[next] == '{' || bytes[next] == ']'))
            throw InputError(file, "byte " + std::to_string(first),
                             "a JSON array is no Chakra form: expected JSON objects or a protobuf stream");
    }
    if (!looks_like_json(bytes)) return parse_protobuf(bytes, file);
    // One JSON document (workload_graph or PyTorch execution trace), or several objects.
    const auto objects = split_objects(bytes, file);
    if (objects.size() == 1) {
        const Json doc = analysis::parse_json_text(std::string(bytes), file);
        if (doc.contains("workload_graph")) return parse_workload_graph(doc, file);
        if (doc.contains("nodes") && doc.contains("schema")) return parse_pytorch_et(doc, file);
    }
    return parse_message_json(bytes, file);
}

RankTrace read_chakra(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open the file");
    std::string bytes;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        bytes.append(buf, static_cast<std::size_t>(in.gcount()));
        if (bytes.size() > max_chakra_bytes) throw InputError(path, "", "larger than 1 GiB; refusing to read");
    }
    if (in.bad()) throw InputError(path, "", "read error");
    return parse_chakra(bytes, path);
}

Trace read_chakra_ranks(const std::vector<std::string>& paths) {
    Trace t;
    t.ranks.reserve(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        RankTrace r = read_chakra(paths[i]);
        r.rank = static_cast<int>(i);
        r.world_size = static_cast<int>(paths.size());
        t.ranks.push_back(std::move(r));
    }
    return t;
}

}  // namespace rentsim::trace
