// The input pipeline of one GPU, as PyTorch's DataLoader runs it: loader workers each build
// whole batches, keep up to `prefetch_factor` of them ready or in flight, and the trainer
// takes batches in order, round-robin over workers (simulated in analysis/trainer).
//
// The storage-backed pipeline adds what a worker does before and after decoding: it reads
// its batch from a storage source (per-request latency, bandwidth, a cap on concurrent
// requests) through the node's ingress link, unless the page cache holds it; decodes and
// augments on a CPU core; and the batch crosses PCIe to the GPU. These are pure values;
// analysis/trainer turns them into engine resources and flows.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "models/registry.hpp"
#include "models/units.hpp"

namespace rentsim::data {

// ImageNet (ILSVRC2012): 1,281,167 training and 50,000 validation images (Russakovsky et al.
// 2015, Table 2).
inline constexpr double imagenet_train_images = 1281167;
inline constexpr double imagenet_val_images = 50000;

// What one training sample costs the input pipeline. Rates are per CPU core (one loader
// worker process runs on one core); `cpu_s_per_sample` includes decode and augmentation.
struct SampleKind {
    std::string_view name;
    std::string_view description;
    units::Bytes stored_bytes;       // mean size of one sample in storage
    units::Bytes tensor_bytes;       // size of the batch tensor per sample copied to the GPU (CPU decode)
    units::Seconds cpu_decode_s;     // CPU decode per sample
    units::Seconds cpu_augment_s;    // CPU augmentation per sample (stated assumption)
    // GPU decode (DALI-style nvJPEG); 0 when the kind has no GPU decoder.
    units::Seconds gpu_decode_s;     // GPU time per sample
    units::Seconds cpu_gpu_decode_s; // CPU time per sample left with GPU decode (read, collate)
    std::string_view source;         // where each figure comes from, and when it was read

    units::Seconds cpu_s_per_sample(bool gpu_decode) const {
        return gpu_decode ? cpu_gpu_decode_s : cpu_decode_s + cpu_augment_s;
    }
    bool has_gpu_decode() const { return gpu_decode_s.value > 0; }
};

std::span<const SampleKind> sample_kinds();
// The same kinds by name, in the same order; values point into sample_kinds().
const Registry<const SampleKind*>& sample_kind_registry();
// nullptr when the name is unknown.
const SampleKind* find_sample_kind(std::string_view name);

enum class SourceKind { local_nvme, nfs, object_storage };
// local-nvme, nfs, object-storage.
const Registry<SourceKind>& source_kind_registry();
std::string_view to_string(SourceKind k);
std::optional<SourceKind> parse_source_kind(std::string_view name);

// A storage source as the node sees it: aggregate read bandwidth, latency of one request
// (first byte) and the largest number of requests it serves at once from one node.
struct Source {
    SourceKind kind = SourceKind::local_nvme;
    units::BytesPerSecond bandwidth{};
    units::Seconds latency{};
    int max_concurrency = 1;
};

// Defaults of a source kind where the scenario gives no figure; for local NVMe the
// bandwidth comes from the instance (drives x per-drive rate). Each value is documented
// in catalog.cpp with its source or as an assumption.
Source default_source(SourceKind kind);

// A rented node: what the input pipeline needs of it.
struct Instance {
    std::string_view name;           // "aws-p4d.24xlarge"
    std::string_view gpu;            // GPU catalog name
    int gpus = 0;                    // GPUs per node
    int vcpus = 0;
    double ram_gib = 0;
    double network_gbps = 0;         // the node's ingress line rate, Gb/s
    int nvme_drives = 0;             // 0: no instance storage (EBS only)
    double nvme_drive_gb = 0;        // capacity of one drive, GB (1e9 bytes)
    std::string_view source;

    units::Bytes nvme_bytes() const { return units::bytes(nvme_drives * nvme_drive_gb * 1e9); }
    units::BytesPerSecond nvme_bandwidth() const;
};

std::span<const Instance> instances();
// The same instances by name, in the same order; values point into instances(), descriptions
// summarise GPUs, vCPUs, RAM, network and NVMe.
const Registry<const Instance*>& instance_registry();
// nullptr when the name is unknown.
const Instance* find_instance(std::string_view name);

// Share of host RAM the page cache can hold a dataset in; the rest goes to the OS, the
// training process and its loader workers. Assumption (see catalog.cpp).
double page_cache_fraction();

// Fraction of a dataset's reads that the page cache serves once warm: the whole dataset
// when it fits, else cache / dataset (uniform random access, which a shuffled epoch is,
// hits a cache of C bytes over D bytes with probability C / D under LRU).
double warm_hit_fraction(units::Bytes dataset, units::Bytes page_cache);

// Time to copy a dataset from a source to local NVMe before training: the request latency
// plus the bytes at the slowest of the source, the ingress link and the drives.
units::Seconds staging_time(units::Bytes dataset, const Source& from, units::BytesPerSecond ingress,
                            units::BytesPerSecond nvme);

}  // namespace rentsim::data
