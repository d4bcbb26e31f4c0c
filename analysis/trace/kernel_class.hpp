// Kernel and collective names -> their class, by rules on the name alone (both importers use
// them, so that a kernel is classed the same whichever trace it came from).
#pragma once

#include <string_view>

#include "analysis/trace/trace.hpp"

namespace rentsim::trace {

// The class of a GPU kernel (or GPU copy) from its name, case-insensitively (some converters
// rewrite letter case inside names). The rules, first match wins:
//   communication  contains "nccl" or "rccl" (ncclKernel_*, ncclDevKernel_*, nccl:all_reduce)
//   copy           starts with "memcpy"/"memset", or names a copy kernel (copy_kernel,
//                  direct_copy, CatArrayBatchedCopy)
//   attention      flash, fmha, attention, sdpa, attn
//   optimizer      multi_tensor_apply, adam, adagrad, sgd, optimizer
//   gemm           splitkreduce (cuBLAS's split-K epilogue, before the reduce_kernel rule)
//   elementwise    normalisation and softmax first (cuDNN's bn_fw/bn_bw are not convolutions):
//                  bn_fw, bn_bw, batch_norm, batchnorm, layer_norm, layernorm, group_norm,
//                  rms_norm, rmsnorm, softmax; then PyTorch's generic elementwise_kernel and
//                  reduce_kernel templates (their template arguments can spell anything) and
//                  embedding lookups (fbgemm's names contain "gemm")
//   convolution    conv, winograd, wgrad, dgrad, fprop, scudnn, implicit_gemm, then any other
//                  cudnn kernel (offset and packing helpers of cuDNN's convolutions)
//   gemm           gemm, gemv, cublas, cutlass, matmul
//   elementwise    elementwise, reduce, index, gather, scatter, pool, relu, gelu, silu,
//                  dropout, fill, activation, at::native::
//   unknown        anything else
KernelClass classify_kernel(std::string_view name);

// The collective a communication node or kernel performs, from its name (c10d::allreduce_,
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_ReduceScatter_..., nccl:all_to_all):
// case and '_', ':' are ignored; "allreduce", "reducescatter", "allgather", "alltoall",
// "broadcast", "sendrecv", "send", "recv", "barrier", "reduce" are tried in that order.
// `unknown` when none matches.
CollectiveOp collective_from_name(std::string_view name);

}  // namespace rentsim::trace
