// Autocast state from Python (oneflow.autocast and oneflow.amp use these):
// per device type enabled / dtype, the weight cast cache and region nesting,
// plus the op policy tables for introspection.

#include <pybind11/stl.h>

#include <string>

#include "core/framework/autocast.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// Autocast is keyed by device type: "cpu" or "cuda" (an index is not allowed,
// as in PyTorch's device_type arguments).
DeviceType ToDeviceType(const std::string& device_type) {
  if (device_type == "cpu") return DeviceType::kCPU;
  if (device_type == "cuda") return DeviceType::kCUDA;
  OF_THROW(RuntimeError, "autocast: unsupported device_type '", device_type,
           "' (expected 'cpu' or 'cuda')");
}

void BindAutocast(py::module_& m) {
  m.def(
      "is_autocast_enabled",
      [](const std::string& device_type) {
        return AutocastState::is_enabled(ToDeviceType(device_type));
      },
      py::arg("device_type"),
      "is_autocast_enabled(device_type) -> bool\n\nWhether autocast is on for the device type.");
  m.def(
      "set_autocast_enabled",
      [](const std::string& device_type, bool enabled) {
        AutocastState::set_enabled(ToDeviceType(device_type), enabled);
      },
      py::arg("device_type"), py::arg("enabled"),
      "set_autocast_enabled(device_type, enabled) -> None\n\nTurns autocast on or off for the "
      "device type on this thread.");
  m.def(
      "get_autocast_dtype",
      [](const std::string& device_type) {
        return DTypeObject(AutocastState::dtype(ToDeviceType(device_type)));
      },
      py::arg("device_type"),
      "get_autocast_dtype(device_type) -> oneflow.dtype\n\nThe lower-precision dtype autocast "
      "uses for the device type.");
  m.def(
      "set_autocast_dtype",
      [](const std::string& device_type, py::handle dtype) {
        AutocastState::set_dtype(ToDeviceType(device_type),
                                 ToDType(dtype, "set_autocast_dtype", "dtype"));
      },
      py::arg("device_type"), py::arg("dtype"),
      "set_autocast_dtype(device_type, dtype) -> None\n\nSets the lower-precision dtype "
      "autocast uses for the device type on this thread.");
  m.def("is_autocast_cache_enabled", &AutocastState::cache_enabled,
        "is_autocast_cache_enabled() -> bool\n\nWhether weight casts are cached in autocast "
        "regions.");
  m.def("set_autocast_cache_enabled", &AutocastState::set_cache_enabled, py::arg("enabled"),
        "set_autocast_cache_enabled(enabled) -> None\n\nTurns the weight cast cache on or off.");
  m.def("autocast_increment_nesting", &AutocastState::increment_nesting,
        "autocast_increment_nesting() -> int\n\nEnters an autocast region; returns the depth.");
  m.def("autocast_decrement_nesting", &AutocastState::decrement_nesting,
        "autocast_decrement_nesting() -> int\n\nLeaves an autocast region; returns the depth.");
  m.def("clear_autocast_cache", &AutocastState::clear_cache,
        "clear_autocast_cache() -> None\n\nDrops the cached weight casts.");
  m.def(
      "_autocast_policy",
      [](const std::string& op_name, const std::string& device_type) {
        return std::string(AutocastPolicyName(
            GetAutocastPolicy(OpRegistry::Get(op_name), ToDeviceType(device_type))));
      },
      py::arg("op_name"), py::arg("device_type"));
  m.def(
      "_autocast_table",
      [](const std::string& device_type) {
        py::list out;
        for (const auto& [name, policy] : AutocastTable(ToDeviceType(device_type))) {
          out.append(py::make_tuple(name, AutocastPolicyName(policy)));
        }
        return out;
      },
      py::arg("device_type"));
}

const BindingRegistrar registrar(25, &BindAutocast);

}  // namespace
}  // namespace oneflow
