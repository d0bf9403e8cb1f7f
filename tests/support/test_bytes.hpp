// test_bytes.hpp — building files byte by byte for decoder tests: little- and big-endian fields,
// a BMP header, PNG chunks, whole files to and from disk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gpublur::test {

using Bytes = std::vector<std::uint8_t>;

inline void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

inline Bytes read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), {});
}

inline void put16le(Bytes& b, unsigned v) {
  b.push_back(static_cast<std::uint8_t>(v)), b.push_back(static_cast<std::uint8_t>(v >> 8));
}
inline void put32le(Bytes& b, std::uint32_t v) { put16le(b, v & 0xffff), put16le(b, v >> 16); }
inline void put16be(Bytes& b, unsigned v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8)), b.push_back(static_cast<std::uint8_t>(v));
}
inline void put32be(Bytes& b, std::uint32_t v) { put16be(b, v >> 16), put16be(b, v & 0xffff); }

// A BMP with a BITMAPINFOHEADER: `bpp`, a palette of `palette` entries, optional bit field masks
// (BI_BITFIELDS), then `pixels` (rows as the file stores them).
inline Bytes bmp(int w, int h, int bpp, const std::vector<std::uint32_t>& palette,
                 const std::vector<std::uint32_t>& masks, const Bytes& pixels,
                 std::uint32_t compression = 0) {
  Bytes b = {'B', 'M'};
  const std::uint32_t offset =
      14 + 40 + static_cast<std::uint32_t>(4 * (palette.size() + masks.size()));
  put32le(b, offset + static_cast<std::uint32_t>(pixels.size()));
  put32le(b, 0);
  put32le(b, offset);
  put32le(b, 40);
  put32le(b, static_cast<std::uint32_t>(w));
  put32le(b, static_cast<std::uint32_t>(h));
  put16le(b, 1);
  put16le(b, static_cast<unsigned>(bpp));
  put32le(b, masks.empty() ? compression : 3);
  put32le(b, static_cast<std::uint32_t>(pixels.size()));
  put32le(b, 2835);
  put32le(b, 2835);
  put32le(b, static_cast<std::uint32_t>(palette.size()));
  put32le(b, 0);
  for (std::uint32_t m : masks) put32le(b, m);
  for (std::uint32_t c : palette) put32le(b, c);
  b.insert(b.end(), pixels.begin(), pixels.end());
  return b;
}

// A PNG file's chunks, in order; the signature is not one.
struct PngChunk {
  std::string type;
  Bytes data;
};

inline std::vector<PngChunk> png_chunks(const Bytes& file) {
  std::vector<PngChunk> chunks;
  for (std::size_t at = 8; at + 12 <= file.size();) {
    const std::size_t length = std::size_t{file[at]} << 24 | std::size_t{file[at + 1]} << 16 |
                               std::size_t{file[at + 2]} << 8 | file[at + 3];
    chunks.push_back({std::string(file.begin() + static_cast<long>(at) + 4,
                                  file.begin() + static_cast<long>(at) + 8),
                      Bytes(file.begin() + static_cast<long>(at) + 8,
                            file.begin() + static_cast<long>(at + 8 + length))});
    at += 12 + length;
  }
  return chunks;
}

// A PNG from chunks, each with its CRC-32 (bitwise: a test needs no table).
inline Bytes png_file(const std::vector<PngChunk>& chunks) {
  Bytes file = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  for (const PngChunk& c : chunks) {
    put32be(file, static_cast<std::uint32_t>(c.data.size()));
    const std::size_t start = file.size();
    file.insert(file.end(), c.type.begin(), c.type.end());
    file.insert(file.end(), c.data.begin(), c.data.end());
    std::uint32_t crc = 0xffffffffu;
    for (std::size_t i = start; i < file.size(); ++i) {
      crc ^= file[i];
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    put32be(file, crc ^ 0xffffffffu);
  }
  return file;
}

// An XMP packet whose description holds `text`.
inline Bytes xmp_packet(const std::string& text) {
  const std::string xml =
      "<?xpacket begin=\"\xef\xbb\xbf\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF "
      "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description "
      "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" dc:description=\"" +
      text + "\"/></rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>";
  return Bytes(xml.begin(), xml.end());
}

// `data` as a zlib stream of stored (uncompressed) deflate blocks, with its Adler-32.
inline Bytes zlib_stored(const Bytes& data) {
  Bytes z = {0x78, 0x01};
  for (std::size_t at = 0; at == 0 || at < data.size();) {
    const std::size_t n = std::min<std::size_t>(65535, data.size() - at);
    z.push_back(at + n == data.size() ? 1 : 0);  // BFINAL, BTYPE 00
    put16le(z, static_cast<unsigned>(n)), put16le(z, static_cast<unsigned>(~n & 0xffff));
    z.insert(z.end(), data.begin() + static_cast<long>(at),
             data.begin() + static_cast<long>(at + n));
    at += n;
    if (n == 0) break;
  }
  std::uint32_t a = 1, b = 0;
  for (std::uint8_t v : data) a = (a + v) % 65521, b = (b + a) % 65521;
  put32be(z, b << 16 | a);
  return z;
}

}  // namespace gpublur::test
