// atomic_file.hpp — replace a file all at once: write a temporary beside it, then rename.
// A failure at any point leaves the destination as it was and no temporary behind. The temporary
// is named ".NAME.gpublur-XXXXXX" (NAME shortened where the name would pass the file system's
// limit, so outputs of any legal name can be written).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpublur {

/// Throws IoError unless `path`'s directory exists and is writable. Cheap; call it before
/// doing expensive work whose result could not be saved.
void check_writable_destination(const std::string& path);

/// How far a write is taken before the temporary file replaces the destination's name.
/// kRenamed: the rename alone, as cp, ImageMagick and OpenCV leave files: whole after any end of
/// the process (a kill included), but not necessarily on disk if the machine itself then crashes.
/// kFlushed: fsync first, so the file survives a power loss too, at the storage's speed (on the
/// device machine's disk, per-file fsync held a 16-thread batch to about 280 JPEGs/s).
enum class Durability { kRenamed, kFlushed };

/// Writes `bytes` to `path` atomically (temporary file in the same directory, rename).
/// The new file gets the mode an ordinary create would (0666 & ~umask), or the replaced
/// file's mode. Throws IoError naming the path and errno's reason.
void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                           Durability durability);

/// Removes the temporary files being written right now. Async-signal-safe: for a signal handler
/// that ends the process at once (stop_signals.hpp), so no temporary outlives it.
void remove_temporary_files() noexcept;

}  // namespace gpublur
