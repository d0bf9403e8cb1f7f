// atomic_file.hpp — replace a file all at once: write a temporary beside it, then rename.
// A failure at any point leaves the destination as it was and no temporary behind. The temporary
// is named ".NAME.gpublur-XXXXXX" (NAME shortened where the name would pass the file system's
// limit, so outputs of any legal name can be written). What is not a regular file is not
// replaced: a symbolic link is written through (its final target replaced, the link kept), as
// cp and `>` do; a character device (/dev/null) or FIFO is written into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpublur {

/// Throws IoError unless write_file_atomically could write `path`: the directory of the file it
/// names (through links) exists and is writable, or it is a writable device or FIFO. Never opens
/// it (a FIFO is not waited on). Cheap; call it before expensive work whose result could not be
/// saved.
void check_writable_destination(const std::string& path);

/// Makes the directory `dir` (and its parents) unless it is there. Throws IoError, naming it as
/// the output directory, unless it is then a writable directory: a batch's one error before any
/// work, rather than one per file.
void make_output_directory(const std::string& dir);

/// How far a write is taken before the temporary file replaces the destination's name.
/// kRenamed: the rename alone, as cp, ImageMagick and OpenCV leave files: whole after any end of
/// the process (a kill included), but not necessarily on disk if the machine itself then crashes.
/// kFlushed: fsync first, so the file survives a power loss too, at the storage's speed (on the
/// device machine's disk, per-file fsync held a 16-thread batch to about 280 JPEGs/s).
enum class Durability { kRenamed, kFlushed };

/// Writes `bytes` to `path`: a regular file (or none yet) atomically, by a temporary file in the
/// same directory renamed over it; where `path` is a symbolic link, over the link's final target;
/// a character device or FIFO directly (a FIFO waits for a reader, as `>` does). A new file gets
/// the mode an ordinary create would (0666 less the umask, which is never read or changed, so
/// threads may call this at once); a replaced one its predecessor's permissions, without setuid,
/// setgid or sticky bits. Block devices, sockets and directories are refused. Throws IoError
/// naming `path` and the reason. Thread-safe.
void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                           Durability durability);

/// Bytes held elsewhere, written in their turn: a file's header and an image's samples, written
/// from where they are rather than copied into one buffer first (a raw 8K image is 100 MB).
struct ByteSpan {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};

/// write_file_atomically of the pieces' bytes, one after another.
void write_file_atomically(const std::string& path, const std::vector<ByteSpan>& pieces,
                           Durability durability);

/// Replaces the name `path` itself, atomically, whatever it is now: a symbolic link or a FIFO
/// there is replaced, never written through. For files gpublur owns (kernel cache entries),
/// where a link or FIFO planted in their place must neither hang a write nor redirect it. Throws
/// IoError as write_file_atomically does. Thread-safe.
void replace_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                             Durability durability);

/// Removes the temporary files being written right now. Async-signal-safe: for a signal handler
/// that ends the process at once (stop_signals.hpp), so no temporary outlives it.
void remove_temporary_files() noexcept;

}  // namespace gpublur
