// A specialization's kernel: shared code (KernelCode) bound to what only the specialization
// knows. Two specializations may generate the same code and still differ here: two copies of
// one module (importlib.reload, or the file imported under two names) have distinct struct
// classes of one layout, and an edited assert message or source line changes no code.
#include "runtime/loaded_kernels.h"

namespace weft::runtime {
namespace {

class SpecializedKernel final : public LoadedKernel {
 public:
  SpecializedKernel(std::shared_ptr<KernelCode> code, const FrontEndResult& frontEnd)
      : code_(std::move(code)),
        name_(frontEnd.kernelName.empty() ? frontEnd.unit.kernelSymbol : frontEnd.kernelName),
        layout_(name_, frontEnd),
        checkSites_(frontEnd.unit.checkSites) {}

  void launch(const LaunchConfig& config, const std::vector<ArgumentValue>& arguments) override {
    ErrorRecord record = code_->launch(name_, layout_, config, arguments);
    if (static_cast<CheckKind>(record.kind) != CheckKind::None) throw checkFailure(name_, checkSites_, record);
  }

  Target target() const override { return code_->target(); }
  bool waitsForCompletion() const override { return code_->waitsForCompletion(); }

 private:
  std::shared_ptr<KernelCode> code_;
  std::string name_;
  ParameterLayout layout_;
  std::vector<codegen::EmittedUnit::CheckSite> checkSites_;
};

}  // namespace

std::shared_ptr<LoadedKernel> bindKernel(std::shared_ptr<KernelCode> code, const FrontEndResult& frontEnd) {
  return std::make_shared<SpecializedKernel>(std::move(code), frontEnd);
}

}  // namespace weft::runtime
