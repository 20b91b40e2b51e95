// Kernels' code on the GPU: a cubin loaded as a module, launched through the driver API. Checked
// code (runsChecks) resets its module's error record before each launch and reads it back after,
// on the launch's stream; its launches are therefore synchronous, and one at a time.
#include <algorithm>
#include <mutex>

#include "runtime/argument_packing.h"
#include "runtime/loaded_kernels.h"
#include "runtime/tensor_maps.h"
#include "support/check.h"

namespace weft::runtime {
namespace {

// Shared memory a block may use without opting in (every architecture since Volta).
constexpr uint64_t kDefaultSharedLimit = 48 * 1024;
constexpr CUresult kCudaErrorNotFound = 500;

class GpuCode final : public KernelCode {
 public:
  // `frontEnd` names the function in the driver's messages: the code is that function.
  GpuCode(std::shared_ptr<Driver> driver, std::shared_ptr<TensorMapCache> tensorMaps,
          const FrontEndResult& frontEnd)
      : driver_(std::move(driver)),
        tensorMapCache_(std::move(tensorMaps)),
        tensorMaps_(frontEnd.unit.tensorMaps),
        name_(frontEnd.kernelName.empty() ? frontEnd.unit.kernelSymbol : frontEnd.kernelName),
        subject_("kernel '" + name_ + "'") {}

  ~GpuCode() override {
    driver_->forgetLaunch(&name_);
    if (!module_) return;
    // Errors are ignored: at interpreter exit the driver may already be shut down.
    try {
      driver_->makeCurrent();
    } catch (const CudaError&) {
      return;
    }
    driver_->api().cuModuleUnload(module_);
  }

  void load(const std::string& cubin, const std::string& symbol, bool checked) {
    driver_->makeCurrent();
    WEFT_DRIVER_CALL(*driver_, subject_, cuModuleLoadData, &module_, cubin.data());
    WEFT_DRIVER_CALL(*driver_, subject_, cuModuleGetFunction, &function_, module_, symbol.c_str());
    if (checked) {
      size_t bytes = 0;
      CUresult found = driver_->api().cuModuleGetGlobal_v2(&record_, &bytes, module_, "weft_error_record");
      // NVRTC drops the record when no check can fail (none survived optimization): then the
      // launch has nothing to read back.
      if (found == kCudaErrorNotFound) {
        record_ = 0;
      } else {
        driver_->check(found, "cuModuleGetGlobal_v2", subject_);
        WEFT_CHECK(bytes == sizeof(ErrorRecord), "the error record of " + subject_ + " has " +
                                                     std::to_string(bytes) + " bytes, not " +
                                                     std::to_string(sizeof(ErrorRecord)));
      }
    }
    int value = 0;
    WEFT_DRIVER_CALL(*driver_, subject_, cuFuncGetAttribute, &value, kFunctionMaxThreadsPerBlock, function_);
    maxThreads_ = static_cast<uint32_t>(value);
    WEFT_DRIVER_CALL(*driver_, subject_, cuFuncGetAttribute, &value, kFunctionSharedSizeBytes, function_);
    staticShared_ = static_cast<uint64_t>(value);
    dynamicSharedLimit_ = staticShared_ < kDefaultSharedLimit ? kDefaultSharedLimit - staticShared_ : 0;
  }

  ErrorRecord launch(const std::string& name, const ParameterLayout& layout, const LaunchConfig& config,
                     const std::vector<ArgumentValue>& arguments) override {
    validateLaunch(name, config, driver_->limits(), maxThreads_, staticShared_);
    PackedArguments packed(layout, arguments);
    // A kernel with tensor maps takes them, and the mask of those that are valid, after its own
    // parameters; a map that cannot be encoded is zero and its bit clear (the kernel's fallback).
    TensorMapParameters maps;
    std::vector<void*> withMaps;
    void** parameters = packed.pointers();
    if (!tensorMaps_.empty()) {
      maps = encodeTensorMaps(*tensorMapCache_, tensorMaps_, layout, arguments);
      withMaps.assign(parameters, parameters + layout.count());
      for (CUtensorMap& map : maps.maps) withMaps.push_back(&map);
      withMaps.push_back(&maps.mask);
      parameters = withMaps.data();
    }
    driver_->makeCurrent();
    const uint32_t shared = config.sharedBytes + tileSharedBytes(config);
    if (shared > dynamicSharedLimit_) raiseDynamicSharedLimit(shared);
    auto stream = reinterpret_cast<CUstream>(config.stream);
    auto start = [&] {
      driver_->noteLaunch(&name_);
      if (config.cluster == std::array<uint32_t, 3>{0, 0, 0}) {
        WEFT_DRIVER_CALL(*driver_, subject_, cuLaunchKernel, function_, config.grid[0], config.grid[1],
                         config.grid[2], config.block[0], config.block[1], config.block[2], shared, stream,
                         parameters, nullptr);
        return;
      }
      CUlaunchAttribute cluster;
      cluster.id = kLaunchAttributeClusterDimension;
      cluster.value.clusterDim = {config.cluster[0], config.cluster[1], config.cluster[2]};
      const CUlaunchConfig launch{
          config.grid[0],  config.grid[1], config.grid[2], config.block[0], config.block[1],
          config.block[2], shared,         stream,         &cluster,        1};
      WEFT_DRIVER_CALL(*driver_, subject_, cuLaunchKernelEx, &launch, function_, parameters, nullptr);
    };
    ErrorRecord result{};
    if (record_ == 0) {
      start();
      return result;
    }
    // One record per module: launches of this code on other streams or threads wait here.
    {
      std::lock_guard<std::mutex> lock(recordMutex_);
      WEFT_DRIVER_CALL(*driver_, subject_, cuMemsetD8Async, record_, 0, sizeof(ErrorRecord), stream);
      start();
      WEFT_DRIVER_CALL(*driver_, subject_, cuMemcpyDtoHAsync_v2, &result, record_, sizeof(ErrorRecord),
                       stream);
      WEFT_DRIVER_CALL(*driver_, subject_, cuStreamSynchronize, stream);
    }
    return result;
  }

  Target target() const override { return Target::Gpu; }
  bool waitsForCompletion() const override { return record_ != 0; }

 private:
  // The part of config.tileSharedBytes the device has room for next to the kernel's static and
  // the launch's dynamic shared memory.
  uint32_t tileSharedBytes(const LaunchConfig& config) const {
    const uint64_t used = staticShared_ + config.sharedBytes, limit = driver_->limits().maxSharedPerBlock;
    return used >= limit ? 0u : static_cast<uint32_t>(std::min<uint64_t>(config.tileSharedBytes, limit - used));
  }

  // Above 48 KiB a kernel must opt in to more dynamic shared memory; validateLaunch already
  // checked the device allows the amount. The limit only grows, so the mutex is rarely taken.
  void raiseDynamicSharedLimit(uint32_t bytes) {
    std::lock_guard<std::mutex> lock(sharedMutex_);
    if (bytes <= dynamicSharedLimit_) return;
    WEFT_DRIVER_CALL(*driver_, subject_, cuFuncSetAttribute, function_, kFunctionMaxDynamicSharedSizeBytes,
                     static_cast<int>(bytes));
    dynamicSharedLimit_ = bytes;
  }

  std::shared_ptr<Driver> driver_;
  std::shared_ptr<TensorMapCache> tensorMapCache_;
  std::vector<codegen::EmittedUnit::TensorMap> tensorMaps_;  // the unit's, after its parameters
  std::string name_;  // for the driver's messages and its note of the last launch
  std::string subject_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  uint32_t maxThreads_ = 1024;
  uint64_t staticShared_ = 0;
  std::mutex sharedMutex_;
  CUdeviceptr record_ = 0;  // the module's weft_error_record; 0 when unchecked
  std::mutex recordMutex_;
  std::atomic<uint64_t> dynamicSharedLimit_{kDefaultSharedLimit};
};

}  // namespace

std::shared_ptr<KernelCode> loadGpuCode(std::shared_ptr<Driver> driver,
                                        std::shared_ptr<TensorMapCache> tensorMaps, const std::string& cubin,
                                        const FrontEndResult& frontEnd, bool checked) {
  auto code = std::make_shared<GpuCode>(std::move(driver), std::move(tensorMaps), frontEnd);
  code->load(cubin, frontEnd.unit.kernelSymbol, checked);
  return code;
}

}  // namespace weft::runtime
