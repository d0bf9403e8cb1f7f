// image_decode.hpp — reading image files: the bytes of a path (or stdin), then the decoder for the
// format their content shows (not their name: a PNG called .jpg is read as the PNG it is).
// Every decoder checks the image's size against DecodeLimits before it allocates pixels.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Regular files larger than this are refused before they are read.
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{4} << 30;

/// The most bytes read from a pipe, device or standard input, whose size nothing says in advance:
/// the largest decoded image (--max-bytes) and 64 MiB for headers and metadata; kMaxFileBytes
/// without a byte limit.
std::uint64_t max_stream_bytes(const DecodeLimits& limits);

/// The bytes of the image file at `path`; "-" reads standard input. Its first bytes are read
/// alone, and a file whose content is no format gpublur reads is refused before the rest is read.
/// A regular file is read at its size; a pipe, device or standard input to its end, up to
/// max_stream_bytes. A stop signal (stop_signals.hpp) ends the read between chunks. Throws
/// IoError("cannot read 'path': why"): missing, unreadable, a directory, empty, not an image,
/// larger than kMaxFileBytes or max_stream_bytes, stopped.
std::vector<std::uint8_t> read_file(const std::string& path, const DecodeLimits& limits = {});

/// Decodes `bytes` by their content (TGA, which has no signature, by `name`'s extension too).
/// `name` names the file in errors. Throws IoError("cannot read 'name': why").
DecodedImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name,
                          const DecodeLimits& limits = {});

/// read_file, then decode_image.
DecodedImage read_image(const std::string& path, const DecodeLimits& limits = {});

/// A text safe to print on a terminal: well-formed UTF-8 as it is, but control characters (C0,
/// DEL, C1) and bytes that are not UTF-8 (utf8.hpp) as \xNN, byte by byte, so nothing a file or
/// its name holds reaches the terminal raw, and the result is UTF-8. printable(printable(t)) ==
/// printable(t).
std::string printable(const std::string& text);

}  // namespace gpublur
