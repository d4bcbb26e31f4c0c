// A read-only stream of a file's or a buffer's bytes that inflates gzip on the fly: the
// importers hand it to a streaming parser, so that a trace is never held whole in memory.
// Gzip is recognised by its magic bytes (1f 8b), not by the file name; concatenated gzip
// members are read one after the other, as `gzip -d` does.
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::trace {

class ByteStream : public std::streambuf {
public:
    // Reads the file at `path`; an unreadable file or a folder raises InputError(path).
    static std::unique_ptr<ByteStream> open_file(const std::string& path);
    // Reads `bytes`, which must outlive the stream.
    static std::unique_ptr<ByteStream> over(std::string_view bytes);

    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;
    ~ByteStream() override;

    // Whether the input is gzip (known once the first byte has been read).
    bool gzip() const { return gzip_; }
    // Why the input ended early: a truncated or corrupt gzip stream, or a read error. Empty
    // while the input is sound. The stream reports end of input from then on.
    const std::string& error() const { return error_; }

protected:
    int_type underflow() override;

private:
    ByteStream() = default;
    std::size_t read_raw(char* into, std::size_t n);  // 0 at the end of the raw input
    bool fill_raw();                                  // false at the end of the raw input
    void fail(std::string why);

    std::FILE* file_ = nullptr;
    std::string_view memory_;
    std::vector<char> raw_, out_;
    std::size_t raw_pos_ = 0, raw_end_ = 0;
    bool started_ = false, gzip_ = false, member_done_ = false;
    struct Inflater;
    std::unique_ptr<Inflater> z_;
    std::string error_;
};

}  // namespace rentsim::trace
