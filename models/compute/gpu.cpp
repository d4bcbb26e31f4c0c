#include "models/compute/gpu.hpp"

#include <vector>

namespace rentsim::compute {

namespace {

// Columns: name, description, SMs, dense peaks in TFLOP/s (fp32, tf32, fp16, bf16, fp8),
// memory GiB, HBM GB/s, NVLink generation, NVLink links, NVLink GB/s per GPU per direction,
// NVSwitch board, PCIe generation, board power W, source.
// NVLink: NVLink2 6 links x 25 GB/s per direction = 150 GB/s (measured.csv SPC-027; DGX-1 white
// paper WP-08437, 2017); NVLink3 12 links, 300 GB/s (SPC-028); NVLink4 18 links, 450 GB/s
// (SPC-029, which also covers H200). V100 SXM3 sits on NVSwitch (DGX-2). PCIe: V100 Gen3, A100
// Gen4 (NVIDIA/nccl issue #1505, DGX A100 topology dump: "16.0 GT/s PCIe" x16), H100/H200 Gen5.
// NVLink bridges of PCIe cards are not modelled.
// V100 has no TF32 or BF16 units: TF32 requests run as FP32 on it (PyTorch's behaviour), and
// BF16 is not offered. A100 has no FP8 units.
constexpr GpuSpec gpus[] = {
    {"v100-sxm2-16gb", "NVIDIA V100 SXM2 16 GB (Volta, NVLink2), e.g. AWS p3, DGX-1", 80,
     {15.7, 15.7, 125.0, 0.0, 0.0}, 16.0, 900.0, 2, 6, 150.0, false, 3, 300.0,
     "NVIDIA Tesla V100 GPU datasheet (2018), read 2026-11-29; NVLink2: 6 links x 25 GB/s per direction"},
    {"v100-sxm2-32gb", "NVIDIA V100 SXM2 32 GB (Volta, NVLink2), e.g. AWS p3dn, DGX-1", 80,
     {15.7, 15.7, 125.0, 0.0, 0.0}, 32.0, 900.0, 2, 6, 150.0, false, 3, 300.0,
     "NVIDIA Tesla V100 GPU datasheet (2018), read 2026-11-29"},
    {"v100-sxm3-32gb", "NVIDIA V100 SXM3 32 GB (DGX-2, NVSwitch)", 80,
     {15.7, 15.7, 125.0, 0.0, 0.0}, 32.0, 900.0, 2, 6, 150.0, true, 3, 350.0,
     "NVIDIA DGX-2 datasheet (2018): 16x V100 32 GB, 2 PFLOPS tensor = 125 TFLOP/s per GPU; read 2026-11-29. "
     "The 450 W DGX-2H part clocks higher than this row assumes"},
    {"a100-sxm4-40gb", "NVIDIA A100 SXM4 40 GB (Ampere, NVLink3/NVSwitch), e.g. AWS p4d, DGX A100", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0}, 40.0, 1555.0, 3, 12, 300.0, true, 4, 400.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29; NVLink3 600 GB/s bidirectional"},
    {"a100-sxm4-80gb", "NVIDIA A100 SXM4 80 GB (Ampere, NVLink3/NVSwitch), e.g. AWS p4de, DGX A100 80GB", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0}, 80.0, 2039.0, 3, 12, 300.0, true, 4, 400.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29"},
    {"a100-pcie-40gb", "NVIDIA A100 PCIe 40 GB (Ampere, PCIe Gen4, no NVSwitch)", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0}, 40.0, 1555.0, 0, 0, 0.0, false, 4, 250.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29"},
    {"a100-pcie-80gb", "NVIDIA A100 PCIe 80 GB (Ampere, PCIe Gen4, no NVSwitch)", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0}, 80.0, 1935.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29"},
    {"h100-sxm5-80gb", "NVIDIA H100 SXM5 80 GB (Hopper, NVLink4/NVSwitch), e.g. AWS p5, DGX H100", 132,
     {67.0, 494.7, 989.4, 989.4, 1978.9}, 80.0, 3350.0, 4, 18, 450.0, true, 5, 700.0,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), read 2026-11-29; NVLink4 900 GB/s bidirectional"},
    {"h100-pcie-80gb", "NVIDIA H100 PCIe 80 GB (Hopper, PCIe Gen5, no NVSwitch)", 114,
     {51.0, 378.0, 756.0, 756.0, 1513.0}, 80.0, 2000.0, 0, 0, 0.0, false, 5, 350.0,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), read 2026-11-29"},
    {"h200-sxm-141gb", "NVIDIA H200 SXM 141 GB (Hopper, HBM3e, NVLink4/NVSwitch), e.g. AWS p5en", 132,
     {67.0, 494.7, 989.4, 989.4, 1978.9}, 140.4, 4800.0, 4, 18, 450.0, true, 5, 700.0,
     "NVIDIA H200 Tensor Core GPU datasheet (2024), read 2026-11-29; memory as CUDA reports it "
     "(143771 MiB by nvidia-smi on an H200 SXM, 2026-10)"},
};

}  // namespace

const Registry<Precision>& precision_registry() {
    static const Registry<Precision> registry{
        "precision",
        {{"fp32", Precision::fp32, "IEEE single precision throughout"},
         {"tf32", Precision::tf32, "fp32 storage, matmuls on TF32 tensor cores (10-bit mantissa)"},
         {"fp16", Precision::fp16, "mixed precision: fp16 compute and activations, fp32 master weights"},
         {"bf16", Precision::bf16, "mixed precision: bf16 compute and activations, fp32 master weights"},
         {"fp8", Precision::fp8, "fp8 matmuls, bf16 activations, fp32 master weights"}}};
    return registry;
}

std::string_view to_string(Precision p) {
    const std::string_view name = precision_registry().name_of(p);
    return name.empty() ? "?" : name;
}

std::optional<Precision> parse_precision(std::string_view s) {
    if (const Precision* p = precision_registry().find(s)) return *p;
    return std::nullopt;
}

double activation_bytes(Precision p) {
    switch (p) {
        case Precision::fp32:
        case Precision::tf32: return 4.0;
        case Precision::fp16:
        case Precision::bf16:
        case Precision::fp8: return 2.0;
    }
    return 4.0;
}

bool is_mixed(Precision p) { return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8; }

std::span<const GpuSpec> gpu_catalog() { return gpus; }

const Registry<const GpuSpec*>& gpu_registry() {
    static const Registry<const GpuSpec*> registry = [] {
        std::vector<RegistryEntry<const GpuSpec*>> entries;
        for (const GpuSpec& g : gpus) entries.push_back({g.name, &g, g.description});
        return Registry<const GpuSpec*>("GPU", std::move(entries));
    }();
    return registry;
}

const GpuSpec& find_gpu(std::string_view name) { return *gpu_registry().get(name); }

units::FlopsPerSecond peak(const GpuSpec& g, Precision p) {
    return units::tflops_per_s(g.peak_tflops[static_cast<std::size_t>(p)]);
}
units::BytesPerSecond hbm_bandwidth(const GpuSpec& g) { return units::gbytes_per_s(g.hbm_gbps); }
units::Bytes memory(const GpuSpec& g) { return units::gib(g.memory_gib); }

units::BytesPerSecond pcie_x16(int generation) {
    const double gt_per_s = generation <= 3 ? 8.0 : generation == 4 ? 16.0 : 32.0;
    return units::BytesPerSecond{16.0 * gt_per_s * 1e9 * (128.0 / 130.0) / 8.0};
}

units::BytesPerSecond pcie_bandwidth(const GpuSpec& g) { return pcie_x16(g.pcie_generation); }

const GpuSpec* lookup_gpu(std::string_view name) {
    const GpuSpec* const* g = gpu_registry().find(name);
    return g ? *g : nullptr;
}

}  // namespace rentsim::compute
