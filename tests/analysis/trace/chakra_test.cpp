// The Chakra importer on the shipped traces (facts counted independently from the files and
// stated in scenarios/traces/chakra/SOURCES.md), on the forms it detects, and on broken files
// with their exact messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/chakra.hpp"
#include "analysis/trace/et_def.pb.h"

using namespace rentsim::trace;
using rentsim::analysis::InputError;
namespace fs = std::filesystem;

namespace {

const std::string chakra_dir = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/traces/chakra/";
const std::string broken_dir = std::string(RENTSIM_SOURCE_DIR) + "/tests/analysis/trace/broken-chakra/";
const std::string resnet_et = chakra_dir + "resnet_ddp_rank0/chakra.0.et.gz";
const std::string resnet_json = chakra_dir + "resnet_ddp_rank0/chakra.0.json.gz";

std::string gunzip_file(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    REQUIRE(f != nullptr);
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    gzclose(f);
    return out;
}

// The shipped .et re-written by protobuf's own JSON printer, one object per message: the
// concatenated MessageToJson form, made independently of the importer.
std::string et_as_message_json(bool proto_names) {
    const std::string bytes = gunzip_file(resnet_et);
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    google::protobuf::util::JsonPrintOptions opt;
    opt.add_whitespace = true;
    opt.preserve_proto_field_names = proto_names;
    std::string out;
    bool first = true;
    while (static_cast<std::size_t>(in.CurrentPosition()) < bytes.size()) {
        std::uint32_t len = 0;
        REQUIRE(in.ReadVarint32(&len));
        const auto limit = in.PushLimit(static_cast<int>(len));
        std::string json;
        if (first) {
            ChakraProtoMsg::GlobalMetadata m;
            REQUIRE(m.ParseFromCodedStream(&in));
            REQUIRE(google::protobuf::util::MessageToJsonString(m, &json, opt).ok());
        } else {
            ChakraProtoMsg::Node m;
            REQUIRE(m.ParseFromCodedStream(&in));
            REQUIRE(google::protobuf::util::MessageToJsonString(m, &json, opt).ok());
        }
        first = false;
        in.PopLimit(limit);
        out += json;
    }
    return out;
}

std::vector<const Event*> collectives(const RankTrace& t, EventKind kind) {
    std::vector<const Event*> out;
    for (const Event& e : t.events)
        if (e.has_coll && e.kind == kind) out.push_back(&e);
    return out;
}

// "where: message" of the InputError reading `file` raises, checking that it names the file.
std::string error_of(const std::string& file) {
    try {
        read_chakra(file);
    } catch (const InputError& e) {
        CHECK(e.file() == file);
        return e.where().empty() ? e.message() : e.where() + ": " + e.message();
    }
    return "no error";
}

// Events and dependencies the two readings must share (names aside).
void check_same_graph(const RankTrace& a, const RankTrace& b, bool same_names) {
    REQUIRE(a.events.size() == b.events.size());
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        const Event& x = a.events[i];
        const Event& y = b.events[i];
        INFO("node " << i << " " << x.name);
        CHECK(x.source_id == y.source_id);
        if (same_names) CHECK(x.name == y.name);
        CHECK(x.kind == y.kind);
        CHECK(x.cls == y.cls);
        CHECK(x.dur_ns == y.dur_ns);
        CHECK(x.start_ns == -1);
        CHECK(x.has_coll == y.has_coll);
        CHECK(x.coll.op == y.coll.op);
    }
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> deps_of(const RankTrace& t, DepKind kind) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const Dep& d : t.deps)
        if (d.kind == kind) out.emplace_back(d.from, d.to);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("the ResNet-50 DDP .et has 3,664 nodes: 2,448 on the host, 1,216 on the GPU, 21 communication") {
    const RankTrace t = read_chakra(resnet_et);
    CHECK(t.format == Format::chakra_protobuf);
    CHECK(t.file == resnet_et);
    REQUIRE(t.events.size() == 3664);
    std::map<EventKind, int> kinds;
    int host = 0, comm = 0;
    for (const Event& e : t.events) {
        ++kinds[e.kind];
        host += e.device == -1;
        comm += e.cls == KernelClass::communication;
        CHECK(e.start_ns == -1);
        CHECK(e.dur_ns >= 0);
    }
    CHECK(host == 2448);
    CHECK(comm == 21);
    CHECK(kinds[EventKind::cpu_op] == 2434);   // host COMP nodes
    CHECK(kinds[EventKind::comm] == 14);       // host COMM_COLL nodes: c10d::broadcast_, allreduce_
    CHECK(kinds[EventKind::memcpy] == 320);    // "Memcpy DtoD (Device -> Device)"
    CHECK(kinds[EventKind::kernel] == 889 + 7);
    CHECK(t.unknown_kinds.empty());
    // The first node, as protoc --decode shows it.
    const Event& first = t.events[0];
    CHECK(first.name == "aten::flatten_dense_tensors(0)");
    CHECK(first.source_id == 216);
    CHECK(first.dur_ns == 318'000);
    CHECK(first.stream == 1);
    CHECK(first.kind == EventKind::cpu_op);
    CHECK(first.cls == KernelClass::none);
    // The sum of all durations: 381,795 us.
    const std::int64_t total = std::accumulate(t.events.begin(), t.events.end(), std::int64_t{0},
                                               [](std::int64_t s, const Event& e) { return s + e.dur_ns; });
    CHECK(total == 381'795'000);
}

TEST_CASE("the ResNet-50 DDP .et carries 2 broadcasts and 5 all-reduces of 102,228,128 bytes, the ResNet-50 gradients") {
    const RankTrace t = read_chakra(resnet_et);
    const auto kernels = collectives(t, EventKind::kernel);
    REQUIRE(kernels.size() == 7);
    std::vector<std::int64_t> broadcast, all_reduce;
    for (const Event* e : kernels) {
        CHECK(e->device == 0);
        CHECK(e->stream == 14);
        CHECK(e->cls == KernelClass::communication);
        if (e->coll.op == CollectiveOp::broadcast) broadcast.push_back(e->coll.in_bytes);
        if (e->coll.op == CollectiveOp::all_reduce) all_reduce.push_back(e->coll.in_bytes);
    }
    CHECK(broadcast == std::vector<std::int64_t>{212'480, 424});
    REQUIRE(all_reduce.size() == 5);
    CHECK(std::accumulate(all_reduce.begin(), all_reduce.end(), std::int64_t{0}) == 102'228'128);
    CHECK(102'228'128 / 4 == 25'557'032);  // fp32 values: the parameter count of ResNet-50
    // All-reduce kernels took 5.3 to 9.1 ms.
    std::vector<std::int64_t> durations;
    for (const Event* e : kernels)
        if (e->coll.op == CollectiveOp::all_reduce) durations.push_back(e->dur_ns);
    CHECK(durations == std::vector<std::int64_t>{5'572'000, 9'093'000, 8'512'000, 8'178'000, 5'327'000});
    // The host-side c10d nodes name their collective but carry no size.
    const auto host = collectives(t, EventKind::comm);
    REQUIRE(host.size() == 14);
    CHECK(std::count_if(host.begin(), host.end(), [](const Event* e) { return e->coll.op == CollectiveOp::all_reduce; }) == 10);
    for (const Event* e : host) CHECK(e->coll.in_bytes == -1);
    CHECK(std::find(t.notes.begin(), t.notes.end(),
                    "14 communication nodes carry no comm_size: their message size is unknown (-1)") != t.notes.end());
}

TEST_CASE("the ResNet-50 DDP .et's dependencies: data dependencies all resolve, dangling control ones are dropped") {
    const RankTrace t = read_chakra(resnet_et);
    // Counted from the file: each node has one control dependency, 1,277 of them on ids that
    // are not nodes of the file and 383 on the node itself.
    const auto control = deps_of(t, DepKind::control);
    CHECK(control.size() == 3664 - 1277 - 383);
    CHECK(deps_of(t, DepKind::data).size() == 181'878);  // every data dependency of the file
    CHECK(std::find(t.notes.begin(), t.notes.end(),
                    "1277 control dependencies name nodes that are not in the file (operator parents of the trace "
                    "it was converted from); they were dropped") != t.notes.end());
    CHECK(std::find(t.notes.begin(), t.notes.end(), "383 dependencies of a node on itself were dropped") != t.notes.end());
    // The second all-reduce kernel (id 3512) waits for its c10d::allreduce_ (id 3511) and 30
    // gradient producers.
    const auto at = std::find_if(t.events.begin(), t.events.end(), [](const Event& e) { return e.source_id == 3512; });
    REQUIRE(at != t.events.end());
    const auto k = static_cast<std::uint32_t>(at - t.events.begin());
    std::vector<std::int64_t> from;
    for (const Dep& d : t.deps)
        if (d.to == k && d.kind == DepKind::data) from.push_back(t.events[d.from].source_id);
    REQUIRE(from.size() == 31);
    CHECK(from.front() == 3511);
    CHECK(t.events[std::find_if(t.events.begin(), t.events.end(), [](const Event& e) { return e.source_id == 3511; }) -
                   t.events.begin()]
              .name == "c10d::allreduce_(0)");
    for (const Dep& d : t.deps) CHECK(d.from != d.to);
}

TEST_CASE("the two forms of the ResNet-50 DDP trace give the same nodes, durations and collectives") {
    const RankTrace et = read_chakra(resnet_et);
    const RankTrace wg = read_chakra(resnet_json);
    CHECK(wg.format == Format::chakra_workload_graph);
    check_same_graph(et, wg, false);
    CHECK(deps_of(et, DepKind::data) == deps_of(wg, DepKind::data));
    CHECK(deps_of(wg, DepKind::control).empty());
    // The JSON form had "id" and "namespace" rewritten to "Id" and "Namespace" inside names
    // upstream; otherwise names agree.
    for (std::size_t i = 0; i < et.events.size(); ++i) {
        std::string name = et.events[i].name;
        for (std::size_t p = 0; (p = name.find("id", p)) != std::string::npos; p += 2) name[p] = 'I';
        for (std::size_t p = 0; (p = name.find("namespace", p)) != std::string::npos; p += 9) name[p] = 'N';
        CHECK(name == wg.events[i].name);
    }
    // The workload_graph form carries no comm_size: same collectives, sizes unknown.
    for (const Event& e : wg.events)
        if (e.has_coll) CHECK(e.coll.in_bytes == -1);
    CHECK(std::find(wg.notes.begin(), wg.notes.end(),
                    "21 communication nodes carry no comm_size: their message size is unknown (-1)") != wg.notes.end());
}

TEST_CASE("the concatenated MessageToJson form reads as the .et it was printed from") {
    const RankTrace et = read_chakra(resnet_et);
    for (bool proto_names : {false, true}) {
        INFO("proto field names: " << proto_names);
        const RankTrace js = parse_chakra(et_as_message_json(proto_names), "printed.json");
        CHECK(js.format == Format::chakra_json);
        CHECK(js.unknown_kinds.empty());
        check_same_graph(et, js, true);
        for (std::size_t i = 0; i < et.events.size(); ++i) {
            CHECK(js.events[i].coll.in_bytes == et.events[i].coll.in_bytes);
            CHECK(js.events[i].stream == et.events[i].stream);
        }
        CHECK(deps_of(js, DepKind::data) == deps_of(et, DepKind::data));
        CHECK(deps_of(js, DepKind::control) == deps_of(et, DepKind::control));
    }
}

TEST_CASE("a workload_graph with send, receive and unknown node types and keys") {
    const std::string text = R"({"workload_graph": [
        {"Id": 1, "Name": "load", "NodeType": 2, "runtime": 5, "data_deps": [], "is_cpu_op": false,
         "num_ops": 2000, "tensor_size": 512},
        {"Id": 2, "Name": "send", "NodeType": 5, "runtime": 7, "data_deps": [1], "is_cpu_op": false,
         "comm_size": 1024, "comm_dst": 3, "comm_tag": 9, "pg_name": "dp"},
        {"Id": 3, "Name": "recv", "NodeType": 6, "runtime": 8, "data_deps": [], "is_cpu_op": false,
         "comm_size": 1024, "comm_src": 1, "comm_tag": 9, "colour": "red"},
        {"Id": 4, "Name": "ag", "NodeType": "COMM_COLL_NODE", "runtime": 2, "data_deps": [2, 3], "is_cpu_op": false,
         "comm_type": 2, "comm_size": 64},
        {"Id": 5, "Name": "gather", "NodeType": 7, "runtime": 2, "data_deps": [], "is_cpu_op": false, "comm_type": 3}
    ]})";
    const RankTrace t = parse_chakra(text, "p2p.json");
    REQUIRE(t.events.size() == 5);
    CHECK(t.events[0].kind == EventKind::other);
    CHECK(t.events[0].flops == 2000);
    CHECK(t.events[0].bytes_accessed == 512);
    CHECK(t.events[1].flops == -1);
    CHECK(t.events[1].coll.op == CollectiveOp::send);
    CHECK(t.events[1].coll.peer == 3);
    CHECK(t.events[1].coll.tag == 9);
    CHECK(t.events[1].coll.in_bytes == 1024);
    CHECK(t.events[1].coll.process_group == "dp");
    CHECK(t.events[1].dur_ns == 7000);
    CHECK(t.events[2].coll.op == CollectiveOp::recv);
    CHECK(t.events[2].coll.peer == 1);
    CHECK(t.events[3].coll.op == CollectiveOp::all_gather);
    CHECK(t.events[3].kind == EventKind::kernel);
    CHECK(t.events[4].coll.op == CollectiveOp::unknown);
    CHECK(t.unknown_kinds == std::map<std::string, std::int64_t>{
                                 {"MEM_LOAD_NODE", 1}, {"comm_type GATHER", 1}, {"key colour", 1}});
    CHECK(t.deps.size() == 3);
}

TEST_CASE("the PyTorch execution trace of ResNet-50 DDP: 15 all-reduces and 6 broadcasts over ProfilerStep#4 to #6") {
    const RankTrace t = read_chakra(chakra_dir + "resnet_ddp_2gpu_pytorch_et/resnet_2gpu_et.json.gz");
    CHECK(t.format == Format::pytorch_et);
    CHECK(t.events.size() == 14392);
    REQUIRE(t.steps.size() == 3);
    CHECK(t.steps[0].number == 4);
    CHECK(t.steps[2].number == 6);
    std::vector<std::int64_t> reduced;  // bytes of each all-reduce
    int all_reduce = 0, broadcast = 0;
    for (const Event& e : t.events) {
        CHECK(e.dur_ns == -1);
        if (!e.has_coll) continue;
        CHECK(e.kind == EventKind::comm);
        CHECK(e.coll.process_group == "0");
        CHECK(e.coll.group_size == 2);
        if (e.coll.op == CollectiveOp::broadcast) ++broadcast;
        if (e.coll.op == CollectiveOp::all_reduce) {
            ++all_reduce;
            CHECK(e.coll.dtype == "Float");
            CHECK(e.coll.out_bytes == e.coll.in_bytes);
            // DDP reduces from its backward thread, outside the ProfilerStep range.
            CHECK(e.step == -1);
            reduced.push_back(e.coll.in_bytes);
        }
    }
    CHECK(all_reduce == 15);
    CHECK(broadcast == 6);
    // Five buckets a step, 25,557,032 fp32 gradients in all.
    REQUIRE(reduced.size() == 15);
    for (std::size_t s = 0; s < 3; ++s)
        CHECK(std::accumulate(reduced.begin() + static_cast<std::ptrdiff_t>(5 * s),
                              reduced.begin() + static_cast<std::ptrdiff_t>(5 * s + 5), std::int64_t{0}) == 102'228'128);
    CHECK(std::vector<std::int64_t>(reduced.begin(), reduced.begin() + 5) ==
          std::vector<std::int64_t>{8'196'000, 31'502'336, 26'255'360, 26'550'272, 9'724'160});
}

TEST_CASE("the eight DLRM host traces read as ranks 0 to 7, each with 5 all-to-alls and 3 all-reduces") {
    std::vector<std::string> paths;
    for (int r = 0; r < 8; ++r) paths.push_back(chakra_dir + "dlrm_8xV100_pytorch_et/dlrm_eg_" + std::to_string(r) + ".json.gz");
    const Trace t = read_chakra_ranks(paths);
    REQUIRE(t.ranks.size() == 8);
    for (int r = 0; r < 8; ++r) {
        const RankTrace& rank = t.ranks[static_cast<std::size_t>(r)];
        INFO("rank " << r);
        CHECK(rank.rank == r);
        CHECK(rank.world_size == 8);
        CHECK(rank.events.size() == 1675);
        CHECK(rank.steps.empty());
        std::vector<std::pair<CollectiveOp, std::int64_t>> seen;
        std::vector<std::int64_t> seqs;
        for (const Event& e : rank.events)
            if (e.has_coll) {
                seen.emplace_back(e.coll.op, e.coll.in_bytes);
                seqs.push_back(e.coll.seq);
            }
        // record_param_comms operands: the 5 all-to-alls' inputs and the DDP buckets of
        // 394,241, 112 and 226,960 fp32 gradients.
        using C = CollectiveOp;
        CHECK(seen == std::vector<std::pair<C, std::int64_t>>{{C::all_to_all, 24'576}, {C::all_to_all, 192},
                                                              {C::all_to_all, 1'536}, {C::all_to_all, 13'568},
                                                              {C::all_reduce, 394'241 * 4}, {C::all_to_all, 24'576},
                                                              {C::all_reduce, 112 * 4}, {C::all_reduce, 226'960 * 4}});
        CHECK(seqs == std::vector<std::int64_t>{147, 148, 149, 150, 151, 152, 153, 154});
    }
    CHECK(std::find(t.ranks[0].notes.begin(), t.ranks[0].notes.end(),
                    "no ProfilerStep annotations: the file is one window") != t.ranks[0].notes.end());
}

TEST_CASE("broken Chakra files are refused with the file, the place and what is wrong") {
    const std::map<std::string, std::string> expected{
        {"array.json", "byte 0: a JSON array is no Chakra form: expected JSON objects or a protobuf stream"},
        {"bad-length-prefix.et", "byte 63: bad or truncated length prefix of node 1"},
        {"empty.et", "empty file"},
        {"missing-data-dep.et", "node 1 (byte 63): data dependency on node id 7, which is not in the trace"},
        {"name-not-utf8.et", "node 0 (byte 19): does not parse as a Chakra Node"},
        {"not-a-node.et", "node 1 (byte 63): does not parse as a Chakra Node"},
        {"truncated-node.et", "node 1 (byte 63): truncated: the length prefix says 105 bytes, 11 remain"},
        {"duplicate-id.json", "/workload_graph/1: node id 5 appears twice (first as node 0)"},
        {"missing-data-dep.json", "/workload_graph/1: data dependency on node id 9, which is not in the trace"},
        {"negative-runtime.json", "/workload_graph/0/runtime: expected a non-negative integer"},
        {"node-without-id.json", "/workload_graph/0: node without \"Id\""},
        {"malformed.json",
         "line 2, column 11: malformed JSON: syntax error while parsing object key - unexpected ','; expected string literal"},
        {"truncated.json.gz", "byte 75: gzip stream is truncated"},
        {"truncated-objects.json", "byte 114: JSON object 2 is truncated"},
        {"pytorch-et-node-without-name.json", "/nodes/1: node without \"name\""},
    };
    std::vector<std::string> present;
    for (const auto& f : fs::directory_iterator(broken_dir)) present.push_back(f.path().filename().string());
    std::sort(present.begin(), present.end());
    std::vector<std::string> listed;
    for (const auto& [name, message] : expected) listed.push_back(name);
    CHECK(present == listed);  // every broken file has its message here
    for (const auto& entry : expected) {
        INFO(entry.first);
        CHECK(error_of(broken_dir + entry.first) == entry.second);
    }
    CHECK(error_of(broken_dir + "no-such-file.et") == "cannot open the file");
}

TEST_CASE("the fuzz seeds are valid traces of each form") {
    const std::string seeds = std::string(RENTSIM_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_chakra/";
    const std::map<std::string, Format> forms{
        {"message-json.json", Format::chakra_json},       {"pytorch-et-1.0.1.json", Format::pytorch_et},
        {"pytorch-et-1.1.0.json", Format::pytorch_et},    {"two-nodes.et", Format::chakra_protobuf},
        {"workload-graph.json", Format::chakra_workload_graph},
        {"workload-graph.json.gz", Format::chakra_workload_graph},
    };
    for (const auto& entry : forms) {
        INFO(entry.first);
        const RankTrace t = read_chakra(seeds + entry.first);
        CHECK(t.format == entry.second);
        CHECK(!t.events.empty());
    }
    // Hand-written: a 2x(8 x fp32) all-reduce in ProfilerStep#3, sequence number 7.
    const RankTrace et = read_chakra(seeds + "pytorch-et-1.0.1.json");
    REQUIRE(et.events.size() == 4);
    const Event& ar = et.events[2];
    CHECK(ar.has_coll);
    CHECK(ar.coll.op == CollectiveOp::all_reduce);
    CHECK(ar.coll.in_bytes == 32);
    CHECK(ar.coll.out_bytes == 32);
    CHECK(ar.coll.seq == 7);
    CHECK(ar.coll.dtype == "float");
    CHECK(ar.step == 3);
    CHECK(et.events[3].kind == EventKind::annotation);
    const RankTrace et2 = read_chakra(seeds + "pytorch-et-1.1.0.json");
    REQUIRE(et2.events.size() == 3);
    CHECK(et2.events[1].coll.op == CollectiveOp::broadcast);
    CHECK(et2.events[1].coll.in_bytes == 48);
    CHECK(et2.events[1].coll.dtype == "Long");
    CHECK(et2.events[1].coll.group_size == 2);
    CHECK(et2.events[1].coll.seq == 34);
    CHECK(et2.events[1].stream == 1);
    // The message-JSON seed: a control dependency on an absent node, an all-gather of 8 KiB.
    const RankTrace mj = read_chakra(seeds + "message-json.json");
    REQUIRE(mj.events.size() == 2);
    CHECK(mj.events[1].coll.op == CollectiveOp::all_gather);
    CHECK(mj.events[1].coll.in_bytes == 8192);
    CHECK(mj.events[1].coll.process_group == "dp");
    CHECK(mj.deps.size() == 1);
}

namespace {

std::string gzip_bytes(const std::string& text) {
    z_stream zs{};
    REQUIRE(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = static_cast<uInt>(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

}  // namespace

TEST_CASE("a gzip file of two members reads as their concatenation, and bytes after the stream are refused") {
    const std::string text = R"({"workload_graph": [{"Id": 1, "Name": "maxwell_sgemm_64x64_nt", "NodeType": 4,
        "runtime": 40, "data_deps": [], "is_cpu_op": false}]})";
    const std::string two = gzip_bytes(text.substr(0, 30)) + gzip_bytes(text.substr(30));
    const RankTrace t = parse_chakra(two, "two-members.json.gz");
    REQUIRE(t.events.size() == 1);
    CHECK(t.events[0].cls == KernelClass::gemm);
    CHECK(t.events[0].dur_ns == 40'000);
    const std::string one = gzip_bytes(text);
    try {
        parse_chakra(one + "tail", "tail.json.gz");
        FAIL("no error");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()) == "tail.json.gz: byte " + std::to_string(one.size()) + ": data after the end of the gzip stream");
    }
}
