// Entry points of the runtime: the Compiler (front end once, then one lowering per target,
// with memory and disk caches), loaded kernels, argument packing and launch on the GPU
// (driver API, loaded at run time) and on the CPU (block runner).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "sema/sema.h"
#include "types/type.h"

namespace weft::runtime {

// A driver API or launch failure; `what()` names the kernel and the failing call.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Bad launch arguments (count, types, shapes); becomes TypeError/ValueError in Python.
class LaunchError : public std::invalid_argument {
 public:
  enum class Kind { Type, Value };
  LaunchError(Kind kind, const std::string& message) : std::invalid_argument(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

enum class Target : uint8_t { Gpu, Cpu };

// A strided array handed to a kernel: the data pointer (device memory for the GPU target,
// host memory for the CPU target), shape, and strides counted in elements.
struct ArrayValue {
  void* data = nullptr;
  types::ScalarKind dtype = types::ScalarKind::Float32;
  int ndim = 0;
  std::array<int64_t, 8> shape{};
  std::array<int64_t, 8> strides{};
  // Elements that are structs (a NumPy structured dtype): their definition (`dtype` is then
  // meaningless), and the bytes of one element.
  std::shared_ptr<sema::StructSource> elementStruct;
  int64_t itemSize = 0;
};

// One launch argument as the runtime receives it.
struct ArgumentValue {
  // Aggregate: a tuple (`structSource` null) or a @struct instance; `members` in order.
  // None: Python's None (NoneType's only value).
  enum class Kind : uint8_t { Scalar, Array, Aggregate, None } kind = Kind::Scalar;
  types::ScalarKind scalar = types::ScalarKind::Int32;  // Scalar: the value's kind
  int64_t intValue = 0;    // Scalar integers and bool
  double floatValue = 0;   // Scalar floating; complex: real part
  double imagValue = 0;
  ArrayValue array;
  std::vector<ArgumentValue> members;                // Aggregate
  std::shared_ptr<sema::StructSource> structSource;  // Aggregate: the struct class
  bool vector = false;  // Aggregate: a host vector (weft.float32x4(...)) of `members`, each of kind `scalar`
  // An Aggregate with no `members` whose `array.data` is set is a NumPy record (numpy.void) of
  // `structSource`: its `array.itemSize` bytes there, kept alive by the caller during the launch.
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  uintptr_t stream = 0;  // CUstream; 0 is the default stream
};

// A kernel ready to launch on one target.
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  // Packs `arguments` as the kernel's parameters (`parameterTypes`) and launches. GPU: async
  // on the stream. CPU: runs the grid to completion.
  virtual void launch(const LaunchConfig& config, const std::vector<ArgumentValue>& arguments) = 0;
  virtual Target target() const = 0;
};

struct CompilerOptions {
  bool debug = false;
  bool fastMath = false;
};

// The front end's result for one specialization.
struct FrontEndResult {
  bool ok = false;
  std::string diagnostics;  // rendered diagnostics (errors make ok false)
  bool internalError = false;  // the failure is a weft bug (a failed WEFT_CHECK), not the program's
  codegen::EmittedUnit unit;
  std::string kernelName;                          // the kernel's Python name, for messages
  std::vector<const types::Type*> parameterTypes;  // the kernel's C++ parameters, in order
  std::vector<std::string> parameterNames;         // their Python names, for launch errors
  std::vector<int> argumentToParam;                // see TypedProgram::argumentToParam
  std::vector<sema::GlobalDependency> globals;
  bool usesBarrier = false;
};

class CompilerState;

// Owns the caches and options of one Python process (or one weftc run). Thread safe.
class Compiler {
 public:
  explicit Compiler(std::string weftIncludeDir);
  // Unloads modules and joins the CPU runner's threads; kernels still held elsewhere stay valid.
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;
  // Runs sema and codegen once for the request.
  FrontEndResult compileFrontEnd(const sema::CheckRequest& request, const CompilerOptions& options);
  // Lowers and loads for `target` (disk cache first). Throws CudaError on failure.
  std::shared_ptr<LoadedKernel> load(const FrontEndResult& frontEnd, Target target, const CompilerOptions& options);
  // Whether a CUDA device is usable (driver loads, at least one device).
  bool gpuAvailable();
  // The current device's compute capability as XY (e.g. 90); throws CudaError without a GPU.
  int gpuArchitecture();

  // Device memory of the current device (for weft.DeviceArray). Each throws CudaError naming
  // the failing call; an earlier kernel's asynchronous fault surfaces here, naming that kernel.
  // Allocates `bytes` of device memory (at least 1) and returns its address.
  uintptr_t allocate(size_t bytes);
  // Frees memory from allocate(); 0 is ignored.
  void free(uintptr_t address);
  // Copies `bytes` from host memory to device memory (synchronous).
  void copyToDevice(uintptr_t destination, const void* source, size_t bytes);
  // Copies `bytes` from device memory to host memory (synchronous).
  void copyToHost(void* destination, uintptr_t source, size_t bytes);
  // Copies `bytes` between two device buffers.
  void copyOnDevice(uintptr_t destination, uintptr_t source, size_t bytes);
  // Sets `bytes` of device memory to the byte `value`.
  void memset(uintptr_t destination, uint8_t value, size_t bytes);
  // Waits for the stream (0: the whole device, as cuCtxSynchronize).
  void synchronize(uintptr_t stream);
  // Whether `address` is device memory (or managed memory) of the driver; false without a GPU.
  bool isDevicePointer(uintptr_t address);
  types::TypeContext& types() { return types_; }
  const backend::Toolchain& toolchain() const { return toolchain_; }

 private:
  // Compiles (or finds in the disk cache) and loads the CPU target's shared object.
  std::shared_ptr<LoadedKernel> loadHostKernel(const FrontEndResult& frontEnd, const std::string& key,
                                               const backend::CompileOptions& options);
  std::mutex mutex_;  // guards types_ (the front end)
  types::TypeContext types_;
  backend::Toolchain toolchain_;
  backend::DiskCache cache_;
  std::unique_ptr<CompilerState> state_;  // driver, loaded kernels, CPU runner (compiler.cpp)
};

}  // namespace weft::runtime
