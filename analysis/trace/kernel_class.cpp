#include "analysis/trace/kernel_class.hpp"

#include <array>
#include <string>
#include <utility>

namespace rentsim::trace {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

template <std::size_t N>
bool contains_any(const std::string& s, const std::array<std::string_view, N>& words) {
    for (std::string_view w : words)
        if (s.find(w) != std::string::npos) return true;
    return false;
}

}  // namespace

KernelClass classify_kernel(std::string_view name) {
    const std::string s = lower(name);
    static constexpr std::array<std::string_view, 2> comm{"nccl", "rccl"};
    static constexpr std::array<std::string_view, 3> copy{"copy_kernel", "direct_copy", "catarraybatchedcopy"};
    static constexpr std::array<std::string_view, 5> attention{"flash", "fmha", "attention", "sdpa", "attn"};
    // Not "lamb": PyTorch kernel names spell their functors "{lambda(float)#1}".
    static constexpr std::array<std::string_view, 5> optimizer{"multi_tensor_apply", "adam", "adagrad", "sgd",
                                                               "optimizer"};
    static constexpr std::array<std::string_view, 3> generic{"elementwise_kernel", "reduce_kernel", "embedding"};
    static constexpr std::array<std::string_view, 10> norm{"bn_fw", "bn_bw", "batch_norm", "batchnorm", "layer_norm",
                                                           "layernorm", "group_norm", "rms_norm", "rmsnorm",
                                                           "softmax"};
    static constexpr std::array<std::string_view, 8> conv{"conv", "winograd", "wgrad", "dgrad", "fprop", "scudnn",
                                                          "implicit_gemm", "cudnn"};
    static constexpr std::array<std::string_view, 5> gemm{"gemm", "gemv", "cublas", "cutlass", "matmul"};
    static constexpr std::array<std::string_view, 12> elementwise{"elementwise", "reduce", "index", "gather",
                                                                  "scatter", "pool", "relu", "gelu", "silu",
                                                                  "dropout", "fill", "activation"};
    if (contains_any(s, comm)) return KernelClass::communication;
    if (s.starts_with("memcpy") || s.starts_with("memset") || contains_any(s, copy)) return KernelClass::copy;
    if (contains_any(s, attention)) return KernelClass::attention;
    if (contains_any(s, optimizer)) return KernelClass::optimizer;
    if (s.find("splitkreduce") != std::string::npos) return KernelClass::gemm;  // cuBLAS split-K epilogue
    if (contains_any(s, norm) || contains_any(s, generic)) return KernelClass::elementwise;
    if (contains_any(s, conv)) return KernelClass::convolution;
    if (contains_any(s, gemm)) return KernelClass::gemm;
    if (contains_any(s, elementwise) || s.find("at::native::") != std::string::npos) return KernelClass::elementwise;
    return KernelClass::unknown;
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
