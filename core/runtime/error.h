#ifndef CORE_RUNTIME_ERROR_H_
#define CORE_RUNTIME_ERROR_H_

// Errors raised by the runtime. Each class maps to the Python exception of the
// same name (see core/pybind/errors.cc), so a bad argument anywhere in C++
// reaches the user as the exception PyTorch would raise, with a message that
// names the op, the argument and the values involved.

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace oneflow {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class RuntimeError : public Error {
 public:
  using Error::Error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};
class TypeError : public Error {
 public:
  using Error::Error;
};
class IndexError : public Error {
 public:
  using Error::Error;
};
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

// OF_THROW(IndexError, "dim ", d, " out of range") throws IndexError with the
// concatenated message.
#define OF_THROW(kind, ...) throw ::oneflow::kind(::oneflow::StrCat(__VA_ARGS__))

// OF_CHECK(cond, kind, message...) throws `kind` when `cond` is false.
#define OF_CHECK(cond, kind, ...)  \
  do {                             \
    if (!(cond)) {                 \
      OF_THROW(kind, __VA_ARGS__); \
    }                              \
  } while (0)

}  // namespace oneflow

#endif  // CORE_RUNTIME_ERROR_H_
