#ifndef CORE_FRAMEWORK_GENERATOR_H_
#define CORE_FRAMEWORK_GENERATOR_H_

// Random number generation: the Philox4x32-10 counter-based generator, the
// Generator objects that hold its state (seed and offset), and a sequential
// stream of random words drawn from a reserved range of Philox counters.
//
// Philox4x32-10 follows Salmon, Moraes, Dror and Shaw, "Parallel Random
// Numbers: As Easy as 1, 2, 3" (SC'11): a 128-bit counter and a 64-bit key go
// through ten rounds of multiply-hi/lo, xor and key bumps, giving four
// independent 32-bit words per counter value.
//
// A Generator's state is (seed, offset): the key is the seed, and `offset`
// counts the counter values handed out so far. A kernel that needs random
// words reserves an upper bound of counter values (Generator::Reserve), which
// advances the offset, and then draws from them in the element order of its
// output, so the same state always gives the same values.

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/framework/value.h"
#include "core/runtime/device.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// One Philox4x32 block with ten rounds.
inline PhiloxCounter Philox4x32_10(PhiloxCounter ctr, PhiloxKey key) {
  constexpr uint32_t kMul0 = 0xD2511F53u;
  constexpr uint32_t kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
  }
  return ctr;
}

// Random words from consecutive Philox counters (offset, offset + 1, ...)
// under the key `seed`, four words per counter, in order.
class PhiloxStream {
 public:
  PhiloxStream(uint64_t seed, uint64_t offset)
      : key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}, counter_(offset) {}

  uint32_t Next32() {
    if (pos_ == 4) {
      block_ = Philox4x32_10(
          {static_cast<uint32_t>(counter_), static_cast<uint32_t>(counter_ >> 32), 0u, 0u}, key_);
      ++counter_;
      pos_ = 0;
    }
    return block_[pos_++];
  }
  uint64_t Next64() {
    const uint64_t hi = Next32();
    return (hi << 32) | Next32();
  }
  // Uniform on [0, 1) with `bits` random bits (1..32, one word): k * 2^-bits.
  double Uniform32(int bits) {
    return std::ldexp(static_cast<double>(Next32() >> (32 - bits)), -bits);
  }
  // Uniform on [0, 1) with 53 random bits (two words).
  double Uniform53() { return std::ldexp(static_cast<double>(Next64() >> 11), -53); }
  // Standard normal by the Box-Muller transform; each pair of uniforms gives
  // two values, the second kept for the next call. `precise` draws 53-bit
  // uniforms (two words each) instead of 24-bit ones (one word each).
  double Normal(bool precise) {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = precise ? Uniform53() : Uniform32(24);
    const double u2 = precise ? Uniform53() : Uniform32(24);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 is in (0, 1]
    const double theta = 6.283185307179586476925286766559 * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  PhiloxKey key_;
  uint64_t counter_;
  PhiloxCounter block_{};
  int pos_ = 4;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// A random number generator: a Philox key (the seed) and an offset into its
// counter space. Thread-safe: every access takes its lock.
class Generator {
 public:
  // PyTorch's default seed, so a fresh generator reports the same initial_seed().
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;
  // get_state(): the seed then the offset, each 8 bytes little-endian.
  static constexpr int64_t kStateSize = 16;

  explicit Generator(Device device = Device{}, uint64_t seed = kDefaultSeed)
      : device_(device), seed_(seed) {}

  const Device& device() const { return device_; }
  // Sets the seed and starts its stream from the beginning.
  void ManualSeed(uint64_t seed);
  // Seeds from a non-deterministic source; returns the new seed.
  uint64_t Seed();
  // The seed the current stream started from.
  uint64_t initial_seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // The state as a uint8 CPU tensor of kStateSize bytes.
  TensorImplPtr GetState() const;
  // Restores a state from GetState(). Throws TypeError for a tensor that is
  // not uint8 and RuntimeError for one of the wrong size.
  void SetState(const TensorImplPtr& state);
  // Reserves `counters` Philox counter values (4 words each) and returns a
  // stream over them; the offset moves past them.
  PhiloxStream Reserve(uint64_t counters);

 private:
  mutable std::mutex mu_;
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The default generator of a device type (one per type).
const std::shared_ptr<Generator>& DefaultGenerator(DeviceType type = DeviceType::kCPU);

// The generator an op call uses: its `generator` argument (a Generator or
// None), else the default one of `device`'s type. Throws RuntimeError when the
// generator belongs to another device type.
std::shared_ptr<Generator> GeneratorFor(const Value& arg, const Device& device, const char* op);

// Counter values to reserve for `n` draws of `words_per_draw` words each, with
// room for one extra Box-Muller pair.
inline uint64_t CountersFor(uint64_t n, uint64_t words_per_draw) {
  return (n * words_per_draw + 3) / 4 + 2;
}

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_GENERATOR_H_
