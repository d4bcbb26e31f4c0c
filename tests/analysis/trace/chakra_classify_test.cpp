// The name rules of kernel_class and collective_from_name, one check per rule, on kernel
// names as recorded in the shipped traces and in common PyTorch, cuBLAS and cuDNN builds.
#include <doctest/doctest.h>

#include "analysis/trace/classify.hpp"

using namespace rentsim::trace;

TEST_CASE("NCCL and RCCL kernels, old and new names, are communication") {
    CHECK(kernel_class("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") ==
          KernelClass::communication);
    CHECK(kernel_class("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)") ==
          KernelClass::communication);
    CHECK(kernel_class("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") == KernelClass::communication);
    CHECK(kernel_class("rcclGenericKernel") == KernelClass::communication);
}

TEST_CASE("copies and memsets are copy, also inside elementwise templates") {
    CHECK(kernel_class("Memcpy DtoD (Device -> Device)") == KernelClass::copy);
    CHECK(kernel_class("Memset (Device)") == KernelClass::copy);
    CHECK(kernel_class("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
                          "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1}>") ==
          KernelClass::copy);
    // The JSON form of the ResNet trace spells it "voId ... Namespace": case does not matter.
    CHECK(kernel_class("voId at::native::(anonymous Namespace)::CatArrayBatchedCopy_aligned16_contig<float, "
                          "unsigned int, 1, 128, 1>") == KernelClass::copy);
}

TEST_CASE("fused attention kernels are attention") {
    CHECK(kernel_class("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>") == KernelClass::attention);
    CHECK(kernel_class("fmha_cutlassF_f16_aligned_64x64_rf_sm80") == KernelClass::attention);
    CHECK(kernel_class("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel") == KernelClass::attention);
    CHECK(kernel_class("efficient_attention_forward") == KernelClass::attention);
}

TEST_CASE("fused optimizer updates are optimizer, and lambdas in names are not LAMB") {
    CHECK(kernel_class("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                          "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor>") ==
          KernelClass::optimizer);
    CHECK(kernel_class("fbgemm_gpu::split_embedding_backward_codegen_rowwise_adagrad_kernel") == KernelClass::optimizer);
    CHECK(kernel_class("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                          "at::detail::Array<char*, 3> >(int, at::native::{lambda(float)#1}, at::detail::Array<char*, 3>)") ==
          KernelClass::elementwise);
}

TEST_CASE("cuDNN batch norm is elementwise, not convolution") {
    CHECK(kernel_class("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("voId cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>") == KernelClass::elementwise);
    CHECK(kernel_class("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false>") ==
          KernelClass::elementwise);
}

TEST_CASE("cuDNN convolution kernels are convolution, its offset helpers unknown") {
    CHECK(kernel_class("cudnn_infer_maxwell_scudnn_128x128_relu_medium_nn_v1") == KernelClass::convolution);
    CHECK(kernel_class("voId cudnn::winograd_nonfused::winogradForwardData4x4<float, float>") ==
          KernelClass::convolution);
    CHECK(kernel_class("voId wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>") == KernelClass::convolution);
    CHECK(kernel_class("void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>") ==
          KernelClass::convolution);
    CHECK(kernel_class("sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc") == KernelClass::convolution);
    // cuDNN's offset helpers name no convolution: they stay unknown and are listed as such.
    CHECK(kernel_class("cask_cudnn_infer::computeOffsetsKernel(cask_cudnn_infer::ComputeOffsetsParams)") ==
          KernelClass::unknown);
}

TEST_CASE("cuBLAS and CUTLASS matrix multiplications are gemm") {
    CHECK(kernel_class("maxwell_sgemm_64x64_nt") == KernelClass::gemm);
    CHECK(kernel_class("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn") == KernelClass::gemm);
    CHECK(kernel_class("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>") ==
          KernelClass::gemm);
    CHECK(kernel_class("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false>") ==
          KernelClass::gemm);
    // cuBLAS's split-K epilogue is a memory-bound reduction: "reduce" makes it elementwise.
    CHECK(kernel_class("voId splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>") ==
          KernelClass::elementwise);
}

TEST_CASE("other aten kernels are elementwise, and a name no rule knows is unknown") {
    CHECK(kernel_class("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps>>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("void fbgemm_gpu::split_embedding_codegen_forward_unweighted_kernel<float, float>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("void at::native::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>") ==
          KernelClass::elementwise);
    CHECK(kernel_class("triton_poi_fused_0") == KernelClass::elementwise);  // Inductor's pointwise kernels
    CHECK(kernel_class("my_custom_kernel") == KernelClass::unknown);
    CHECK(kernel_class("") == KernelClass::unknown);
}

TEST_CASE("collective names give their operation") {
    CHECK(collective_from_name("c10d::allreduce_(0)") == CollectiveOp::all_reduce);
    CHECK(collective_from_name("ncclKernel_AllReduce_RING_LL_Sum_float") == CollectiveOp::all_reduce);
    CHECK(collective_from_name("nccl:all_reduce") == CollectiveOp::all_reduce);
    CHECK(collective_from_name("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL") == CollectiveOp::reduce_scatter);
    CHECK(collective_from_name("c10d::_allgather_base_") == CollectiveOp::all_gather);
    CHECK(collective_from_name("c10d::alltoall_base_") == CollectiveOp::all_to_all);
    CHECK(collective_from_name("c10d::broadcast_") == CollectiveOp::broadcast);
    CHECK(collective_from_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") == CollectiveOp::send_recv);
    CHECK(collective_from_name("c10d::send") == CollectiveOp::send);
    CHECK(collective_from_name("c10d::recv_") == CollectiveOp::recv);
    CHECK(collective_from_name("c10d::barrier") == CollectiveOp::barrier);
    CHECK(collective_from_name("ncclKernel_Reduce_RING_LL_Sum_float") == CollectiveOp::reduce);
    CHECK(collective_from_name("aten::add") == CollectiveOp::unknown);
}
