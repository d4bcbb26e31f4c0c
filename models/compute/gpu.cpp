#include "models/compute/gpu.hpp"

#include <algorithm>
#include <vector>

namespace rentsim::compute {

namespace {

// Columns: name, description, SMs, dense peaks in TFLOP/s (fp32, tf32, fp16, bf16, fp8),
// memory GiB, HBM GB/s, NVLink generation, NVLink links, NVLink GB/s per GPU per direction,
// NVSwitch board, PCIe generation, board power W, source, family, PCIe peer-to-peer, non-NVLink
// GPU fabric GB/s per GPU per direction (gpu.hpp states the contract of the last three).
// NVLink: NVLink2 6 links x 25 GB/s per direction = 150 GB/s (measured.csv SPC-027; DGX-1 white
// paper WP-08437, 2017); NVLink3 12 links, 300 GB/s (SPC-028); NVLink4 18 links, 450 GB/s
// (SPC-029, which also covers H200). V100 SXM3 sits on NVSwitch (DGX-2). PCIe: V100 Gen3, A100
// Gen4 (NVIDIA/nccl issue #1505, DGX A100 topology dump: "16.0 GT/s PCIe" x16), H100/H200 Gen5.
// NVLink bridges of PCIe cards (A40, RTX A6000, RTX 3090) are not modelled; the H100 NVL and H200
// NVL bridges are stated in the NVLink fields, without NVSwitch.
// V100 has no TF32 or BF16 units: TF32 requests run as FP32 on it (PyTorch's behaviour), and
// BF16 is not offered. A100 has no FP8 units.
constexpr GpuSpec gpus[] = {
    {"v100-sxm2-16gb", "NVIDIA V100 SXM2 16 GB (Volta, NVLink2), e.g. AWS p3, DGX-1", 80,
     {15.7, 0.0, 125.0, 0.0, 0.0, 0.0}, 16.0, 900.0, 2, 6, 150.0, false, 3, 300.0,
     "NVIDIA Tesla V100 GPU datasheet (2018), read 2026-11-29; NVLink2: 6 links x 25 GB/s per direction",
     "volta", true, 0.0},
    {"v100-sxm2-32gb", "NVIDIA V100 SXM2 32 GB (Volta, NVLink2), e.g. AWS p3dn, DGX-1", 80,
     {15.7, 0.0, 125.0, 0.0, 0.0, 0.0}, 32.0, 900.0, 2, 6, 150.0, false, 3, 300.0,
     "NVIDIA Tesla V100 GPU datasheet (2018), read 2026-11-29",
     "volta", true, 0.0},
    {"v100-sxm3-32gb", "NVIDIA V100 SXM3 32 GB (DGX-2, NVSwitch)", 80,
     {15.7, 0.0, 125.0, 0.0, 0.0, 0.0}, 32.0, 900.0, 2, 6, 150.0, true, 3, 350.0,
     "NVIDIA DGX-2 datasheet (2018): 16x V100 32 GB, 2 PFLOPS tensor = 125 TFLOP/s per GPU; read 2026-11-29. "
     "The 450 W DGX-2H part clocks higher than this row assumes",
     "volta", true, 0.0},
    {"a100-sxm4-40gb", "NVIDIA A100 SXM4 40 GB (Ampere, NVLink3/NVSwitch), e.g. AWS p4d, DGX A100", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0, 0.0}, 40.0, 1555.0, 3, 12, 300.0, true, 4, 400.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29; NVLink3 600 GB/s bidirectional",
     "ampere", true, 0.0},
    {"a100-sxm4-80gb", "NVIDIA A100 SXM4 80 GB (Ampere, NVLink3/NVSwitch), e.g. AWS p4de, DGX A100 80GB", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0, 0.0}, 80.0, 2039.0, 3, 12, 300.0, true, 4, 400.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29",
     "ampere", true, 0.0},
    {"a100-pcie-40gb", "NVIDIA A100 PCIe 40 GB (Ampere, PCIe Gen4, no NVSwitch)", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0, 0.0}, 40.0, 1555.0, 0, 0, 0.0, false, 4, 250.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29",
     "ampere", true, 0.0},
    {"a100-pcie-80gb", "NVIDIA A100 PCIe 80 GB (Ampere, PCIe Gen4, no NVSwitch)", 108,
     {19.5, 156.0, 312.0, 312.0, 0.0, 0.0}, 80.0, 1935.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), read 2026-11-29",
     "ampere", true, 0.0},
    {"h100-sxm5-80gb", "NVIDIA H100 SXM5 80 GB (Hopper, NVLink4/NVSwitch), e.g. AWS p5, DGX H100", 132,
     {67.0, 494.7, 989.4, 989.4, 1978.9, 0.0}, 80.0, 3350.0, 4, 18, 450.0, true, 5, 700.0,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), read 2026-11-29; NVLink4 900 GB/s bidirectional",
     "hopper", true, 0.0},
    {"h100-pcie-80gb", "NVIDIA H100 PCIe 80 GB (Hopper, PCIe Gen5, no NVSwitch)", 114,
     {51.0, 378.0, 756.0, 756.0, 1513.0, 0.0}, 80.0, 2000.0, 0, 0, 0.0, false, 5, 350.0,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), read 2026-11-29",
     "hopper", true, 0.0},
    {"h200-sxm-141gb", "NVIDIA H200 SXM 141 GB (Hopper, HBM3e, NVLink4/NVSwitch), e.g. AWS p5en", 132,
     {67.0, 494.7, 989.4, 989.4, 1978.9, 0.0}, 140.4, 4800.0, 4, 18, 450.0, true, 5, 700.0,
     "NVIDIA H200 Tensor Core GPU datasheet (2024), read 2026-11-29; memory as CUDA reports it "
     "(143771 MiB by nvidia-smi on an H200 SXM, 2026-10)",
     "hopper", true, 0.0},
    // Blackwell (2024-2026). SM counts as CUDA reports them (cudaGetDeviceProperties), not the full
    // dies: B200 148 (pytorch/ao PR #4002), B300 148 and GB200/GB300 152 (kernel sources that size
    // persistent grids by the SM count). NVLink5: 18 links x 50 GB/s = 900 GB/s per direction
    // (measured.csv SPX-043..046). Host link: Gen5 on every row, because pcie_x16() covers Gen3-5,
    // HGX B300 hosts (Xeon 6) are Gen5, and the Grace parts reach their CPU over NVLink-C2C, which
    // is not modelled.
    {"b200", "NVIDIA B200 SXM 180 GB (Blackwell, HGX 8-GPU board, NVLink5/NVSwitch), e.g. DGX B200, AWS p6-b200",
     148, {75.0, 1125.0, 2250.0, 2250.0, 4500.0, 9000.0}, 180.0, 7700.0, 5, 18, 900.0, true, 5, 1000.0,
     "NVIDIA HGX B200 spec table, per GPU (FP32 75 TFLOPS; TF32 2.2, FP16/BF16 4.5, FP8 9, FP4 18 PFLOPS with "
     "sparsity, halved; 180 GB HBM3e at 7.7 TB/s; up to 1,000 W; PCIe Gen5), read 2026-12-01; measured.csv "
     "SPX-002..004, SPX-026, SPX-037, SPX-043 (stas00/ml-engineering). Kept 75 TFLOPS FP32 over SPX-001's 80 "
     "(80 is the GB200 figure); TF32 1125 = half of BF16 (18 PFLOPS sparse per 8 GPUs), the table's 2.2 is "
     "rounded; kept 7,700 GB/s over SPX-025's 8,000 (the driver reports a 7680-bit bus at 3996 MHz: 7.67 "
     "TB/s, pytorch/ao PR #4002). Memory: the 180 GB of the datasheet (nvidia-smi 183359 MiB, SPX-088)",
     "blackwell", true, 0.0},
    {"gb200", "NVIDIA GB200 NVL72, one Blackwell GPU of 72 (186 GB, NVLink5 rack domain, Grace host)", 152,
     {80.0, 1250.0, 2500.0, 2500.0, 5000.0, 10000.0}, 186.0, 8000.0, 5, 18, 900.0, true, 5, 1200.0,
     "NVIDIA GB200 NVL72 spec table, per GPU (FP32 80 TFLOPS; TF32 2.5, FP16/BF16 5, FP8 10, FP4 20 PFLOPS with "
     "sparsity, halved; 186 GB HBM3e at 8 TB/s; up to 1,200 W; PCIe Gen5), read 2026-12-01; measured.csv "
     "SPX-005..008, SPX-027/028, SPX-036, SPX-044 agree. Kept over Verda's GB300 post, whose GB200 column "
     "(2.25 PFLOPS BF16, 4.5 FP8, 7.7 TB/s) contradicts NVIDIA's rack totals (360 PFLOPS BF16 sparse / 72). "
     "NVLink5 900 GB/s per direction to the rack's NVLink Switch trays (72-GPU domain)",
     "blackwell", true, 0.0},
    {"b300", "NVIDIA B300 SXM 270 GB (Blackwell Ultra, HGX 8-GPU board, NVLink5/NVSwitch), e.g. DGX B300, AWS p6-b300",
     148, {75.0, 1125.0, 2250.0, 2250.0, 4500.0, 14000.0}, 270.0, 7700.0, 5, 18, 900.0, true, 5, 1100.0,
     "NVIDIA HGX B300 spec table as Verda's GB300 NVL72 post gives it per GPU (dense: FP32 75 TFLOPS, TF32 "
     "1.1, FP16/BF16 2.25, FP8 4.5, FP4 14 PFLOPS; glennklockwood.com's B300 page gives 13.1 dense FP4: kept "
     "Verda's, which states dense figures throughout; 270 GB HBM3e at 7.7 TB/s; 1.1 kW) and measured.csv SPX-010..012 "
     "(TF32 1125, BF16 2250, FP8 4500), read 2026-12-01. Kept 75 TFLOPS FP32 over SPX-009's 80; 270 GB over "
     "SPX-030's 288 GB (288 GB is the stacks' capacity; nvidia-smi shows 275040 MiB = 268.6 GiB on an AWS "
     "p6-b300); 7,700 GB/s over SPX-029's 8,000; 1,100 W over SPX-038's 1,000 W (nvidia-smi's power cap on "
     "p6-b300 and Verda). 148 SMs enabled of the die's 160 (NVIDIA's Blackwell Ultra blog counts the full die)",
     "blackwell", true, 0.0},
    {"gb300", "NVIDIA GB300 NVL72, one Blackwell Ultra GPU of 72 (279 GB, NVLink5 rack domain, Grace host)", 152,
     {80.0, 1250.0, 2500.0, 2500.0, 5000.0, 15000.0}, 279.0, 8000.0, 5, 18, 900.0, true, 5, 1400.0,
     "NVIDIA GB300 NVL72 spec table as Verda's GB300 NVL72 post gives it per GPU (dense: FP32 80 TFLOPS, "
     "TF32 1.25, FP16/BF16 2.5, FP8 5, FP4 15 PFLOPS, the rack's 1,080 dense FP4 PFLOPS / 72; 279 GB HBM3e at 8 TB/s; 1.4 kW; 20 TB and 576 TB/s per 72-GPU "
     "rack) and measured.csv SPX-013..016, SPX-035, SPX-046, read 2026-12-01. Memory 279 GB (rack 20.1 TB / "
     "72), not the 288 GB of the stacks; no measured.csv row gives it. Its PCIe Gen6 link to ConnectX-8 is "
     "not modelled",
     "blackwell", true, 0.0},
    // Hopper NVL: PCIe cards joined by NVLink bridges, stated in the NVLink fields, with no NVSwitch.
    {"h200-nvl-141gb", "NVIDIA H200 NVL 141 GB (Hopper, PCIe Gen5 card, 2- or 4-way NVLink4 bridge, no NVSwitch)",
     132, {60.0, 417.5, 835.5, 835.5, 1670.5, 0.0}, 140.4, 4800.0, 4, 18, 450.0, false, 5, 600.0,
     "NVIDIA H200 Tensor Core GPU datasheet, H200 NVL column (FP32 60 TFLOPS; TF32 835, FP16/BF16 1,671, "
     "FP8 3,341 TFLOPS with sparsity, halved; 141 GB HBM3e at 4.8 TB/s; up to 600 W; 2- or 4-way NVLink "
     "bridge 900 GB/s; PCIe Gen5), read 2026-12-01; measured.csv SPX-040, SPX-050/051. Kept 417.5/835.5 "
     "over SPX-053/054's 420/840 (Lightning's rounding; the H100 NVL column prints the same 835/1,671, "
     "SPX-056/057). Memory as CUDA reports it, 143771 MiB = 140.4 GiB, as on the h200-sxm row (SPX-089, "
     "whose Lambda path names an SXM machine). Bridge: NVLink4 18 links, 450 GB/s per direction",
     "hopper", true, 0.0},
    {"h100-nvl-94gb", "NVIDIA H100 NVL 94 GB (Hopper, PCIe Gen5 card, NVLink4 bridge pair, no NVSwitch)", 132,
     {60.0, 417.5, 835.5, 835.5, 1670.5, 0.0}, 94.0, 3900.0, 4, 12, 300.0, false, 5, 400.0,
     "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column per GPU (FP32 60 TFLOPS; TF32 835, FP16/BF16 "
     "1,671, FP8 3,341 TFLOPS with sparsity, halved; 94 GB HBM3 at 3.9 TB/s; 350-400 W configurable, the "
     "maximum kept; NVLink bridge 600 GB/s both directions; PCIe Gen5), read 2026-12-01; measured.csv "
     "SPX-041, SPX-048/049, SPX-055..057 agree. 132 SMs (cudaGetDeviceProperties on an H100 NVL). Bridge "
     "between a pair: NVLink4 12 links, 300 GB/s per direction",
     "hopper", true, 0.0},
    // PCIe cards without NVSwitch. Ada and GA10x datasheets print tensor rates with sparsity: halved.
    // GeForce cards run FP16/BF16 tensor math with FP32 accumulation (what training uses) at half the
    // FP16-accumulate rate; the rows keep the FP32-accumulate rate.
    {"l40s", "NVIDIA L40S 48 GB (Ada, PCIe Gen4, no NVLink), e.g. AWS g6e", 142,
     {91.6, 183.0, 362.05, 362.05, 733.0, 0.0}, 48.0, 864.0, 0, 0, 0.0, false, 4, 350.0,
     "NVIDIA L40S datasheet (FP32 91.6 TFLOPS; TF32 183, FP16/BF16 362.05, FP8 733 TFLOPS dense, twice "
     "that with sparsity; 48 GB GDDR6 at 864 GB/s; 350 W; PCIe Gen4 x16; no NVLink), read 2026-12-01; "
     "measured.csv SPX-021..024, SPX-034, SPX-042, SPX-111. Kept 864 GB/s (SPX-111) over SPX-033's rounded "
     "860, and the datasheet's 362.05 over SPX-023's 362; FP8 733 is as printed though it is not twice "
     "362.05. 142 SMs (18,176 CUDA cores / 128)",
     "ada", true, 0.0},
    {"l40", "NVIDIA L40 48 GB (Ada, PCIe Gen4, no NVLink)", 142,
     {90.5, 90.5, 181.05, 181.05, 362.0, 0.0}, 48.0, 864.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA L40 datasheet (FP32 90.5 TFLOPS; TF32 90.5, FP16/BF16 181.05, FP8 362 TFLOPS dense, twice that "
     "with sparsity; 48 GB GDDR6 at 864 GB/s; 300 W; PCIe Gen4 x16; no NVLink), read 2026-12-01; "
     "measured.csv SPX-061..063, SPX-077 agree. 142 SMs (18,176 CUDA cores / 128)",
     "ada", true, 0.0},
    {"l4", "NVIDIA L4 24 GB (Ada, 72 W, PCIe Gen4), e.g. AWS g6, GCP g2", 58,
     {30.3, 60.0, 121.0, 121.0, 242.5, 0.0}, 24.0, 300.0, 0, 0, 0.0, false, 4, 72.0,
     "NVIDIA L4 datasheet (FP32 30.3 TFLOPS; TF32 120, FP16/BF16 242, FP8 485 TFLOPS with sparsity, halved; "
     "24 GB GDDR6 at 300 GB/s; 72 W; PCIe Gen4 x16), read 2026-12-01; measured.csv SPX-058..060, "
     "SPX-094..096 agree. 58 SMs (7,424 CUDA cores / 128, Ada whitepaper: 7,424 x 2 x 2.04 GHz = 30.3)",
     "ada", true, 0.0},
    {"a40", "NVIDIA A40 48 GB (Ampere GA102, PCIe Gen4; NVLink bridge not modelled)", 84,
     {37.4, 74.8, 149.7, 149.7, 0.0, 0.0}, 48.0, 696.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA A40 datasheet (FP32 37.4 TFLOPS; TF32 149.6, FP16/BF16 299.4 TFLOPS with sparsity, halved; "
     "48 GB GDDR6 at 696 GB/s; 300 W; PCIe Gen4 x16), read 2026-12-01; measured.csv SPX-064..066, "
     "SPX-090/091, SPX-093 agree. No FP8 (Ampere). Its 2-card NVLink bridge (112.5 GB/s both directions, "
     "SPX-092) is not modelled: NVLink fields 0. 84 SMs (deviceQuery)",
     "ampere-ga10x", true, 0.0},
    {"a10", "NVIDIA A10 24 GB (Ampere GA102, PCIe Gen4)", 72,
     {31.2, 62.5, 125.0, 125.0, 0.0, 0.0}, 24.0, 600.0, 0, 0, 0.0, false, 4, 150.0,
     "NVIDIA A10 datasheet (FP32 31.2 TFLOPS; TF32 125, FP16/BF16 250 TFLOPS with sparsity, halved; 24 GB "
     "GDDR6 at 600 GB/s; 150 W; PCIe Gen4 x16), read 2026-12-01; measured.csv SPX-067..069 (Lightning files "
     "these A10 figures under the key 'a10g'), SPX-081, SPX-097. Memory: the datasheet's 24 GB (nvidia-smi "
     "23028 MiB with ECC on, SPX-085). No FP8. 72 SMs (9,216 CUDA cores / 128)",
     "ampere-ga10x", true, 0.0},
    {"a10g", "NVIDIA A10G 24 GB (Ampere GA102, AWS variant, PCIe Gen4), e.g. AWS g5", 80,
     {35.0, 35.0, 70.0, 70.0, 0.0, 0.0}, 24.0, 600.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA/AWS A10G datasheet (2022) as Full Stack Deep Learning's cloud-GPU table gives it (FP32 35, TF32 "
     "35, FP16 70 TFLOPS dense), read 2026-12-01; 24 GB GDDR6 at 600 GB/s (SPX-098/099, Baseten). Kept 35 "
     "TFLOPS FP32 over SPX-100's 31.2 (a secondary catalog that copies the A10). BF16 = FP16 (70): an "
     "estimate, GA10x runs both at one rate. 80 SMs: an estimate (a secondary catalog; 80 x 256 FLOP x "
     "1.71 GHz = 35 TFLOPS, where the A10's 72 give 31.2). 300 W as nvidia-smi caps it on AWS g5, not "
     "SPX-101's 150 W. No FP8, no NVLink",
     "ampere-ga10x", true, 0.0},
    {"t4", "NVIDIA T4 16 GB (Turing, 70 W, PCIe Gen3; no TF32/BF16/FP8), e.g. AWS g4dn", 40,
     {8.1, 0.0, 65.0, 0.0, 0.0, 0.0}, 16.0, 320.0, 0, 0, 0.0, false, 3, 70.0,
     "NVIDIA T4 datasheet (FP32 8.1 TFLOPS; mixed-precision FP16/FP32 65 TFLOPS; 16 GB GDDR6 at 320+ GB/s; "
     "70 W; PCIe Gen3 x16), read 2026-12-01; measured.csv SPX-070/071, SPX-102..104. Turing tensor cores "
     "have no TF32, BF16 or FP8: 0 there. Kept the datasheet's 70 W over the 75 W of 2018 launch news "
     "(SPX-104). 40 SMs (2,560 CUDA cores / 64)",
     "turing", true, 0.0},
    {"rtx3090", "NVIDIA GeForce RTX 3090 24 GB (Ampere GA102, PCIe Gen4, no P2P; NVLink bridge not modelled)", 82,
     {35.6, 35.6, 71.0, 71.0, 0.0, 0.0}, 24.0, 936.0, 0, 0, 0.0, false, 4, 350.0,
     "NVIDIA Ampere GA102 whitepaper, RTX 3090 column (FP32 35.6 TFLOPS; TF32 35.6, FP16/BF16 with FP32 "
     "accumulate 71 TFLOPS dense; 24 GB GDDR6X at 936 GB/s; 350 W; PCIe Gen4), read 2026-12-01; "
     "measured.csv SPX-074, SPX-080, SPX-084. 82 SMs (10,496 CUDA cores / 128). Its NVLink bridge (112.5 "
     "GB/s both directions) is not modelled: NVLink fields 0. No PCIe peer-to-peer: the GeForce driver "
     "offers no peer access over PCIe (NVIDIA/nccl issue #1127, efeslab/Nanoflow issue #22; patched "
     "open-gpu-kernel-modules forks exist only to re-enable it)",
     "ampere-ga10x", false, 0.0},
    {"rtx4090", "NVIDIA GeForce RTX 4090 24 GB (Ada, PCIe Gen4, no P2P, no NVLink)", 128,
     {82.6, 82.6, 165.2, 165.2, 330.3, 0.0}, 24.0, 1008.0, 0, 0, 0.0, false, 4, 450.0,
     "NVIDIA Ada GPU architecture whitepaper, RTX 4090 column (FP32 82.6 TFLOPS; TF32 82.6, FP16/BF16 with "
     "FP32 accumulate 165.2, FP8 with FP32 accumulate 330.3 TFLOPS dense; 24 GB GDDR6X at 1,008 GB/s; 450 "
     "W; PCIe Gen4), read 2026-12-01; measured.csv SPX-072, SPX-079, SPX-105, SPX-110 (Lightning's bf16 "
     "82.6 is the shader rate, not taken). 128 SMs (16,384 CUDA cores / 128). No PCIe peer-to-peer: "
     "NVIDIA's driver disables it on the RTX 4090 (NVIDIA/nccl issue #1127; tinygrad/open-gpu-kernel-modules "
     "patches the driver to re-enable it)",
     "ada", false, 0.0},
    {"rtx-a6000", "NVIDIA RTX A6000 48 GB (Ampere GA102, PCIe Gen4; NVLink bridge not modelled)", 84,
     {38.7, 77.4, 154.8, 154.8, 0.0, 0.0}, 48.0, 768.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA RTX A6000 datasheet and GA102 whitepaper (FP32 38.7 TFLOPS; FP16/BF16 tensor 309.7 TFLOPS with "
     "sparsity, halved; 48 GB GDDR6 at 768 GB/s; 300 W; PCIe Gen4), read 2026-12-01; measured.csv SPX-073, "
     "SPX-075/076, SPX-078, SPX-109. TF32 77.4 = half the FP16 rate as on every Ampere part: an estimate, "
     "the datasheet prints no TF32 figure. Its NVLink bridge (112.5 GB/s both directions) is not modelled: "
     "NVLink fields 0. 84 SMs (10,752 CUDA cores / 128)",
     "ampere-ga10x", true, 0.0},
    {"rtx6000-ada", "NVIDIA RTX 6000 Ada Generation 48 GB (Ada, PCIe Gen4, no NVLink)", 142,
     {91.1, 91.05, 182.1, 182.1, 364.2, 0.0}, 48.0, 960.0, 0, 0, 0.0, false, 4, 300.0,
     "NVIDIA RTX 6000 Ada Generation datasheet (FP32 91.1 TFLOPS; tensor 1,457 TFLOPS, FP8 with sparsity; "
     "48 GB GDDR6 with ECC at 960 GB/s; 300 W; PCIe Gen4), read 2026-12-01; measured.csv SPX-082, "
     "SPX-106..108. 142 SMs (18,176 CUDA cores / 128); FP32 91.1 = 18,176 x 2 x 2.505 GHz. The "
     "datasheet's tensor figure is the FP16-accumulate rate: the Ada whitepaper's RTX 4090 FP8 with FP16 "
     "accumulate, 660.6 TFLOPS dense at 128 SMs and 2.52 GHz, scaled to 142 SMs at 2.505 GHz and doubled "
     "for sparsity is 1,457. The rates with FP32 accumulate, which training uses, are the L40's (the same "
     "142-SM AD102 at 300 W; L40 datasheet FP16/BF16 181.05, FP8 362, TF32 90.5 TFLOPS dense, its FP32 90.5 = "
     "18,176 x 2 x 2.49 GHz) scaled to 2.505 GHz: FP16/BF16 182.1, FP8 364.2, TF32 91.05, an estimate "
     "(read 2026-12-07)",
     "ada", true, 0.0},
    // AMD: compute units in the SM column; Infinity Fabric (xGMI) in gpu_link_gbps, not NVLink.
    {"mi300x", "AMD Instinct MI300X OAM 192 GB (CDNA3, Infinity Fabric 448 GB/s per direction, PCIe Gen5)", 304,
     {163.4, 653.7, 1307.4, 1307.4, 2614.9, 0.0}, 192.0, 5300.0, 0, 0, 0.0, false, 5, 750.0,
     "AMD Instinct MI300X data sheet (304 CUs; FP32 vector 163.4, TF32 653.7, FP16/BF16 1,307.4, FP8 "
     "2,614.9 TFLOPS dense; 192 GB HBM3 at 5.3 TB/s; 750 W; PCIe Gen5 x16), read 2026-12-01; measured.csv "
     "SPX-017..020, SPX-031/032, SPX-039, SPX-047. Kept AMD's 1,307.4 and 2,614.9 over SPX-019/020's "
     "rounded 1,300 and 2,610. Infinity Fabric, not NVLink: 7 links x 64 GB/s = 448 GB/s per direction "
     "in gpu_link_gbps, NVLink fields 0 (SPX-047 files it as nvlink_gbps for want of a metric)",
     "cdna3", true, 448.0},
};

}  // namespace

const Registry<Precision>& precision_registry() {
    static const Registry<Precision> registry{
        "precision",
        {{"fp32", Precision::fp32, "IEEE single precision throughout"},
         {"tf32", Precision::tf32, "fp32 storage, matmuls on TF32 tensor cores (10-bit mantissa)"},
         {"fp16", Precision::fp16, "mixed precision: fp16 compute and activations, fp32 master weights"},
         {"bf16", Precision::bf16, "mixed precision: bf16 compute and activations, fp32 master weights"},
         {"fp8", Precision::fp8, "fp8 matmuls, bf16 activations, fp32 master weights"},
         {"fp4", Precision::fp4, "NVFP4 matmuls (Blackwell only), bf16 attention and activations, fp32 master weights"}}};
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
        case Precision::fp8:
        case Precision::fp4: return 2.0;
    }
    return 4.0;
}

bool is_mixed(Precision p) {
    return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8 || p == Precision::fp4;
}

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
units::FlopsPerSecond half_peak(const GpuSpec& g) {
    return std::max(peak(g, Precision::fp16), peak(g, Precision::bf16));
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
