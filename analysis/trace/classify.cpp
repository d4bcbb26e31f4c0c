#include "analysis/trace/classify.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace rentsim::trace {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

template <std::size_t N>
bool has_any(const std::string& s, const std::array<std::string_view, N>& words) {
    return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return s.find(w) != std::string::npos; });
}

constexpr std::array<std::string_view, 2> communication_words{"nccl", "rccl"};
constexpr std::array<std::string_view, 7> copy_words{"memcpy",     "memset",     "catarraybatchedcopy", "copy_kernel",
                                                     "copykernel", "nchwtonhwc", "nhwctonchw"};
constexpr std::array<std::string_view, 5> attention_words{"flash", "fmha", "attention", "attn", "sdpa"};
constexpr std::array<std::string_view, 11> convolution_words{"convolve", "convolution", "conv2d", "conv_",         "winograd", "fprop",
                                                             "dgrad",    "wgrad",       "scudnn", "implicit_gemm", "hcudnn"};
constexpr std::array<std::string_view, 5> optimizer_words{"multi_tensor_apply", "adam", "adagrad", "sgd", "lamb_"};
constexpr std::array<std::string_view, 6> gemm_words{"gemm", "gemv", "cutlass", "cublas", "matmul", "nvjet"};
constexpr std::array<std::string_view, 29> elementwise_words{
    "elementwise", "vectorized", "unrolled",    "reduce",      "norm",              "bn_fw",      "bn_bw",  "softmax",
    "embedding",   "index",      "indices",     "scatter",     "gather",            "permute",    "quantize", "pointwise",
    "relu",        "gelu",       "silu",        "dropout",     "fill",              "pool",       "triton", "cub::device",
    "scalepackedtensor", "sort", "fp8",         "gammabeta",   "moments"};

// The name without a leading "void " (CUDA's demangled return type).
std::string_view strip_void(std::string_view name) {
    constexpr std::string_view v = "void ";
    return name.substr(0, v.size()) == v ? name.substr(v.size()) : name;
}

}  // namespace

KernelClass kernel_class(std::string_view name) {
    std::string s = lower(name);
    // fbgemm_gpu's kernels are embedding and sparse operators, not GEMMs: its name must not
    // make them one.
    for (auto at = s.find("fbgemm"); at != std::string::npos; at = s.find("fbgemm", at)) s.replace(at, 6, "fb");
    if (has_any(s, communication_words)) return KernelClass::communication;
    if (has_any(s, copy_words)) return KernelClass::copy;
    if (has_any(s, attention_words)) return KernelClass::attention;
    if (has_any(s, convolution_words)) return KernelClass::convolution;
    if (has_any(s, optimizer_words)) return KernelClass::optimizer;
    if (has_any(s, gemm_words) || strip_void(name).substr(0, 7) == "Kernel2") return KernelClass::gemm;
    if (has_any(s, elementwise_words)) return KernelClass::elementwise;
    return KernelClass::unknown;
}

namespace {
constexpr std::string_view nccl_old = "ncclKernel_", nccl_new = "ncclDevKernel_";
}

bool is_nccl_kernel(std::string_view name) {
    const std::string_view n = strip_void(name);
    return n.substr(0, nccl_old.size()) == nccl_old || n.substr(0, nccl_new.size()) == nccl_new;
}

CollectiveOp collective_from_kernel(std::string_view name) {
    std::string_view n = strip_void(name);
    if (n.substr(0, nccl_old.size()) == nccl_old) n.remove_prefix(nccl_old.size());
    else if (n.substr(0, nccl_new.size()) == nccl_new) n.remove_prefix(nccl_new.size());
    else return CollectiveOp::unknown;
    const std::string_view word = n.substr(0, n.find_first_of("_(<"));
    static constexpr std::array<std::pair<std::string_view, CollectiveOp>, 9> ops{{
        {"AllReduce", CollectiveOp::all_reduce},
        {"AllGather", CollectiveOp::all_gather},
        {"ReduceScatter", CollectiveOp::reduce_scatter},
        {"SendRecv", CollectiveOp::send_recv},
        {"Broadcast", CollectiveOp::broadcast},
        {"Reduce", CollectiveOp::reduce},
        {"Send", CollectiveOp::send},
        {"Recv", CollectiveOp::recv},
        {"AllToAll", CollectiveOp::all_to_all},
    }};
    for (const auto& [w, op] : ops)
        if (word == w) return op;
    return CollectiveOp::unknown;
}

CollectiveOp collective_from_record(std::string_view name) {
    std::string s;
    for (char c : name)
        if (c != '_') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Longest words first: "reducescatter" holds "reduce", "allreduce" holds "reduce".
    static constexpr std::array<std::pair<std::string_view, CollectiveOp>, 10> ops{{
        {"reducescatter", CollectiveOp::reduce_scatter},
        {"allreduce", CollectiveOp::all_reduce},
        {"allgather", CollectiveOp::all_gather},
        {"alltoall", CollectiveOp::all_to_all},
        {"broadcast", CollectiveOp::broadcast},
        {"barrier", CollectiveOp::barrier},
        {"sendrecv", CollectiveOp::send_recv},
        {"send", CollectiveOp::send},
        {"recv", CollectiveOp::recv},
        {"reduce", CollectiveOp::reduce},
    }};
    for (const auto& [w, op] : ops)
        if (s.find(w) != std::string::npos) return op;
    return CollectiveOp::unknown;
}

RuntimeCall runtime_call(std::string_view name) {
    // Drivers' names (cuLaunchKernel, cuMemcpyHtoDAsync_v2) read like the runtime's after "cu".
    std::string_view n = name;
    if (n.substr(0, 4) == "cuda") n.remove_prefix(4);
    else if (n.substr(0, 2) == "cu") n.remove_prefix(2);
    else return RuntimeCall::other;
    const auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
    const bool async = n.find("Async") != std::string_view::npos;
    if (starts("LaunchKernel") || starts("LaunchCooperativeKernel") || starts("GraphLaunch")) return RuntimeCall::launch;
    if (starts("Memcpy")) return async ? RuntimeCall::copy_async : RuntimeCall::copy_sync;
    if (starts("Memset") || starts("MemsetD")) return async ? RuntimeCall::memset_async : RuntimeCall::memset_sync;
    if (starts("EventRecord")) return RuntimeCall::event_record;
    if (starts("StreamWaitEvent")) return RuntimeCall::stream_wait_event;
    if (starts("DeviceSynchronize") || starts("CtxSynchronize")) return RuntimeCall::device_sync;
    if (starts("StreamSynchronize")) return RuntimeCall::stream_sync;
    if (starts("EventSynchronize")) return RuntimeCall::event_sync;
    return RuntimeCall::other;
}

int dtype_bytes(std::string_view dtype) {
    if (dtype.substr(0, 5) == "c10::") dtype.remove_prefix(5);
    // PyTorch's ScalarType names (c10/core/ScalarType.h), as the profiler prints them.
    static constexpr std::array<std::pair<std::string_view, int>, 22> sizes{{
        {"Byte", 1},          {"Char", 1},          {"Bool", 1},           {"Short", 2},
        {"Int", 4},           {"Long", 8},          {"Half", 2},           {"BFloat16", 2},
        {"Float", 4},         {"Double", 8},        {"ComplexHalf", 4},    {"ComplexFloat", 8},
        {"ComplexDouble", 16}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},    {"Float8_e4m3fnuz", 1},
        {"Float8_e5m2fnuz", 1}, {"UInt16", 2},        {"UInt32", 4},         {"UInt64", 8},
        {"QInt8", 1},         {"QUInt8", 1},
    }};
    for (const auto& [n, b] : sizes)
        if (dtype == n) return b;
    return -1;
}

std::string_view kind_name(EventKind k) {
    switch (k) {
    case EventKind::cpu_op: return "cpu_op";
    case EventKind::runtime: return "runtime";
    case EventKind::kernel: return "kernel";
    case EventKind::memcpy: return "memcpy";
    case EventKind::memset: return "memset";
    case EventKind::annotation: return "annotation";
    case EventKind::python: return "python";
    case EventKind::comm: return "comm";
    case EventKind::other: return "other";
    }
    return "other";
}

std::string_view class_name(KernelClass c) {
    switch (c) {
    case KernelClass::none: return "none";
    case KernelClass::gemm: return "gemm";
    case KernelClass::convolution: return "convolution";
    case KernelClass::attention: return "attention";
    case KernelClass::elementwise: return "elementwise";
    case KernelClass::optimizer: return "optimizer";
    case KernelClass::copy: return "copy";
    case KernelClass::communication: return "communication";
    case KernelClass::unknown: return "unknown";
    }
    return "unknown";
}

std::string_view op_name(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::unknown: return "unknown";
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
    case CollectiveOp::send: return "send";
    case CollectiveOp::recv: return "recv";
    case CollectiveOp::send_recv: return "send_recv";
    case CollectiveOp::barrier: return "barrier";
    }
    return "unknown";
}

CollectiveOp collective_from_name(std::string_view name) {
    std::string s;
    for (char c : lower(name))
        if (c != '_' && c != ':') s += c;
    static constexpr std::array<std::pair<std::string_view, CollectiveOp>, 10> rules{{
        {"allreduce", CollectiveOp::all_reduce},
        {"reducescatter", CollectiveOp::reduce_scatter},
        {"allgather", CollectiveOp::all_gather},
        {"alltoall", CollectiveOp::all_to_all},
        {"broadcast", CollectiveOp::broadcast},
        {"sendrecv", CollectiveOp::send_recv},
        {"send", CollectiveOp::send},
        {"recv", CollectiveOp::recv},
        {"barrier", CollectiveOp::barrier},
        {"reduce", CollectiveOp::reduce},
    }};
    for (const auto& [word, op] : rules)
        if (s.find(word) != std::string::npos) return op;
    return CollectiveOp::unknown;
}


}  // namespace rentsim::trace
