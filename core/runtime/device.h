#ifndef CORE_RUNTIME_DEVICE_H_
#define CORE_RUNTIME_DEVICE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace oneflow {

enum class DeviceType : int8_t { kCPU = 0, kCUDA = 1 };

// A device as PyTorch names it: a type and an optional index (-1 = none given).
struct Device {
  DeviceType type = DeviceType::kCPU;
  int index = -1;

  // Parses "cpu", "cuda", "cuda:1", "cpu:0". Throws RuntimeError on anything else.
  static Device Parse(std::string_view spec);
  // Builds a device from a type name and index; throws RuntimeError on a bad type
  // or a negative index.
  static Device Make(std::string_view type, int index);

  const char* type_name() const;
  // "cpu", "cuda", "cuda:1" (PyTorch's str(device)).
  std::string ToString() const;
  bool operator==(const Device& other) const { return type == other.type && index == other.index; }
  bool operator!=(const Device& other) const { return !(*this == other); }
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_DEVICE_H_
