#ifndef CORE_FRAMEWORK_GRAD_MODE_H_
#define CORE_FRAMEWORK_GRAD_MODE_H_

namespace oneflow {

// Whether ops record the autograd graph on this thread (torch.is_grad_enabled).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope and restores the previous mode.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : previous_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~GradModeGuard() { GradMode::set_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_GRAD_MODE_H_
