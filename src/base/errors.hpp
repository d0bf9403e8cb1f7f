// errors.hpp — the exception hierarchy gpublur throws and the exit codes main maps it to.
// Every message is written for the user: "<what>: <why>", with a hint where one helps.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gpublur {

/// Process exit codes, documented in --help and the README.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // I/O, CUDA, NVRTC and internal errors
  kExitUsage = 2,    // bad command line: fix the arguments and run again
  // Standard output's reader went away (EPIPE: `gpublur ... --json | head`): 128 + SIGPIPE, the
  // status a shell shows for a process SIGPIPE ended, which scripts already expect of a pipe.
  kExitClosedOutput = 141,
};

/// The function a checking macro's call text names, for its error message: the last call of
/// the outermost expression, "cuda::api().cuModuleLoadData(&raw, image)" -> "cuModuleLoadData"
/// (GB_CU_CHECK, GB_NVJPEG_CHECK).
inline std::string called_function(const char* call_text) {
  const std::string text(call_text);
  std::string name = text;  // no call in it: the text as it is
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ')') --depth;
    if (text[i] != '(') continue;
    if (depth++ != 0) continue;  // a call inside the arguments
    std::size_t begin = i;
    while (begin > 0 &&
           (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_')) {
      --begin;
    }
    name = text.substr(begin, i - begin);
  }
  return name;
}

/// Base of every gpublur error; what() is the text after "gpublur: error: ".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const noexcept { return kExitFailure; }
};

/// The command line asked for something impossible; exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return kExitUsage; }
};

/// Reading or writing a file failed, or an image is unusable.
class IoError : public Error {
 public:
  using Error::Error;
};

/// Standard output could not be written: its reader went away (EPIPE; exit code
/// kExitClosedOutput) or it failed otherwise (a full disk: ENOSPC; exit code 1).
class StdoutError : public IoError {
 public:
  /// `error_number`: errno of the failed write; 0 where it is not known.
  explicit StdoutError(int error_number)
      : IoError(std::string("cannot write to standard output") +
                (error_number ? std::string(": ") + std::strerror(error_number) : "")),
        error_number_(error_number) {}
  int exit_code() const noexcept override {
    return error_number_ == EPIPE ? kExitClosedOutput : kExitFailure;
  }

 private:
  int error_number_;
};

/// A CUDA Driver API call failed; the message names the CUresult and what gpublur was doing.
class CudaError : public Error {
 public:
  using Error::Error;
};

/// NVRTC rejected the generated source. Carries the compiler's log and options.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::string log, std::string options)
      : Error(what), log_(std::move(log)), options_(std::move(options)) {}
  const std::string& log() const noexcept { return log_; }
  const std::string& options() const noexcept { return options_; }

 private:
  std::string log_;
  std::string options_;
};

/// A broken invariant inside gpublur: a bug to report, never the user's fault.
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace gpublur
