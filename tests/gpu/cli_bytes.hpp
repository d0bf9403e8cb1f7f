// cli_bytes.hpp — test support for the [gpu] binary: runs the command line in-process (app/run)
// with the arguments given and returns the bytes of the file it wrote, so a test can hold the
// GPU's file against the CPU's.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "app/run.hpp"
#include "support/parse_args.hpp"

namespace gpublur::test {

inline std::string cli_output_bytes(const std::vector<std::string>& args) {
  const Request o = parse_args(args);
  std::ostringstream out, err;
  REQUIRE(run(o, out, err) == 0);
  std::ifstream file(o.output, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

}  // namespace gpublur::test
