#include "analysis/replay/load.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/byte_stream.hpp"
#include "analysis/trace/chakra.hpp"
#include "analysis/trace/kineto.hpp"

namespace rentsim::replay {

std::vector<std::string> trace_files(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const std::string& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inside;
            for (const auto& entry : fs::directory_iterator(p, ec)) {
                const std::string name = entry.path().filename().string();
                // Licence texts and notes live beside shipped traces.
                const bool note = name.ends_with(".md") || name.ends_with(".txt");
                if (entry.is_regular_file(ec) && name.front() != '.' && !note) inside.push_back(entry.path().string());
            }
            if (ec) throw analysis::InputError(p, "", "cannot read the folder: " + ec.message());
            std::sort(inside.begin(), inside.end());
            if (inside.empty()) throw analysis::InputError(p, "", "the folder holds no trace file");
            files.insert(files.end(), inside.begin(), inside.end());
        } else if (fs::is_regular_file(p, ec)) {
            files.push_back(p);
        } else {
            throw analysis::InputError(p, "", "no such file or folder");
        }
    }
    return files;
}

namespace {

// The importer a file's content calls for. A Chrome trace (Kineto) is a JSON object whose
// top-level keys are Kineto's own; a Chakra protobuf stream starts with a varint length, never
// with '{'; the Chakra JSON forms and PyTorch execution traces are JSON objects with other keys.
enum class Importer : std::uint8_t { kineto, chakra };

// Top-level keys torch.profiler writes before or instead of "traceEvents".
constexpr std::array<std::string_view, 8> kineto_keys = {"traceEvents",  "schemaVersion",   "deviceProperties",
                                                          "distributedInfo", "displayTimeUnit", "traceName",
                                                          "record_shapes", "baseTimeNanoseconds"};

// The first bytes of a file (inflated when gzip): enough to see its first key.
constexpr std::size_t peek_bytes = 4096;

Importer importer_of(const std::string& file) {
    const std::unique_ptr<trace::ByteStream> in = trace::ByteStream::open_file(file);
    std::string head(peek_bytes, '\0');
    head.resize(static_cast<std::size_t>(in->sgetn(head.data(), static_cast<std::streamsize>(head.size()))));
    if (!in->error().empty() && head.empty()) throw analysis::InputError(file, "", in->error());
    if (head.empty()) throw analysis::InputError(file, "", "the file is empty: expected a Kineto or Chakra trace");
    const std::size_t open = head.find_first_not_of(" \t\r\n");
    if (open == std::string::npos || head[open] != '{') return Importer::chakra;  // protobuf (or garbage: its importer says)
    const std::size_t q = head.find_first_not_of(" \t\r\n", open + 1);
    if (q == std::string::npos || head[q] != '"') return Importer::chakra;
    const std::size_t q2 = head.find('"', q + 1);
    if (q2 == std::string::npos) return Importer::chakra;
    const std::string_view key = std::string_view(head).substr(q + 1, q2 - q - 1);
    return std::find(kineto_keys.begin(), kineto_keys.end(), key) != kineto_keys.end() ? Importer::kineto : Importer::chakra;
}

}  // namespace

trace::Trace load_trace(const std::vector<std::string>& paths) {
    const std::vector<std::string> files = trace_files(paths);
    const Importer first = importer_of(files.front());
    for (std::size_t i = 1; i < files.size(); ++i)
        if (importer_of(files[i]) != first)
            throw analysis::InputError(files[i], "",
                                       fmt::format("is a {} trace but {} is a {} trace: the files of one replay must be of one format",
                                                   first == Importer::kineto ? "Chakra" : "Kineto", files.front(),
                                                   first == Importer::kineto ? "Kineto" : "Chakra"));
    if (first == Importer::kineto) return trace::read_kineto_ranks(files);
    trace::Trace t = trace::read_chakra_ranks(files);
    for (const trace::RankTrace& r : t.ranks)
        if (r.format == trace::Format::pytorch_et)
            throw analysis::InputError(r.file, "",
                                       "is a PyTorch execution trace: it records host operators without durations, so it cannot "
                                       "be replayed; convert it to a Chakra trace (with its Kineto trace) or replay the Kineto trace");
    return t;
}

}  // namespace rentsim::replay
