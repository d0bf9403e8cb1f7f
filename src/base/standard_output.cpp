// standard_output.cpp — a write, a flush, and errno read at once, before anything can change it.
#include "base/standard_output.hpp"

#include <cerrno>
#include <ostream>

#include "base/errors.hpp"

namespace gpublur {

void write_checked(std::ostream& out, std::string_view text) {
  if (out.fail()) throw StdoutError(0);  // an unchecked write failed: its errno is gone
  errno = 0;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (out.fail()) throw StdoutError(errno);
}

void flush_checked(std::ostream& out) { write_checked(out, {}); }

}  // namespace gpublur
