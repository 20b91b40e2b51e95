#include "runtime/driver.h"

#include <dlfcn.h>

#include "runtime/runtime.h"

namespace weft::runtime {
namespace {

// The errors a running kernel raises (cuda.h numbers): illegal or misaligned address, launch
// timeout, device assert, hardware stack error, illegal instruction, invalid address space,
// invalid program counter, launch failure, contained error, tensor memory leak.
bool isKernelFault(CUresult result) {
  switch (result) {
    case 700: case 702: case 710: case 714: case 715: case 716: case 717: case 718: case 719: case 226: case 721:
      return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<Driver> Driver::open(std::string& reason) {
  // The driver is never unloaded: libcuda keeps process-wide state and unloading it while
  // another library (torch, CuPy) uses it would break that library.
  void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    reason = "the CUDA driver (libcuda.so.1) is not installed";
    return nullptr;
  }
  std::shared_ptr<Driver> driver(new Driver());
  driver->library_ = library;
#define WEFT_DRIVER_FUNCTION(name, params)                                                    \
  driver->table_.name = reinterpret_cast<decltype(driver->table_.name)>(::dlsym(library, #name)); \
  if (!driver->table_.name) {                                                                 \
    reason = "the CUDA driver lacks " #name " (it is older than weft supports)";              \
    return nullptr;                                                                           \
  }
#include "runtime/driver_functions.def"
  const DriverTable& api = driver->table_;
  if (CUresult result = api.cuInit(0); result != 0) {
    reason = "cuInit failed: " + driver->describe(result);
    return nullptr;
  }
  int count = 0;
  if (api.cuDeviceGetCount(&count) != 0 || count == 0) {
    reason = "no CUDA device is visible";
    return nullptr;
  }
  try {
    WEFT_DRIVER_CALL(*driver, "initializing device 0", cuDeviceGet, &driver->device_, 0);
    WEFT_DRIVER_CALL(*driver, "initializing device 0", cuDevicePrimaryCtxRetain, &driver->context_, driver->device_);
    auto attribute = [&](int which) {
      int value = 0;
      WEFT_DRIVER_CALL(*driver, "querying device 0", cuDeviceGetAttribute, &value, which, driver->device_);
      return value;
    };
    driver->architecture_ = attribute(kDeviceComputeCapabilityMajor) * 10 + attribute(kDeviceComputeCapabilityMinor);
    DeviceLimits& limits = driver->limits_;
    limits.maxThreadsPerBlock = static_cast<uint32_t>(attribute(kDeviceMaxThreadsPerBlock));
    for (int i = 0; i < 3; ++i) {
      limits.maxBlock[i] = static_cast<uint32_t>(attribute(kDeviceMaxBlockDimX + i));
      limits.maxGrid[i] = static_cast<uint32_t>(attribute(kDeviceMaxGridDimX + i));
    }
    limits.maxSharedPerBlock = static_cast<uint32_t>(attribute(kDeviceMaxSharedMemoryPerBlockOptin));
    limits.clusters = driver->architecture_ >= 90;
  } catch (const CudaError& error) {
    reason = error.what();
    return nullptr;
  }
  return driver;
}

Driver::~Driver() {
  // Errors are ignored: at interpreter exit the driver may already be shut down.
  if (context_) table_.cuDevicePrimaryCtxRelease_v2(device_);
}

std::string Driver::describe(CUresult result) const {
  const char* name = nullptr;
  const char* description = nullptr;
  if (table_.cuGetErrorName(result, &name) != 0 || !name) name = "CUDA_ERROR_UNKNOWN";
  if (table_.cuGetErrorString(result, &description) != 0 || !description) description = "no description";
  return std::string(name) + " (" + description + ")";
}

void Driver::check(CUresult result, std::string_view call, std::string_view subject) const {
  if (result == 0) return;
  std::string message = std::string(subject) + ": " + std::string(call) + " failed: " + describe(result);
  // Launches are asynchronous: a fault inside a kernel is reported by whichever call comes
  // next (and, the context being poisoned, by every later one), so name the kernel most
  // likely at fault.
  if (const std::string* kernel = lastKernel_.load(std::memory_order_relaxed); kernel && isKernelFault(result))
    message += " (the last kernel launched was '" + *kernel + "'; an error inside it is reported here)";
  throw CudaError(message, result);
}

void Driver::makeCurrent() const {
  CUcontext current = nullptr;
  if (table_.cuCtxGetCurrent(&current) == 0 && current == context_) return;
  WEFT_DRIVER_CALL(*this, "making device 0 current", cuCtxSetCurrent, context_);
}

}  // namespace weft::runtime
