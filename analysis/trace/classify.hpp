// Names to classes: what the importers conclude from a kernel's or a collective's name and a
// recorded dtype. Shared by the Kineto and Chakra importers; pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "analysis/trace/trace.hpp"

namespace rentsim::trace {

// A GPU kernel's class from its name, case-insensitively; the first rule that matches wins:
//   communication  nccl, rccl
//   copy           memcpy, memset, CatArrayBatchedCopy, copy_kernel, copykernel, nchwToNhwc,
//                  nhwcToNchw
//   attention      flash, fmha, attention, attn, sdpa
//   convolution    convolve, convolution, conv2d, conv_, winograd, fprop, dgrad, wgrad, scudnn,
//                  hcudnn, implicit_gemm (cuDNN's and xmma's convolution kernels; before gemm:
//                  their names often hold "sgemm")
//   optimizer      multi_tensor_apply, adam, adagrad, sgd, lamb_ (not "lambda"): fused
//                  optimizer updates, fbgemm's split_embedding_backward_..._adagrad too (they
//                  fuse the embedding gradient with the update and are memory-bound like one)
//   gemm           gemm, gemv, cutlass, cublas, matmul, nvjet, and the exact name Kernel2
//                  (cuBLASLt's kernel name in many traces); "fbgemm" in a name does not count
//                  (fbgemm_gpu's kernels are embedding and sparse operators)
//   elementwise    memory-bound work: elementwise, vectorized, unrolled, reduce, norm, bn_fw,
//                  bn_bw (cuDNN batch norm), softmax, embedding, index, indices, scatter,
//                  gather, permute, quantize, pointwise, relu, gelu, silu, dropout, fill, pool,
//                  triton, cub::Device (CUB's sorts and scans), scalePackedTensor, sort, fp8,
//                  GammaBeta and Moments (layer norm's backward and statistics)
//   unknown        anything else
KernelClass kernel_class(std::string_view name);

// Whether a kernel name is an NCCL kernel: ncclKernel_* (NCCL before 2.19) or ncclDevKernel_*
// (2.19 and later), optionally after "void ".
bool is_nccl_kernel(std::string_view name);

// The collective of an NCCL kernel name ("ncclKernel_AllReduce_RING_LL_Sum_float(...)",
// "ncclDevKernel_SendRecv(...)"): the word after the prefix. unknown when not recognised.
CollectiveOp collective_from_kernel(std::string_view name);

// The collective of a recorded collective name, as PyTorch writes it in "Collective name"
// ("allreduce", "_allgather_base", "reduce_scatter_tensor_coalesced", "all_to_all",
// "send", ...): underscores ignored, case-insensitive. unknown when not recognised.
CollectiveOp collective_from_record(std::string_view name);

// The collective a communication node or kernel performs, from its name (c10d::allreduce_,
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_ReduceScatter_..., nccl:all_to_all):
// case and '_', ':' are ignored; "allreduce", "reducescatter", "allgather", "alltoall",
// "broadcast", "sendrecv", "send", "recv", "barrier", "reduce" are tried in that order.
// `unknown` when none matches.
CollectiveOp collective_from_name(std::string_view name);
// What a CUDA runtime or driver call does to the GPU's queues, from its name (the replay's
// host-device edges): a launch (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
// cudaLaunchCooperativeKernel, cudaGraphLaunch), an async copy or memset (cudaMemcpyAsync,
// cudaMemcpy2DAsync, cudaMemsetAsync, ...), a blocking copy or memset (cudaMemcpy, cudaMemset:
// they wait for the stream), an event record, a stream's wait on an event, and the three
// host synchronisations. Anything else (cudaEventQuery, cudaStreamIsCapturing, ...) is other.
enum class RuntimeCall : std::uint8_t {
    other, launch, copy_async, memset_async, copy_sync, memset_sync, event_record, stream_wait_event,
    device_sync, stream_sync, event_sync,
};
RuntimeCall runtime_call(std::string_view name);

// Bytes of one element of a PyTorch dtype as the profiler writes it ("Float", "BFloat16",
// "c10::Half", "Long", "Float8_e4m3fn", ...); -1 when unknown.
int dtype_bytes(std::string_view dtype);

// Names for messages and reports ("kernel", "gemm", "all_reduce").
std::string_view kind_name(EventKind k);
std::string_view class_name(KernelClass c);
std::string_view op_name(CollectiveOp op);

}  // namespace rentsim::trace
