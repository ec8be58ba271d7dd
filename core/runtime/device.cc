#include "core/runtime/device.h"

#include <cctype>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

constexpr const char* kKnownTypes = "cpu, cuda";

bool ParseType(std::string_view name, DeviceType* out) {
  if (name == "cpu") {
    *out = DeviceType::kCPU;
  } else if (name == "cuda") {
    *out = DeviceType::kCUDA;
  } else {
    return false;
  }
  return true;
}

}  // namespace

Device Device::Make(std::string_view type, int index) {
  Device d;
  OF_CHECK(ParseType(type, &d.type), RuntimeError, "Expected one of ", kKnownTypes,
           " device type at start of device string: ", type);
  OF_CHECK(index >= -1, RuntimeError, "Device index must not be negative, got ", index);
  d.index = index;
  return d;
}

Device Device::Parse(std::string_view spec) {
  size_t colon = spec.find(':');
  std::string_view type = spec.substr(0, colon);
  Device d;
  OF_CHECK(ParseType(type, &d.type), RuntimeError, "Expected one of ", kKnownTypes,
           " device type at start of device string: ", spec);
  if (colon == std::string_view::npos) return d;
  std::string_view index = spec.substr(colon + 1);
  bool digits = !index.empty() && index.size() <= 9;
  for (char c : index) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  OF_CHECK(digits && (index.size() == 1 || index[0] != '0'), RuntimeError,
           "Invalid device string: '", spec, "'");
  d.index = std::stoi(std::string(index));
  return d;
}

const char* Device::type_name() const { return type == DeviceType::kCPU ? "cpu" : "cuda"; }

std::string Device::ToString() const {
  std::string s = type_name();
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace oneflow
