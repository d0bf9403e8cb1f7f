// test_pipe.hpp — a pipe a test owns: both ends closed when it goes, except an end the test has
// closed itself and set to -1 (as a writer does to signal the end of its data).
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

namespace gpublur::test {

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

}  // namespace gpublur::test
