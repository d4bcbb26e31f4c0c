#include "analysis/trace/byte_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <zlib.h>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::trace {

namespace {
// Large enough that a read or an inflate call per buffer costs nothing next to parsing it.
constexpr std::size_t buffer_bytes = std::size_t{1} << 16;
}  // namespace

struct ByteStream::Inflater {
    z_stream s{};
    bool live = false;
    ~Inflater() {
        if (live) inflateEnd(&s);
    }
};

std::unique_ptr<ByteStream> ByteStream::open_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw analysis::InputError(path, "", "is a folder, not a trace file");
    std::unique_ptr<ByteStream> s(new ByteStream());
    s->file_ = std::fopen(path.c_str(), "rb");
    if (s->file_ == nullptr) throw analysis::InputError(path, "", std::string("cannot open file: ") + std::strerror(errno));
    return s;
}

std::unique_ptr<ByteStream> ByteStream::over(std::string_view bytes) {
    std::unique_ptr<ByteStream> s(new ByteStream());
    s->memory_ = bytes;
    return s;
}

ByteStream::~ByteStream() {
    if (file_ != nullptr) std::fclose(file_);
}

std::size_t ByteStream::read_raw(char* into, std::size_t n) {
    if (file_ == nullptr) {
        const std::size_t k = std::min(n, memory_.size());
        std::memcpy(into, memory_.data(), k);
        memory_.remove_prefix(k);
        return k;
    }
    const std::size_t k = std::fread(into, 1, n, file_);
    if (k == 0 && std::ferror(file_)) fail("read error");
    return k;
}

bool ByteStream::fill_raw() {
    raw_.resize(buffer_bytes);
    raw_pos_ = 0;
    raw_end_ = read_raw(raw_.data(), raw_.size());
    return raw_end_ > 0;
}

void ByteStream::fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    setg(nullptr, nullptr, nullptr);
}

ByteStream::int_type ByteStream::underflow() {
    if (gptr() != nullptr && gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!error_.empty()) return traits_type::eof();
    if (!started_) {
        started_ = true;
        if (!fill_raw()) return traits_type::eof();
        gzip_ = raw_end_ >= 2 && static_cast<unsigned char>(raw_[0]) == 0x1f && static_cast<unsigned char>(raw_[1]) == 0x8b;
        if (gzip_) {
            z_ = std::make_unique<Inflater>();
            if (inflateInit2(&z_->s, 15 + 16) != Z_OK) {  // 15: the largest window; +16: gzip framing only
                fail("cannot start gzip decompression");
                return traits_type::eof();
            }
            z_->live = true;
            z_->s.next_in = reinterpret_cast<Bytef*>(raw_.data());
            z_->s.avail_in = static_cast<uInt>(raw_end_);
            out_.resize(buffer_bytes);
        }
    }
    if (!gzip_) {
        if (raw_pos_ == raw_end_ && !fill_raw()) return traits_type::eof();
        setg(raw_.data() + raw_pos_, raw_.data() + raw_pos_, raw_.data() + raw_end_);
        raw_pos_ = raw_end_;
        return traits_type::to_int_type(*gptr());
    }
    z_stream& z = z_->s;
    for (;;) {
        if (z.avail_in == 0) {
            if (!fill_raw()) {
                if (member_done_) return traits_type::eof();
                fail("truncated gzip stream: the compressed data ends before the end of its last block");
                return traits_type::eof();
            }
            z.next_in = reinterpret_cast<Bytef*>(raw_.data());
            z.avail_in = static_cast<uInt>(raw_end_);
        }
        if (member_done_) {  // another gzip member follows (as `cat a.gz b.gz` makes), or nothing may
            if (*z.next_in != 0x1f) {
                fail("bytes after the end of the gzip stream, not another gzip member");
                return traits_type::eof();
            }
            inflateReset(&z);
            member_done_ = false;
        }
        z.next_out = reinterpret_cast<Bytef*>(out_.data());
        z.avail_out = static_cast<uInt>(out_.size());
        const int r = inflate(&z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            member_done_ = true;
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            fail(std::string("corrupt gzip data (") + (z.msg != nullptr ? z.msg : "zlib error " + std::to_string(r)) + ")");
            return traits_type::eof();
        }
        const std::size_t produced = out_.size() - z.avail_out;
        if (produced > 0) {
            setg(out_.data(), out_.data(), out_.data() + produced);
            return traits_type::to_int_type(*gptr());
        }
        if (r == Z_BUF_ERROR && z.avail_in != 0) {
            fail("corrupt gzip data (no progress)");
            return traits_type::eof();
        }
    }
}

}  // namespace rentsim::trace
