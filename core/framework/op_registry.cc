#include "core/framework/op_registry.h"

#include <map>
#include <mutex>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

struct Registry {
  std::map<std::string, std::unique_ptr<OpDef>> ops;
  std::vector<const OpDef*> order;
};

Registry& GetRegistry() {
  static auto* r = new Registry();  // never destroyed: ops outlive every static
  return *r;
}

}  // namespace

OpDef& OpDef::Infer(InferFn fn) {
  infer_ = fn;
  return *this;
}
OpDef& OpDef::Composite(CompositeFn fn) {
  composite_ = fn;
  return *this;
}
OpDef& OpDef::Backward(BackwardFn fn) {
  backward_ = fn;
  return *this;
}
OpDef& OpDef::Sbp(SbpFn fn) {
  sbp_ = fn;
  return *this;
}
OpDef& OpDef::NonDifferentiable() {
  differentiable_ = false;
  return *this;
}

void OpDef::SetKernel(DeviceType device, DTypeSet dtypes, KernelFn fn) {
  kernels_[static_cast<int>(device)] = {fn, dtypes};
}

void OpDef::SetSchema(Schema schema) {
  schema_ = std::move(schema);
  declared_ = true;
}

OpDef& OpRegistry::GetOrCreate(const std::string& full_name) {
  auto& r = GetRegistry();
  auto it = r.ops.find(full_name);
  if (it == r.ops.end()) it = r.ops.emplace(full_name, std::make_unique<OpDef>(full_name)).first;
  return *it->second;
}

OpDef& OpRegistry::Declare(std::string_view schema_text) {
  Schema schema = ParseSchema(schema_text);
  OpDef& op = GetOrCreate(schema.full_name());
  OF_CHECK(!op.declared(), RuntimeError, "op '", schema.full_name(), "' is declared twice");
  op.SetSchema(std::move(schema));
  GetRegistry().order.push_back(&op);
  return op;
}

const OpDef& OpRegistry::Get(const std::string& full_name) {
  auto& r = GetRegistry();
  auto it = r.ops.find(full_name);
  OF_CHECK(it != r.ops.end() && it->second->declared(), RuntimeError, "no op named '", full_name,
           "' is declared");
  return *it->second;
}

std::vector<const OpDef*> OpRegistry::All() { return GetRegistry().order; }

std::vector<std::string> OpRegistry::Validate() {
  std::vector<std::string> problems;
  for (const auto& [name, op] : GetRegistry().ops) {
    bool has_kernel = op->kernel(DeviceType::kCPU).fn || op->kernel(DeviceType::kCUDA).fn;
    if (!op->declared()) {
      problems.push_back("kernel registered for undeclared op '" + name + "'");
    } else if (!op->composite() && !has_kernel) {
      problems.push_back("op '" + name + "' has neither a kernel nor a composite definition");
    } else if (!op->composite() && !op->infer()) {
      // Ops without infer allocate their own outputs; that is allowed.
    }
  }
  return problems;
}

}  // namespace oneflow
