// pnm_codec.cpp — Netpbm's headers, ASCII and binary samples.
#include "codecs/pnm_codec.hpp"

#include <cctype>
#include <cstring>
#include <string>

#include "base/byte_reader.hpp"
#include "base/errors.hpp"
#include "base/large_buffer.hpp"

namespace gpublur {
namespace {

struct Header {
  int kind = 0;  // the digit after 'P'
  std::int64_t width = 0, height = 0, depth = 1;
  std::int64_t max = 1;
};

void skip_space(ByteReader& r) {
  while (!r.at_end()) {
    if (r.peek() == '#') {
      while (!r.at_end() && r.u8() != '\n') {
      }
    } else if (std::isspace(r.peek())) {
      r.skip(1);
    } else {
      return;
    }
  }
}

// A decimal number after white space and comments (what: for the message).
std::int64_t number(ByteReader& r, const char* what) {
  skip_space(r);
  std::int64_t v = 0;
  int digits = 0;
  while (r.peek() >= '0' && r.peek() <= '9') {
    v = v * 10 + (r.u8() - '0');
    if (++digits > 9) throw IoError(std::string("PNM: ") + what + " too large");
  }
  if (digits == 0) throw IoError(std::string("PNM: no ") + what);
  return v;
}

// PAM's header: lines of "KEY value" up to ENDHDR.
Header pam_header(ByteReader& r) {
  Header h;
  h.kind = 7;
  for (;;) {
    skip_space(r);
    std::string key;
    while (!r.at_end() && !std::isspace(r.peek())) key += static_cast<char>(r.u8());
    if (key == "ENDHDR") break;
    if (key == "WIDTH")
      h.width = number(r, "width");
    else if (key == "HEIGHT")
      h.height = number(r, "height");
    else if (key == "DEPTH")
      h.depth = number(r, "depth");
    else if (key == "MAXVAL")
      h.max = number(r, "maximum");
    else if (key == "TUPLTYPE") {
      while (!r.at_end() && r.peek() != '\n') r.skip(1);  // the depth says what gpublur needs
    } else if (key.empty() || r.at_end()) {
      throw IoError("PAM header without ENDHDR");
    } else {
      throw IoError("PAM header: unknown field");
    }
  }
  if (r.u8() != '\n') throw IoError("PAM header: ENDHDR not ended by a newline");
  return h;
}

Header read_header(ByteReader& r) {
  if (r.u8() != 'P') throw IoError("not a PNM file");
  const int kind = r.u8() - '0';
  if (kind < 1 || kind > 7) throw IoError("not a PNM file");
  if (kind == 7) return pam_header(r);
  Header h;
  h.kind = kind;
  h.depth = kind == 3 || kind == 6 ? 3 : 1;
  h.width = number(r, "width");
  h.height = number(r, "height");
  h.max = kind == 1 || kind == 4 ? 1 : number(r, "maximum");
  if (kind >= 4 && !std::isspace(r.u8())) throw IoError("PNM: no white space before the data");
  return h;
}

// v (0..max) to the output's range: 8 bits for max <= 255, 16 above, rounded.
template <typename Sample>
Sample scaled(std::int64_t v, std::int64_t max) {
  constexpr std::int64_t kFull = sizeof(Sample) == 1 ? 255 : 65535;
  if (v > max) v = max;
  return static_cast<Sample>(max == kFull ? v : (v * kFull + max / 2) / max);
}

template <typename Sample>
Raster<Sample> read_samples(ByteReader& r, const Header& h) {
  Raster<Sample> image = make_raster<Sample>(static_cast<int>(h.width), static_cast<int>(h.height),
                                             static_cast<int>(h.depth));
  const std::size_t count = image.pixels.size();
  const bool bits = h.kind == 1 || h.kind == 4;  // PBM: 1 is black
  const std::int64_t max = bits ? 1 : h.max;
  const auto value = [&](std::int64_t v) {
    return scaled<Sample>(bits ? 1 - std::min<std::int64_t>(v, 1) : v, max);
  };
  if (h.kind <= 3) {  // ASCII: at least a character per sample
    check_data_holds(r.remaining(), count, "samples");
    for (std::size_t i = 0; i < count; ++i) {
      if (h.kind == 1) {  // PBM's ASCII digits need no separators
        skip_space(r);
        const int c = r.u8();
        if (c != '0' && c != '1') throw IoError("PBM: a sample that is not 0 or 1");
        image.pixels[i] = value(c - '0');
      } else {
        image.pixels[i] = value(number(r, "sample"));
      }
    }
    return image;
  }
  if (h.kind == 4) {  // rows of bits, each padded to a byte
    const std::size_t w = static_cast<std::size_t>(h.width), row = (w + 7) / 8;
    check_data_holds(r.remaining(), row * static_cast<std::size_t>(h.height), "pixel data");
    for (std::size_t y = 0; y < static_cast<std::size_t>(h.height); ++y) {
      const std::uint8_t* bytes = r.take(row);
      for (std::size_t x = 0; x < w; ++x)
        image.pixels[y * w + x] = value((bytes[x / 8] >> (7 - x % 8)) & 1);
    }
    return image;
  }
  const std::size_t bytes = h.max > 255 ? 2 : 1;
  check_data_holds(r.remaining(), count * bytes, "pixel data");
  const std::uint8_t* p = r.take(count * bytes);
  if (bytes == 1 && h.max == 255) {  // the samples as they are: one copy at memory's speed
    std::memcpy(image.pixels.data(), p, count);
  } else if (bytes == 2 && h.max == 65535) {  // big-endian to the host's order, no scaling
    for (std::size_t i = 0; i < count; ++i)
      image.pixels[i] = static_cast<Sample>(p[2 * i] << 8 | p[2 * i + 1]);
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      image.pixels[i] = value(bytes == 2 ? (p[2 * i] << 8 | p[2 * i + 1]) : p[i]);
    }
  }
  return image;
}

// decode_pnm's checks of a header's maximum and depth.
void check_header(const Header& h) {
  if (h.max < 1 || h.max > 65535)
    throw IoError("PNM maximum sample value " + std::to_string(h.max) + ": not 1..65535");
  if (h.depth < 1 || h.depth > 4)
    throw IoError("PAM of " + std::to_string(h.depth) + " channels: not 1..4");
}

}  // namespace

std::optional<PnmSamples> pnm_samples(const std::uint8_t* data, std::size_t size) {
  try {
    ByteReader r(data, size);
    const Header h = read_header(r);
    check_header(h);
    if (h.kind < 5 || (h.max != 255 && h.max != 65535)) return std::nullopt;
    return PnmSamples{static_cast<int>(h.width), static_cast<int>(h.height),
                      static_cast<int>(h.depth), h.max > 255 ? 16 : 8, r.position()};
  } catch (const IoError&) {  // refused, or a header longer than `data`: decode_pnm's to report
    return std::nullopt;
  }
}

DecodedImage decode_pnm(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  ByteReader r(data, size);
  const Header h = read_header(r);
  check_header(h);
  check_image_size({h.width, h.height, static_cast<int>(h.depth), h.max > 255 ? 2 : 1}, limits);
  DecodedImage result;
  result.format = ImageFormat::kPnm;
  if (h.max > 255) {
    result.image = read_samples<std::uint16_t>(r, h);
  } else {
    result.image = read_samples<std::uint8_t>(r, h);
  }
  return result;
}

std::string pnm_header(int width, int height, int channels, int bits) {
  const char* max = bits == 8 ? "255" : "65535";
  const std::string w = std::to_string(width), h = std::to_string(height);
  if (channels == 1 || channels == 3) {
    return std::string(channels == 1 ? "P5\n" : "P6\n") + w + " " + h + "\n" + max + "\n";
  }
  return "P7\nWIDTH " + w + "\nHEIGHT " + h + "\nDEPTH " + std::to_string(channels) +
         "\nMAXVAL " + max + "\nTUPLTYPE " + (channels == 2 ? "GRAYSCALE_ALPHA" : "RGB_ALPHA") +
         "\nENDHDR\n";
}

template <typename Sample>
std::vector<std::uint8_t> encode_pnm(const Raster<Sample>& image) {
  const std::string header =
      pnm_header(image.width, image.height, image.channels, 8 * static_cast<int>(sizeof(Sample)));
  // Sized once and filled in place (a large image's samples at memory's speed, not a byte at a
  // time through push_back).
  std::vector<std::uint8_t> out;
  reserve_large(out, header.size() + image.pixels.size() * sizeof(Sample));
  out.resize(header.size() + image.pixels.size() * sizeof(Sample));
  std::copy(header.begin(), header.end(), out.begin());
  std::uint8_t* samples = out.data() + header.size();
  if constexpr (sizeof(Sample) == 1) {
    std::memcpy(samples, image.pixels.data(), image.pixels.size());
  } else {
    for (std::size_t i = 0; i < image.pixels.size(); ++i) {  // big-endian
      samples[2 * i] = static_cast<std::uint8_t>(image.pixels[i] >> 8);
      samples[2 * i + 1] = static_cast<std::uint8_t>(image.pixels[i]);
    }
  }
  return out;
}

template std::vector<std::uint8_t> encode_pnm(const Image&);
template std::vector<std::uint8_t> encode_pnm(const Image16&);

}  // namespace gpublur
