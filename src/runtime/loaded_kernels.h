// The two LoadedKernel implementations (GPU module function, CPU shared object) and the launch
// checks they share. Private to the runtime.
#pragma once

#include <memory>
#include <string>

#include <weft/device/error_record.h>

#include "runtime/cpu_runner.h"
#include "runtime/driver.h"
#include "runtime/runtime.h"

namespace weft::runtime {

// Throws LaunchError(Value) when the grid, block or shared memory of `config` exceed
// `limits`; `maxThreads` is the kernel's own limit (registers can lower it below the
// device's), `staticShared` the bytes its shared_arrays take.
void validateLaunch(const std::string& kernelName, const LaunchConfig& config, const DeviceLimits& limits,
                    uint32_t maxThreads, uint64_t staticShared);

// Loads `cubin` as a module on the driver's device and finds the unit's kernel in it.
// `checked`: the unit runs its checks (runsChecks), so a launch resets and reads back its error
// record.
std::shared_ptr<LoadedKernel> loadGpuKernel(std::shared_ptr<Driver> driver, const std::string& cubin,
                                            const FrontEndResult& frontEnd, bool checked);

// Loads the shared object whose bytes are `image` and finds the unit's host entry (and its
// error record when `checked`); nullptr with `error` set when it cannot be loaded or lacks them.
// `flushSubnormals`: the kernel's threads flush subnormals to zero (fastmath=True). Loading leaves
// the calling thread's floating-point control as it was.
std::shared_ptr<LoadedKernel> loadCpuKernel(std::shared_ptr<BlockRunner> runner, const std::string& image,
                                            const FrontEndResult& frontEnd, bool checked,
                                            bool flushSubnormals, std::string& error);

// The exception for the failure an error record holds after a launch of kernel `kernelName`,
// whose unit's check sites are `sites` (include/weft/device/error_record.h).
KernelCheckError checkFailure(const std::string& kernelName,
                              const std::vector<codegen::EmittedUnit::CheckSite>& sites,
                              const ErrorRecord& record);

}  // namespace weft::runtime
