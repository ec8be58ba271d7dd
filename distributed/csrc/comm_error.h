#ifndef DISTRIBUTED_CSRC_COMM_ERROR_H_
#define DISTRIBUTED_CSRC_COMM_ERROR_H_

// The errors of the communication layer. The Python binding maps CommError to
// oneflow.distributed.DistributedError (a RuntimeError) and CommTimeoutError to
// its subclass DistributedTimeoutError, so callers can tell "a peer is gone or
// misbehaved" from "nothing happened within the timeout". CommUnsupportedError
// (a RuntimeError) is an operation the group's backend does not have.

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace oneflow {
namespace distributed {

class CommError : public std::runtime_error {
 public:
  explicit CommError(const std::string& what) : std::runtime_error(what) {}
};

class CommTimeoutError : public CommError {
 public:
  explicit CommTimeoutError(const std::string& what) : CommError(what) {}
};

class CommUnsupportedError : public std::runtime_error {
 public:
  explicit CommUnsupportedError(const std::string& what) : std::runtime_error(what) {}
};

// Concatenates its arguments with operator<<, for error messages.
template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

// A duration as the seconds error messages show.
inline double Seconds(std::chrono::milliseconds d) {
  return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_COMM_ERROR_H_
