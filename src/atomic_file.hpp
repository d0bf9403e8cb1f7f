// atomic_file.hpp — replace a file all at once: write a temporary beside it, then rename.
// A failure at any point leaves the destination as it was and no temporary behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpublur {

/// Throws IoError unless `path`'s directory exists and is writable. Cheap; call it before
/// doing expensive work whose result could not be saved.
void check_writable_destination(const std::string& path);

/// Writes `bytes` to `path` atomically (temporary file in the same directory, fsync, rename).
/// The new file gets the mode an ordinary create would (0666 & ~umask), or the replaced
/// file's mode. Throws IoError naming the path and errno's reason.
void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes);

}  // namespace gpublur
