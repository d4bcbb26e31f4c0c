// Kernel names to classes and collectives, dtype sizes: the rules of classify.hpp on names
// taken from the shipped traces and from NCCL's two naming schemes.
#include <doctest/doctest.h>

#include "analysis/trace/classify.hpp"

using namespace rentsim::trace;

TEST_CASE("kernel names from recorded traces fall in the classes classify.hpp documents") {
    CHECK(kernel_class("void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int)") ==
          KernelClass::convolution);
    CHECK(kernel_class("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1") == KernelClass::convolution);
    CHECK(kernel_class("sm70_xmma_wgrad_implicit_gemm_indexed_f32f32_f32f32_nhwckrsc_nchw") == KernelClass::convolution);
    CHECK(kernel_class("volta_sgemm_128x64_nn") == KernelClass::gemm);
    CHECK(kernel_class("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false>()") == KernelClass::gemm);
    CHECK(kernel_class("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)") == KernelClass::gemm);
    CHECK(kernel_class("Kernel2") == KernelClass::gemm);
    CHECK(kernel_class("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >(Params)") ==
          KernelClass::attention);
    CHECK(kernel_class("fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)") ==
          KernelClass::attention);
    CHECK(kernel_class("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<3>, SGD>()") ==
          KernelClass::optimizer);
    CHECK(kernel_class("void fbgemm_gpu::split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float>()") ==
          KernelClass::optimizer);
    CHECK(kernel_class("void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<float>()") == KernelClass::copy);
    CHECK(kernel_class("void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>") ==
          KernelClass::copy);
    CHECK(kernel_class("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, {lambda(float)#1}>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>()") == KernelClass::elementwise);
    CHECK(kernel_class("void at::native::batch_norm_collect_statistics_kernel<float>()") == KernelClass::elementwise);
    CHECK(kernel_class("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)") ==
          KernelClass::elementwise);  // fbgemm is no GEMM
    CHECK(kernel_class("void fbgemm_gpu::some_new_kernel<int>(int)") == KernelClass::unknown);
    CHECK(kernel_class("cudnn_train_volta_scudnn_128x128_stridedB_splitK_medium_nn_v1") == KernelClass::convolution);
    CHECK(kernel_class("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(cudnn::ops::nchw2nhwc_params_t<float>)") ==
          KernelClass::copy);
    CHECK(kernel_class("void at_cuda_detail::cub::DeviceRadixSortSingleTileKernel<Policy>(long const*)") ==
          KernelClass::elementwise);
    CHECK(kernel_class("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)") ==
          KernelClass::communication);
}

TEST_CASE("both NCCL kernel naming schemes give the collective") {
    CHECK(is_nccl_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
    CHECK(is_nccl_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
    CHECK(is_nccl_kernel("void ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"));
    CHECK_FALSE(is_nccl_kernel("my_ncclKernel_copy"));
    CHECK(collective_from_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)") == CollectiveOp::all_reduce);
    CHECK(collective_from_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
          CollectiveOp::all_reduce);
    CHECK(collective_from_kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)") == CollectiveOp::reduce_scatter);
    CHECK(collective_from_kernel("ncclKernel_Reduce_RING_LL_Sum_float(x)") == CollectiveOp::reduce);
    CHECK(collective_from_kernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)") == CollectiveOp::broadcast);
    CHECK(collective_from_kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)") == CollectiveOp::send_recv);
    CHECK(collective_from_kernel("ncclDevKernel_Frobnicate(x)") == CollectiveOp::unknown);
    CHECK(collective_from_kernel("volta_sgemm_128x64_nn") == CollectiveOp::unknown);
}

TEST_CASE("recorded collective names map to ops, waits do not") {
    CHECK(collective_from_record("allreduce") == CollectiveOp::all_reduce);
    CHECK(collective_from_record("all_reduce_coalesced") == CollectiveOp::all_reduce);
    CHECK(collective_from_record("_allgather_base") == CollectiveOp::all_gather);
    CHECK(collective_from_record("reduce_scatter_tensor_coalesced") == CollectiveOp::reduce_scatter);
    CHECK(collective_from_record("_reduce_scatter_base") == CollectiveOp::reduce_scatter);
    CHECK(collective_from_record("all_to_all") == CollectiveOp::all_to_all);
    CHECK(collective_from_record("alltoall_base") == CollectiveOp::all_to_all);
    CHECK(collective_from_record("broadcast") == CollectiveOp::broadcast);
    CHECK(collective_from_record("send") == CollectiveOp::send);
    CHECK(collective_from_record("recv") == CollectiveOp::recv);
    CHECK(collective_from_record("reduce") == CollectiveOp::reduce);
    CHECK(collective_from_record("barrier") == CollectiveOp::barrier);
    CHECK(collective_from_record("wait") == CollectiveOp::unknown);
    CHECK(collective_from_record("") == CollectiveOp::unknown);
}

TEST_CASE("dtype sizes follow PyTorch's scalar types") {
    CHECK(dtype_bytes("Float") == 4);
    CHECK(dtype_bytes("BFloat16") == 2);
    CHECK(dtype_bytes("c10::Half") == 2);
    CHECK(dtype_bytes("Long") == 8);
    CHECK(dtype_bytes("Byte") == 1);
    CHECK(dtype_bytes("Float8_e4m3fn") == 1);
    CHECK(dtype_bytes("ComplexDouble") == 16);
    CHECK(dtype_bytes("float32") == -1);
}

TEST_CASE("runtime and driver calls are told apart by name") {
    CHECK(runtime_call("cudaLaunchKernel") == RuntimeCall::launch);
    CHECK(runtime_call("cudaLaunchKernelExC") == RuntimeCall::launch);
    CHECK(runtime_call("cuLaunchKernel") == RuntimeCall::launch);
    CHECK(runtime_call("cudaGraphLaunch") == RuntimeCall::launch);
    CHECK(runtime_call("cudaMemcpyAsync") == RuntimeCall::copy_async);
    CHECK(runtime_call("cuMemcpyHtoDAsync_v2") == RuntimeCall::copy_async);
    CHECK(runtime_call("cudaMemcpy") == RuntimeCall::copy_sync);
    CHECK(runtime_call("cudaMemsetAsync") == RuntimeCall::memset_async);
    CHECK(runtime_call("cudaMemset") == RuntimeCall::memset_sync);
    CHECK(runtime_call("cudaEventRecord") == RuntimeCall::event_record);
    CHECK(runtime_call("cudaEventRecordWithFlags") == RuntimeCall::event_record);
    CHECK(runtime_call("cudaStreamWaitEvent") == RuntimeCall::stream_wait_event);
    CHECK(runtime_call("cudaDeviceSynchronize") == RuntimeCall::device_sync);
    CHECK(runtime_call("cudaStreamSynchronize") == RuntimeCall::stream_sync);
    CHECK(runtime_call("cudaEventSynchronize") == RuntimeCall::event_sync);
    CHECK(runtime_call("cudaEventQuery") == RuntimeCall::other);
    CHECK(runtime_call("cudaStreamIsCapturing") == RuntimeCall::other);
    CHECK(runtime_call("aten::mm") == RuntimeCall::other);
}
