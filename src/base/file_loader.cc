#include "base/file_loader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/huge_pages.h"

namespace mlprof {

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
  }
  return "?";
}

void BufferFree::operator()(char* p) const {
  if (mapped)
    ::munmap(p, mapped);
  else
    delete[] p;
}

bool PaddedBuffer::MapFile(int fd, size_t size, PaddedBuffer* out) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t total = (size + kBufferPadding + page - 1) / page * page;
  // Reserve the whole range as zero pages, then map the file over its start.
  void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return false;
  // Populate read-only (a writable populate would copy every page), then
  // allow writes: only pages the reader patches get copied.
  if (size > 0 && (::mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED ||
                   ::mprotect(base, size, PROT_READ | PROT_WRITE) != 0)) {
    ::munmap(base, total);
    return false;
  }
  PaddedBuffer b;
  b.data_ = std::unique_ptr<char[], BufferFree>(static_cast<char*>(base), BufferFree(total));
  b.size_ = size;
  b.capacity_ = total - kBufferPadding;
  // Bytes between the file's end and the page end read as zero already.
  *out = std::move(b);
  return true;
}

PaddedBuffer::PaddedBuffer(size_t capacity)
    : data_(new char[capacity + kBufferPadding]), size_(0), capacity_(capacity) {
  AdviseHugePages(data_.get(), capacity);
  std::memset(data_.get(), 0, kBufferPadding < capacity ? kBufferPadding : capacity);
  std::memset(data_.get() + capacity, 0, kBufferPadding);
}

void PaddedBuffer::Resize(size_t size) {
  if (size > capacity_) {
    size_t cap = capacity_ ? capacity_ : 4096;
    while (cap < size) cap += cap / 2 + 4096;
    std::unique_ptr<char[], BufferFree> next(new char[cap + kBufferPadding]);
    AdviseHugePages(next.get(), cap);
    // Copy the whole old capacity: callers fill the buffer before setting its
    // size, so bytes past size_ can be live.
    if (capacity_) std::memcpy(next.get(), data_.get(), capacity_);
    data_ = std::move(next);
    capacity_ = cap;
  }
  size_ = size;
  std::memset(data_.get() + size_, 0, kBufferPadding);
}

uint64_t DefaultMaxDecodedBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const uint64_t phys = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  return std::max<uint64_t>(phys / 2, uint64_t{1} << 30);
}

namespace {

uint64_t Cap(const LoadLimits& l) { return l.max_decoded_bytes ? l.max_decoded_bytes : DefaultMaxDecodedBytes(); }

Status OverCap(const std::string& path, const char* what, uint64_t cap) {
  return DataLoss(fmt::format(
      "{}: the {} passes the load cap of {:.3g} GB (by default half the machine's memory; --max-input-gb sets it)",
      path == "-" ? "standard input" : path, what, static_cast<double>(cap) / 1e9));
}

const char* NotAFileKind(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  return nullptr;
}

Status ReadAll(const std::string& path, PaddedBuffer* out, uint64_t* file_size, uint64_t cap_bytes) {
  if (path != "-") {
    // Checked before open(): opening a FIFO for reading blocks until a
    // writer comes.
    struct stat pre {};
    if (::stat(path.c_str(), &pre) == 0)
      if (const char* kind = NotAFileKind(pre.st_mode))
        return DataLoss(fmt::format(
            "{}: is {}, not a file: mlprof reads regular files (or '-' for standard input, up to the load cap)", path,
            kind));
  }
  int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return err == ENOENT ? NotFound(fmt::format("{}: no such file", path))
                         : DataLoss(fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  struct stat st {};
  size_t cap = 1 << 16;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (fd) ::close(fd);
      return DataLoss(fmt::format("{}: is a directory, not a file", path));
    }
    if (S_ISREG(st.st_mode)) {
      cap = static_cast<size_t>(st.st_size) + 1;
      if (st.st_size >= (1 << 20) && PaddedBuffer::MapFile(fd, static_cast<size_t>(st.st_size), out)) {
        ::close(fd);
        *file_size = static_cast<uint64_t>(st.st_size);
        return OkStatus();
      }
    }
  }
  PaddedBuffer buf(cap);
  size_t used = 0;
  for (;;) {
    if (used >= cap_bytes) {
      if (fd) ::close(fd);
      return OverCap(path, "input read", cap_bytes);
    }
    if (used == buf.capacity()) buf.Resize(std::min<uint64_t>(used + used / 2 + 4096, cap_bytes + 1)), buf.Resize(used);
    ssize_t n = ::read(fd, buf.data() + used, buf.capacity() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (fd) ::close(fd);
      return DataLoss(fmt::format("{}: read error at byte {}: {}", path, used, std::strerror(err)));
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  if (fd) ::close(fd);
  buf.Resize(used);
  *file_size = used;
  *out = std::move(buf);
  return OkStatus();
}

// zlib streaming decode, used to salvage a damaged gzip stream and to find
// where it breaks. Returns the decompressed prefix in *out.
Status InflateWithZlib(const LoadedFile& in_meta, std::string_view in, PaddedBuffer* out, bool* truncated,
                       uint64_t* stop_offset, uint64_t cap_bytes, uint64_t* trailing_garbage_at) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Internal("zlib init failed");
  PaddedBuffer buf(std::min<uint64_t>(in.size() * 4 + 4096, cap_bytes + 1));
  size_t used = 0;
  Bytef* base = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.next_in = base;
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
  size_t consumed = 0;
  int rc = Z_OK;
  for (;;) {
    if (used == buf.capacity()) {
      if (used > cap_bytes) {
        inflateEnd(&zs);
        return OverCap(in_meta.path, "decompressed gzip data", cap_bytes);
      }
      size_t keep = used;
      buf.Resize(std::min<uint64_t>(used * 2, cap_bytes + 1));
      buf.Resize(keep);
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf.data() + used);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(buf.capacity() - used, UINT32_MAX));
    uInt before_out = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    used += before_out - zs.avail_out;
    consumed = static_cast<size_t>(zs.next_in - base);
    if (zs.avail_in == 0 && consumed < in.size())
      zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size() - consumed, UINT32_MAX));
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members: continue if more input follows and it is
      // another member; anything else is trailing garbage, ignored as gzip
      // -d does (zeros padding a block device image, a stray log line).
      if (consumed < in.size() && !(in.size() - consumed >= 2 && static_cast<uint8_t>(in[consumed]) == 0x1f &&
                                    static_cast<uint8_t>(in[consumed + 1]) == 0x8b)) {
        *trailing_garbage_at = consumed;
        break;
      }
      if (consumed < in.size()) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {  // input ended mid-stream
      *truncated = true;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string msg = zs.msg ? zs.msg : "error";
      inflateEnd(&zs);
      return DataLoss(fmt::format("{}: corrupt gzip data at compressed byte {}: {}", in_meta.path, consumed, msg));
    }
  }
  *stop_offset = consumed;
  inflateEnd(&zs);
  buf.Resize(used);
  *out = std::move(buf);
  return OkStatus();
}

Status DecodeGzip(LoadedFile* f, std::string_view in, uint64_t cap_bytes) {
  uint32_t isize = 0;
  if (in.size() >= 4) std::memcpy(&isize, in.data() + in.size() - 4, 4);
  // ISIZE is the size mod 2^32 of the last member only: a hint, never trusted
  // beyond the cap.
  size_t guess = std::min<uint64_t>(std::max<size_t>(static_cast<size_t>(isize), in.size() * 3), cap_bytes) + 1;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (!d) return Internal("libdeflate alloc failed");
  PaddedBuffer out(guess);
  size_t in_pos = 0, out_pos = 0;
  libdeflate_result r = LIBDEFLATE_SUCCESS;
  while (in_pos < in.size()) {
    size_t in_used = 0, out_used = 0;
    r = libdeflate_gzip_decompress_ex(d, in.data() + in_pos, in.size() - in_pos, out.data() + out_pos,
                                      out.capacity() - out_pos, &in_used, &out_used);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (out.capacity() > cap_bytes) {
        libdeflate_free_decompressor(d);
        return OverCap(f->path, "decompressed gzip data", cap_bytes);
      }
      size_t keep = out_pos;
      out.Resize(std::min<uint64_t>(out.capacity() * 2 + 4096, cap_bytes + 1));
      out.Resize(keep);
      continue;
    }
    if (r != LIBDEFLATE_SUCCESS) break;
    in_pos += in_used;
    out_pos += out_used;
  }
  libdeflate_free_decompressor(d);
  if (r == LIBDEFLATE_SUCCESS) {
    out.Resize(out_pos);
    f->bytes = std::move(out);
    return OkStatus();
  }
  // libdeflate only says "bad data": redo with zlib, which streams, keeps what
  // decodes and tells where the stream ends or breaks.
  PaddedBuffer salvaged;
  bool truncated = false;
  uint64_t stop = 0;
  RETURN_IF_ERROR(InflateWithZlib(*f, in, &salvaged, &truncated, &stop, cap_bytes, &f->trailing_garbage_at));
  if (!truncated) {
    // zlib decoded it all (e.g. an unusual member layout libdeflate rejects).
    f->bytes = std::move(salvaged);
    return OkStatus();
  }
  f->truncated = true;
  f->truncated_at = stop;
  f->bytes = std::move(salvaged);
  return OkStatus();
}

Status DecodeZstd(LoadedFile* f, std::string_view in, uint64_t cap_bytes) {
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) return Internal("zstd alloc failed");
  // The frame header's content size is a claim: it sizes the first buffer
  // only up to 64 times the compressed size (and the cap); the buffer grows
  // as data really arrives.
  unsigned long long hint = ZSTD_getFrameContentSize(in.data(), in.size());
  const uint64_t plausible = std::min<uint64_t>(in.size() * 64 + 4096, cap_bytes);
  size_t cap = (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR)
                   ? static_cast<size_t>(std::min<uint64_t>(hint, plausible)) + 1
                   : static_cast<size_t>(std::min<uint64_t>(in.size() * 4 + 4096, cap_bytes)) + 1;
  PaddedBuffer out(cap);
  size_t used = 0;
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t last = 0;
  for (;;) {
    if (used == out.capacity()) {
      if (used > cap_bytes) {
        ZSTD_freeDStream(ds);
        return OverCap(f->path, "decompressed zstd data", cap_bytes);
      }
      size_t keep = used;
      out.Resize(std::min<uint64_t>(used * 2, cap_bytes + 1));
      out.Resize(keep);
    }
    ZSTD_outBuffer ob{out.data() + used, out.capacity() - used, 0};
    last = ZSTD_decompressStream(ds, &ob, &ib);
    used += ob.pos;
    if (ZSTD_isError(last)) {
      std::string msg = ZSTD_getErrorName(last);
      ZSTD_freeDStream(ds);
      return DataLoss(fmt::format("{}: corrupt zstd data at compressed byte {}: {}", f->path, ib.pos, msg));
    }
    if (ib.pos == ib.size && ob.pos < ob.size) break;  // all input consumed, output flushed
  }
  ZSTD_freeDStream(ds);
  if (last != 0) {  // frame not finished: truncated
    f->truncated = true;
    f->truncated_at = in.size();
  }
  out.Resize(used);
  f->bytes = std::move(out);
  return OkStatus();
}

Status Decode(LoadedFile* f, PaddedBuffer raw, uint64_t cap_bytes) {
  std::string_view in = raw.view();
  if (in.size() >= 2 && static_cast<uint8_t>(in[0]) == 0x1f && static_cast<uint8_t>(in[1]) == 0x8b) {
    f->compression = Compression::kGzip;
    return DecodeGzip(f, in, cap_bytes);
  }
  if (in.size() >= 4 && static_cast<uint8_t>(in[0]) == 0x28 && static_cast<uint8_t>(in[1]) == 0xb5 &&
      static_cast<uint8_t>(in[2]) == 0x2f && static_cast<uint8_t>(in[3]) == 0xfd) {
    f->compression = Compression::kZstd;
    return DecodeZstd(f, in, cap_bytes);
  }
  f->bytes = std::move(raw);
  return OkStatus();
}

}  // namespace

StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadLimits& limits) {
  LoadedFile f;
  f.path = path;
  PaddedBuffer raw;
  RETURN_IF_ERROR(ReadAll(path, &raw, &f.file_size, Cap(limits)));
  RETURN_IF_ERROR(Decode(&f, std::move(raw), Cap(limits)));
  return f;
}

StatusOr<LoadedFile> LoadBytes(std::string_view bytes, std::string name, const LoadLimits& limits) {
  LoadedFile f;
  f.path = std::move(name);
  f.file_size = bytes.size();
  PaddedBuffer raw(bytes.size());
  if (!bytes.empty()) std::memcpy(raw.data(), bytes.data(), bytes.size());
  raw.Resize(bytes.size());
  RETURN_IF_ERROR(Decode(&f, std::move(raw), Cap(limits)));
  return f;
}

}  // namespace mlprof
