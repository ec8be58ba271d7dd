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
OpDef& OpDef::Sbp(SbpRule rule) {
  sbp_rule_ = std::move(rule);
  return *this;
}
OpDef& OpDef::Autocast(AutocastPolicy cpu, AutocastPolicy cuda) {
  autocast_[static_cast<int>(DeviceType::kCPU)] = cpu;
  autocast_[static_cast<int>(DeviceType::kCUDA)] = cuda;
  autocast_declared_ = true;
  return *this;
}
OpDef& OpDef::Traits(uint32_t traits) {
  traits_ |= traits;
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
  if (schema_.is_inplace()) traits_ |= kInplace;
  if (schema_.is_view()) traits_ |= kView;
  for (size_t i = schema_.is_inplace() ? 1 : 0; i < schema_.args.size(); ++i) {
    if (schema_.args[i].mutated) traits_ |= kMutatesArgs;
  }
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
    }
    if (op->declared() && op->sbp_rule().family.empty()) {
      problems.push_back("op '" + name + "' declares no SBP rule (.Sbp(...))");
    }
    if (op->declared() && !op->autocast_declared()) {
      problems.push_back("op '" + name + "' declares no autocast class (.Autocast(...))");
    }
  }
  return problems;
}

}  // namespace oneflow
