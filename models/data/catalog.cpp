#include "models/data/pipeline.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/pricing/catalog.hpp"

namespace rentsim::data {

namespace {

using units::bytes;
using units::seconds;

// ImageNet (ILSVRC2012) training JPEGs: ILSVRC2012_img_train.tar is 147,897,477,120 bytes
// for 1,281,167 images, 115,440 bytes per image on average.
constexpr double imagenet_jpeg_bytes = 147897477120.0 / imagenet_train_images;
// CPU decode of one such JPEG, 1.300 ms: least-squares line through the single-thread
// libjpeg-turbo rows DAT-003..006 of measured.csv (torchcodec PR #1620, 2026-08: 0.786,
// 1.576, 3.056 and 5.981 ms for 71.1, 138.0, 251.4 and 446.4 KB), ms = -0.3068 + 0.013923 x KB,
// at 115.44 KB. Fitted 2026-11-29.
constexpr double imagenet_decode_s = (-0.306840 + 0.0139226 * imagenet_jpeg_bytes / 1000.0) * 1e-3;
// Assumption: RandomResizedCrop(224) + flip + ToTensor + Normalize cost as much CPU time as
// the decode they follow. The decode rows state that these steps "cost extra" and give no
// figure; no measurement is shipped. Stated 2026-11-29.
constexpr double imagenet_augment_over_decode = 1.0;
// Batched nvJPEG on one A100: 7,830.85 images/s (DAT-002, torchvision PR #8468/#8496,
// 2024-06; images of mean 551x676). Augmentation on the GPU is taken as free (assumption).
constexpr double imagenet_gpu_decode_s = 1.0 / 7830.853563;
// With GPU decode the CPU only reads and collates the encoded bytes: assumed 0.1 ms per
// sample (assumption, 2026-11-29).
constexpr double imagenet_cpu_collate_s = 1e-4;

constexpr SampleKind kinds[] = {
    {"imagenet-jpeg", "ImageNet JPEG, decode + RandomResizedCrop(224) + flip, float32 3x224x224 to the GPU",
     bytes(imagenet_jpeg_bytes), bytes(3.0 * 224 * 224 * 4), seconds(imagenet_decode_s),
     seconds(imagenet_decode_s * imagenet_augment_over_decode), seconds(imagenet_gpu_decode_s),
     seconds(imagenet_cpu_collate_s),
     "size: ILSVRC2012_img_train.tar / 1,281,167 images; decode: fit to measured.csv DAT-003..006 (torchcodec "
     "PR #1620, 2026-08); augmentation = decode (assumption); GPU decode: DAT-002 (torchvision PR #8468, "
     "2024-06); fitted 2026-11-29"},
    // Megatron-style memory-mapped token ids, 2,048 uint16 tokens per sample, handed to the
    // GPU as int64. Slicing and collating: assumed 20 us per sample on one core.
    {"pretokenized-text", "pre-tokenized text, 2048 uint16 tokens per sample, int64 ids to the GPU",
     bytes(2048.0 * 2), bytes(2048.0 * 8), seconds(20e-6), seconds(0), seconds(0), seconds(0),
     "size: 2048 tokens x 2 bytes (Megatron-LM indexed dataset); CPU cost 20 us per sample (assumption, "
     "2026-11-29)"},
    // A KITTI velodyne sweep: about 120,000 points x (x, y, z, reflectance) float32. Voxelising
    // and augmenting (rotation, scaling, ground-truth sampling) assumed at 20 ms per sample.
    {"point-cloud", "LiDAR point cloud, about 120k points x 4 float32, voxelised on the CPU",
     bytes(120000.0 * 16), bytes(120000.0 * 16), seconds(5e-3), seconds(15e-3), seconds(0), seconds(0),
     "size: KITTI velodyne .bin, ~120k points x 16 bytes; decode 5 ms + augmentation 15 ms per sample "
     "(assumptions, 2026-11-29)"},
};

// Instances: GPU, GPU count, vCPUs, RAM and network line rate come from the price catalog's
// trusted AWS on-demand row (models/pricing/data/catalog.csv, from skypilot-catalog
// catalogs/v8/aws/vms.csv @00148f2a); this table adds only the local NVMe drives, read from
// the same rows' notes ("8x1 TB NVMe", "900 GB (2x450 GB SSD)", "8x3.84 TB NVMe"; "EBS only"
// means none).
struct InstanceStorage {
    std::string_view name;       // the data.instance key
    std::string_view instance;   // AWS instance name in the price catalog
    int nvme_drives;
    double nvme_drive_gb;
};
constexpr InstanceStorage instance_storage[] = {
    {"aws-p3.2xlarge", "p3.2xlarge", 0, 0},
    {"aws-p3.8xlarge", "p3.8xlarge", 0, 0},
    {"aws-p3.16xlarge", "p3.16xlarge", 0, 0},
    {"aws-p3dn.24xlarge", "p3dn.24xlarge", 2, 450},
    {"aws-p4d.24xlarge", "p4d.24xlarge", 8, 1000},
    {"aws-p4de.24xlarge", "p4de.24xlarge", 8, 1000},
    {"aws-p5.48xlarge", "p5.48xlarge", 8, 3840},
};

const std::vector<Instance>& instance_table() {
    static const std::vector<Instance> table = [] {
        std::vector<Instance> out;
        const auto& catalog = price::shipped_catalog();
        for (const auto& st : instance_storage) {
            const price::CatalogRow* row = price::find_price(catalog, "aws", st.instance, "on-demand");
            if (row == nullptr || row->gpu.empty())
                throw std::logic_error("instance " + std::string(st.name) + " has no GPU row in the price catalog");
            out.push_back({st.name, row->gpu, row->gpus_per_instance, static_cast<int>(row->vcpus), row->ram_gb,
                           row->network_gbps, st.nvme_drives, st.nvme_drive_gb, row->source});
        }
        return out;
    }();
    return table;
}

// Sequential read (and write) rate of one instance NVMe drive: 2 GB/s. AWS gives p4d's 8
// drives "16 GB/s" of read throughput together (p4d launch announcement, 2020-11); the same
// per-drive rate is assumed for the other instances. Read 2026-11-29.
constexpr double nvme_drive_bytes_per_s = 2e9;

// Page cache share of host RAM: 80% (assumption, 2026-11-29; the training process, its
// pinned buffers and the loader workers take the rest).
constexpr double page_cache_share = 0.8;

}  // namespace

std::span<const SampleKind> sample_kinds() { return kinds; }

const Registry<const SampleKind*>& sample_kind_registry() {
    static const Registry<const SampleKind*> registry = [] {
        std::vector<RegistryEntry<const SampleKind*>> entries;
        for (const SampleKind& k : kinds) entries.push_back({k.name, &k, k.description});
        return Registry<const SampleKind*>("sample kind", std::move(entries));
    }();
    return registry;
}

const SampleKind* find_sample_kind(std::string_view name) {
    const SampleKind* const* k = sample_kind_registry().find(name);
    return k ? *k : nullptr;
}

const Registry<SourceKind>& source_kind_registry() {
    static const Registry<SourceKind> registry{
        "source kind",
        {{"local-nvme", SourceKind::local_nvme, "the instance's own NVMe drives"},
         {"nfs", SourceKind::nfs, "a network file system (EFS, FSx class) shared by the nodes"},
         {"object-storage", SourceKind::object_storage, "an object store (S3 class), one request per object or shard"}}};
    return registry;
}

std::string_view to_string(SourceKind k) {
    const std::string_view name = source_kind_registry().name_of(k);
    return name.empty() ? "?" : name;
}

std::optional<SourceKind> parse_source_kind(std::string_view name) {
    if (const SourceKind* k = source_kind_registry().find(name)) return *k;
    return std::nullopt;
}

Source default_source(SourceKind kind) {
    switch (kind) {
        // Latency 0.1 ms and 256 requests in flight: NVMe command latency is tens of
        // microseconds; the per-file open/read path makes it ~0.1 ms (assumption). The
        // bandwidth is the instance's (nvme_bandwidth); 16 GB/s here stands for p4d's.
        case SourceKind::local_nvme: return {kind, units::BytesPerSecond{16e9}, seconds(1e-4), 256};
        // A network file system (EFS / FSx class) at 10 Gb/s, 1 ms per request, 64 in flight
        // from one node (assumptions, 2026-11-29).
        case SourceKind::nfs: return {kind, units::gbits_per_s(10), seconds(1e-3), 64};
        // Object storage (S3 class): the service scales past one node, so the node's ingress
        // link is the bandwidth limit (100 Gb/s here); 30 ms to the first byte of a small
        // object and 64 requests in flight from one node's client pool (assumptions, 2026-11-29).
        case SourceKind::object_storage: return {kind, units::gbits_per_s(100), seconds(30e-3), 64};
    }
    throw std::invalid_argument("unknown source kind");
}

units::BytesPerSecond Instance::nvme_bandwidth() const {
    return units::BytesPerSecond{nvme_drives * nvme_drive_bytes_per_s};
}

std::span<const Instance> instances() { return instance_table(); }

const Registry<const Instance*>& instance_registry() {
    // The descriptions are built from the table, so they live beside the registry.
    static const std::vector<std::string> descriptions = [] {
        std::vector<std::string> out;
        for (const Instance& i : instance_table()) {
            const std::string nvme = i.nvme_drives > 0 ? fmt::format("{}x {:g} GB NVMe", i.nvme_drives, i.nvme_drive_gb)
                                                       : std::string("no instance NVMe");
            out.push_back(fmt::format("{}x {}, {} vCPUs, {:g} GiB RAM, {:g} Gb/s network, {}", i.gpus, i.gpu, i.vcpus,
                                      i.ram_gib, i.network_gbps, nvme));
        }
        return out;
    }();
    static const Registry<const Instance*> registry = [] {
        std::vector<RegistryEntry<const Instance*>> entries;
        const auto& table = instance_table();
        for (std::size_t i = 0; i < table.size(); ++i)
            entries.push_back({table[i].name, &table[i], descriptions[i]});
        return Registry<const Instance*>("instance", std::move(entries));
    }();
    return registry;
}

const Instance* find_instance(std::string_view name) {
    const Instance* const* i = instance_registry().find(name);
    return i ? *i : nullptr;
}

double page_cache_fraction() { return page_cache_share; }

double warm_hit_fraction(units::Bytes dataset, units::Bytes page_cache) {
    if (dataset.value <= 0) return 1.0;
    return std::clamp(page_cache / dataset, 0.0, 1.0);
}

units::Seconds staging_time(units::Bytes dataset, const Source& from, units::BytesPerSecond ingress,
                            units::BytesPerSecond nvme) {
    auto rate = from.bandwidth;
    if (ingress.value > 0) rate = units::min(rate, ingress);
    if (nvme.value > 0) rate = units::min(rate, nvme);
    if (rate.value <= 0) throw std::invalid_argument("staging needs a positive bandwidth");
    return from.latency + dataset / rate;
}

}  // namespace rentsim::data
