// Loaded kernels: the code of a unit on each target (GPU module function, CPU shared object),
// which the Compiler's memory cache shares, bound to one specialization's parameters; and the
// launch checks they share. Private to the runtime.
#pragma once

#include <memory>
#include <string>

#include <weft/device/error_record.h>

#include "runtime/argument_packing.h"
#include "runtime/cpu_runner.h"
#include "runtime/driver.h"
#include "runtime/runtime.h"

namespace weft::runtime {

class TensorMapCache;

// Throws LaunchError(Value) when the grid, block or shared memory of `config` exceed
// `limits`; `maxThreads` is the kernel's own limit (registers can lower it below the
// device's), `staticShared` the bytes its shared_arrays take.
void validateLaunch(const std::string& kernelName, const LaunchConfig& config, const DeviceLimits& limits,
                    uint32_t maxThreads, uint64_t staticShared);

// One unit's code loaded on one target. The Compiler's memory cache shares it among every
// specialization whose generated code is the same, so it keeps only what that code decides;
// what it does not (the struct classes its parameters take, the names in messages, the
// messages of its check sites) belongs to the specialization (bindKernel).
class KernelCode {
 public:
  virtual ~KernelCode() = default;
  // Validates `config` (LaunchError naming kernel `name`), packs `arguments` as `layout` says
  // and launches. Returns the error record as the launch left it: kind None when no check
  // failed (always, for code that runs no checks).
  virtual ErrorRecord launch(const std::string& name, const ParameterLayout& layout,
                             const LaunchConfig& config, const std::vector<ArgumentValue>& arguments) = 0;
  virtual Target target() const = 0;
  // See LoadedKernel::waitsForCompletion.
  virtual bool waitsForCompletion() const = 0;
};

// Loads `cubin` as a module on the driver's device and finds the unit's kernel in it.
// `checked`: the unit runs its checks (runsChecks), so a launch resets and reads back its error
// record. Launches encode the unit's tensor maps through `tensorMaps`.
std::shared_ptr<KernelCode> loadGpuCode(std::shared_ptr<Driver> driver,
                                        std::shared_ptr<TensorMapCache> tensorMaps, const std::string& cubin,
                                        const FrontEndResult& frontEnd, bool checked);

// Loads the shared object whose bytes are `image` and finds the unit's host entry (and its
// error record when `checked`); nullptr with `error` set when it cannot be loaded or lacks them.
// `flushSubnormals`: the kernel's threads flush subnormals to zero (fastmath=True). Loading leaves
// the calling thread's floating-point control as it was.
std::shared_ptr<KernelCode> loadCpuCode(std::shared_ptr<BlockRunner> runner, const std::string& image,
                                        const FrontEndResult& frontEnd, bool checked, bool flushSubnormals,
                                        std::string& error);

// The kernel of the specialization `frontEnd` describes, running `code` (loaded from the same
// unit, perhaps for another specialization): its launches pack and check arguments against its
// own parameters, and report failed checks with its own check sites.
std::shared_ptr<LoadedKernel> bindKernel(std::shared_ptr<KernelCode> code, const FrontEndResult& frontEnd);

// The exception for the failure an error record holds after a launch of kernel `kernelName`,
// whose unit's check sites are `sites` (include/weft/device/error_record.h).
KernelCheckError checkFailure(const std::string& kernelName,
                              const std::vector<codegen::EmittedUnit::CheckSite>& sites,
                              const ErrorRecord& record);

}  // namespace weft::runtime
