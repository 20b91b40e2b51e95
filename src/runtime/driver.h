// The CUDA driver API, loaded at run time, with one checked call path and the current
// device's primary context and limits. Private to the runtime.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace weft::runtime {

// Driver ABI types, declared here so that weft builds without the CUDA headers.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

// CUlaunchAttribute (cuda.h): an attribute number, padding to 8 bytes, a 64-byte value.
struct CUlaunchAttribute {
  int id = 0;
  char pad[4] = {};
  union alignas(8) Value {
    char bytes[64];
    struct {
      unsigned int x, y, z;
    } clusterDim;
  } value{};
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's CUlaunchAttribute is 72 bytes");

// CUlaunchConfig (cuda.h): cuLaunchKernel's arguments plus a list of attributes.
struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
};
static_assert(sizeof(CUlaunchConfig) == 56, "cuda.h's CUlaunchConfig is 56 bytes");

// CUtensorMap (cuda.h): the opaque 128-byte TMA descriptor, which cuTensorMapEncodeTiled wants
// 64-byte aligned (cuda.h aligns it to 128) and a kernel takes as a __grid_constant__ parameter.
struct alignas(128) CUtensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "cuda.h's CUtensorMap is 128 bytes");

// Attribute numbers from the driver API (cuda.h); stable across releases.
enum DriverAttribute : int {
  kDeviceMaxThreadsPerBlock = 1,
  kDeviceMaxBlockDimX = 2,
  kDeviceMaxGridDimX = 5,
  kDeviceComputeCapabilityMajor = 75,
  kDeviceComputeCapabilityMinor = 76,
  kDeviceMaxSharedMemoryPerBlockOptin = 97,
  kFunctionMaxThreadsPerBlock = 0,
  kFunctionSharedSizeBytes = 1,
  kFunctionMaxDynamicSharedSizeBytes = 8,
  kPointerMemoryType = 2,
  kLaunchAttributeClusterDimension = 4,
};

// The driver's entry points, generated from driver_functions.def.
struct DriverTable {
#define WEFT_DRIVER_FUNCTION(name, params) CUresult(*name) params = nullptr;
#include "runtime/driver_functions.def"
};

// Limits of the device that launches are validated against before the driver sees them.
struct DeviceLimits {
  uint32_t maxThreadsPerBlock = 1024;
  std::array<uint32_t, 3> maxBlock{1024, 1024, 64};
  std::array<uint32_t, 3> maxGrid{2147483647u, 65535, 65535};
  uint32_t maxSharedPerBlock = 232448;  // with opt-in
  // Thread block clusters (compute capability 9.0 and later); at most kMaxClusterBlocks each.
  bool clusters = false;
};

// Blocks in a cluster that every device with clusters runs (CUDA's portable cluster size).
inline constexpr uint64_t kMaxClusterBlocks = 8;

// The loaded driver and device 0's primary context. Immutable after open() except for the
// name of the last launched kernel, which asynchronous errors report.
class Driver {
 public:
  // Loads libcuda.so.1 and initializes device 0; nullptr with `reason` set when there is no
  // usable driver or device.
  static std::shared_ptr<Driver> open(std::string& reason);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const DriverTable& api() const { return table_; }
  // Throws CudaError "<subject>: <call> failed: CUDA_ERROR_X (description)" unless `result`
  // is CUDA_SUCCESS. Errors of synchronizing calls also name the last launched kernel.
  void check(CUresult result, std::string_view call, std::string_view subject) const;
  // Makes the primary context current on the calling thread (cheap when it already is).
  void makeCurrent() const;
  // Records the kernel an asynchronous fault would come from; `name` must stay valid until
  // forgetLaunch(name).
  void noteLaunch(const std::string* name) const { lastKernel_.store(name, std::memory_order_relaxed); }
  // Called by a kernel that goes away, so that errors never read its name afterwards.
  void forgetLaunch(const std::string* name) const { lastKernel_.compare_exchange_strong(name, nullptr); }
  // The device whose primary context this is (device 0).
  CUdevice device() const { return device_; }
  int architecture() const { return architecture_; }
  const DeviceLimits& limits() const { return limits_; }

 private:
  Driver() = default;
  std::string describe(CUresult result) const;
  void* library_ = nullptr;
  DriverTable table_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  int architecture_ = 0;
  DeviceLimits limits_;
  mutable std::atomic<const std::string*> lastKernel_{nullptr};
};

// Calls driver function `function` through Driver::check, naming the call.
#define WEFT_DRIVER_CALL(driver, subject, function, ...) \
  (driver).check((driver).api().function(__VA_ARGS__), #function, (subject))

}  // namespace weft::runtime
