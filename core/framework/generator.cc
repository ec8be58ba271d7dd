#include "core/framework/generator.h"

#include <chrono>
#include <limits>
#include <random>

#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace oneflow {

// ---- Generator ---------------------------------------------------------------

void Generator::ManualSeed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::Seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  s ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  s &= (uint64_t{1} << 53) - 1;  // exact as a double, like PyTorch's seeds
  ManualSeed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mu_);
  return offset_;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  offset_ = offset;
}

TensorImplPtr Generator::GetState() const {
  auto t = TensorImpl::Empty({kStateSize}, DType::kUInt8, Device{});
  uint8_t* p = reinterpret_cast<uint8_t*>(t->data());
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < 8; ++i) {
    p[i] = static_cast<uint8_t>(seed_ >> (8 * i));
    p[8 + i] = static_cast<uint8_t>(offset_ >> (8 * i));
  }
  return t;
}

void Generator::SetState(const TensorImplPtr& state) {
  OF_CHECK(state != nullptr, TypeError, "expected a oneflow.ByteTensor, but got None");
  OF_CHECK(state->dtype() == DType::kUInt8, TypeError,
           "RNG state must be a oneflow.ByteTensor (uint8), got dtype oneflow.",
           DTypeName(state->dtype()));
  OF_CHECK(state->device().type == DeviceType::kCPU, RuntimeError,
           "RNG state must be a CPU tensor, got one on ", state->device().ToString());
  OF_CHECK(state->numel() == kStateSize, RuntimeError, "Expected a Philox generator state of size ",
           kStateSize, " but found the input RNG state size to be ", state->numel());
  TensorImplPtr c = Contiguous(state);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(c->data());
  uint64_t seed = 0, offset = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= static_cast<uint64_t>(p[i]) << (8 * i);
    offset |= static_cast<uint64_t>(p[8 + i]) << (8 * i);
  }
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = offset;
}

PhiloxStream Generator::Reserve(uint64_t counters) {
  std::lock_guard<std::mutex> lock(mu_);
  PhiloxStream stream(seed_, offset_);
  offset_ += counters;
  return stream;
}

const std::shared_ptr<Generator>& DefaultGenerator(DeviceType type) {
  // Never destroyed: Python objects may hold them until the interpreter exits.
  static const auto* cpu = new std::shared_ptr<Generator>(std::make_shared<Generator>());
  static const auto* cuda =
      new std::shared_ptr<Generator>(std::make_shared<Generator>(Device{DeviceType::kCUDA, -1}));
  return type == DeviceType::kCUDA ? *cuda : *cpu;
}

std::shared_ptr<Generator> GeneratorFor(const Value& arg, const Device& device, const char* op) {
  if (arg.is_none()) return DefaultGenerator(device.type);
  const std::shared_ptr<Generator>& g = arg.generator();
  OF_CHECK(g != nullptr, RuntimeError, op, "(): the generator is null");
  OF_CHECK(g->device().type == device.type, RuntimeError, op, "(): Expected a '",
           device.type_name(), "' device type for generator but found '", g->device().type_name(),
           "'");
  return g;
}

}  // namespace oneflow
