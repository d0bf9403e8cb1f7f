// byte_reader.hpp — bounds-checked reading of a file's bytes for gpublur's own decoders (BMP,
// TGA, PNM, HDR, PSD): every read past the end throws IoError("truncated file") instead of
// reading memory that is not the file's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/errors.hpp"

namespace gpublur {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::size_t position() const { return pos_; }
  std::size_t size() const { return size_; }
  std::size_t remaining() const { return size_ - pos_; }
  bool at_end() const { return pos_ == size_; }

  /// The next `n` bytes, which must exist; the position moves past them.
  const std::uint8_t* take(std::size_t n) {
    if (n > remaining()) throw IoError("truncated file");
    const std::uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  void skip(std::size_t n) { take(n); }
  void seek(std::size_t position) {
    if (position > size_) throw IoError("truncated file");
    pos_ = position;
  }

  /// The next byte without moving past it; -1 at the end.
  int peek() const { return pos_ < size_ ? data_[pos_] : -1; }

  std::uint8_t u8() { return *take(1); }
  std::uint16_t u16le() {
    const std::uint8_t* p = take(2);
    return static_cast<std::uint16_t>(p[0] | p[1] << 8);
  }
  std::uint16_t u16be() {
    const std::uint8_t* p = take(2);
    return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
  }
  std::uint32_t u32le() {
    const std::uint8_t* p = take(4);
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
           std::uint32_t{p[3]} << 24;
  }
  std::uint32_t u32be() {
    const std::uint8_t* p = take(4);
    return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 |
           std::uint32_t{p[3]};
  }
  std::int32_t i32le() { return static_cast<std::int32_t>(u32le()); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace gpublur
