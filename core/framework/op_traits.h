#ifndef CORE_FRAMEWORK_OP_TRAITS_H_
#define CORE_FRAMEWORK_OP_TRAITS_H_

// What an op declares besides its schema, inference, backward and kernels: how
// it runs on global tensors (its SBP rule family), how autocast treats it, and
// the traits graph passes read. All of it is written in the op's declaration
// (ops/defs), so adding an op is one place:
//
//   OF_OP("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
//       .Infer(InferBinaryPromoted)
//       .Backward(AddGrad)
//       .Sbp(sbp::Elementwise("PP"))
//       .Autocast(amp::kNone)
//       .Traits(kElementwise);

#include <cstdint>
#include <string>

namespace oneflow {

// How autocast treats an op's floating inputs (PyTorch's autocast classes).
enum class AutocastPolicy : int8_t { kNone, kLowerPrecision, kFloat32, kPromote, kBanned };

namespace amp {
inline constexpr AutocastPolicy kNone = AutocastPolicy::kNone;             // run as given
inline constexpr AutocastPolicy kLower = AutocastPolicy::kLowerPrecision;  // cast to bf16/f16
inline constexpr AutocastPolicy kFp32 = AutocastPolicy::kFloat32;          // cast up to float32
inline constexpr AutocastPolicy kPromote = AutocastPolicy::kPromote;       // widest floating input
inline constexpr AutocastPolicy kBanned = AutocastPolicy::kBanned;         // refuse under autocast
}  // namespace amp

// The SBP rule of an op: a named family of signatures (elementwise, reduction,
// matmul, ...) with the family's parameters as "key=value" words. The global
// execution layer (oneflow.distributed) implements each family once and reads
// the op's rule from here; an op never appears there by name.
struct SbpRule {
  std::string family;  // empty: not declared
  std::string params;  // "key=value key=value"
  std::string reason;  // why, for broadcast_only and unsupported
};

namespace sbp {
// Elementwise and broadcasting ops: split along any output dimension (inputs of
// size 1 there are broadcast). `partial` lists, as words of one letter per
// tensor input, the partial-sum patterns the op is linear in: "PP" for add,
// "PB BP" for mul (a partial times a broadcast is a partial).
inline SbpRule Elementwise(std::string partial = "") {
  for (char& c : partial) c = c == ' ' ? ',' : c;  // one parameter word: "partial=PB,BP"
  return {"elementwise", partial.empty() ? "" : "partial=" + partial, ""};
}
// Reductions over `dim` (all dims by default): split along kept dims; a linear
// one ("sum", "mean") over a split dim gives a partial sum.
inline SbpRule Reduction(const std::string& linear = "", int nout = 1) {
  std::string p = linear.empty() ? "" : "linear=" + linear;
  if (nout != 1) p += (p.empty() ? "" : " ") + std::string("nout=") + std::to_string(nout);
  return {"reduction", p, ""};
}
// Any other family, by name, with its parameters.
inline SbpRule Family(const std::string& family, const std::string& params = "") {
  return {family, params, ""};
}
// Correct on global tensors only with every input broadcast (whole tensors on
// every rank); `reason` says why no split signature applies.
inline SbpRule BroadcastOnly(const std::string& reason) { return {"broadcast_only", "", reason}; }
// Broadcast-only for now: a split rule could exist but nobody wrote it yet.
// op_info reports it, so the ops still to do are one query away.
inline SbpRule NoSplitRuleYet() {
  return BroadcastOnly("no split rule written yet: runs on whole tensors on every rank");
}
// Refused on global tensors; `reason` says why (as_strided's result depends on
// the local memory layout; the fused multi-tensor optimizer kernels write into
// lists the schema cannot mark).
inline SbpRule Unsupported(const std::string& reason) { return {"unsupported", "", reason}; }
}  // namespace sbp

// Facts graph passes need. kInplace, kMutatesArgs and kView follow from the
// schema and are set by the registry; the others are declared.
enum OpTrait : uint32_t {
  kRandom = 1u << 0,         // draws from a generator: not pure, never folded or deduplicated
  kElementwise = 1u << 1,    // output element i depends on input element i only: fusable
  kFusedEpilogue = 1u << 2,  // a GEMM with bias/activation applied as it writes its output
  kInplace = 1u << 3,        // writes its first argument (schema: Tensor(a!) self)
  kMutatesArgs = 1u << 4,    // writes another argument (running statistics, optimizer state)
  kView = 1u << 5,           // returns a view of an input (schema: -> Tensor(a))
  kCrossDevice = 1u << 6,    // its tensors may live on different devices (copy_ moves data)
};

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_OP_TRAITS_H_
