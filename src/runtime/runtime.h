// Entry points of the runtime: the Compiler (front end once, then one lowering per target,
// with memory and disk caches), loaded kernels, argument packing and launch on the GPU
// (driver API, loaded at run time) and on the CPU (block runner).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "sema/sema.h"
#include "support/diagnostics.h"
#include "syntax/parse_cache.h"
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

// A CPU-target launch stopped because the runtime's interrupt check asked it to
// (Compiler::setInterruptCheck); the check's own error (Python's KeyboardInterrupt) is pending.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

// What a run-time check of a checked kernel found (docs/debugging.md); Python receives it as
// the exception its kind names.
class KernelCheckError : public std::runtime_error {
 public:
  // IndexError, ZeroDivisionError, AssertionError, ValueError (a view's precondition).
  enum class Kind : uint8_t { Index, ZeroDivision, Assertion, Value };
  KernelCheckError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

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

// The launch facts (weft/tiles/span_facts.h's span_fact bits) that hold of `array`: the one
// rule, read by the dispatcher's specialization key and checked by argument packing. An array
// of struct elements has none.
unsigned arrayFacts(const ArrayValue& array);
// The facts of `missing` as words for messages ("16-byte aligned data, unit inner stride").
std::string describeFacts(unsigned missing);

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
  // A tile kernel's launch gives no block (all zero): the kernel's tile block decides it.
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  // A tile kernel's pipelined K loops (TypedProgram::tileSharedBytes): dynamic shared memory on
  // top of sharedBytes, as much of it as the device has; the kernel checks what it got.
  uint32_t tileSharedBytes = 0;
  uintptr_t stream = 0;  // CUstream; 0 is the default stream
  // Thread block cluster dimensions (compute capability 9.0+); all zero: no cluster. Each must
  // divide the grid's, with at most 8 blocks in all. The GPU launches a config with a cluster
  // through cuLaunchKernelEx; the CPU target, where blocks share nothing, validates and ignores it.
  std::array<uint32_t, 3> cluster{0, 0, 0};
};

// A kernel ready to launch on one target.
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  // Packs `arguments` as the kernel's parameters (`parameterTypes`) and launches. GPU: async
  // on the stream, unless the kernel is checked. CPU: runs the grid to completion. A checked
  // kernel's failed run-time check throws KernelCheckError.
  virtual void launch(const LaunchConfig& config, const std::vector<ArgumentValue>& arguments) = 0;
  virtual Target target() const = 0;
  // Whether launch() returns only when the kernel has completed (the CPU target, and a checked
  // kernel on the GPU, which synchronizes to read its error record): callers drop the GIL.
  virtual bool waitsForCompletion() const = 0;
};

// Where array accesses are bounds-checked (docs/debugging.md): by default on the CPU target
// only, where an access out of bounds would corrupt the Python process; or everywhere; or
// nowhere (the CPU target's fastest code). debug=True checks everywhere regardless.
enum class BoundsCheck : uint8_t { CpuOnly, Always, Never };

struct CompilerOptions {
  bool debug = false;
  bool fastMath = false;
  BoundsCheck boundsCheck = BoundsCheck::CpuOnly;
  int pipelineStages = 0;  // a tile kernel's stages option: sema::CheckRequest::pipelineStages
};

// The options a kernel compiles with: its decorator's (`boundsCheck` nullopt: the default),
// except that WEFT_DEBUG and WEFT_BOUNDSCHECK, when set, decide for every kernel ("1" or "0";
// another value throws std::invalid_argument naming the variable). Read once per kernel, when
// it is decorated; the options are part of every cache key.
CompilerOptions kernelOptions(bool debug, bool fastMath, std::optional<bool> boundsCheck);

// The hash of weft's headers in `directory` that every cache key includes (of their contents),
// which the disk cache `cache` remembers under the directory's fingerprint (directoryFingerprint),
// so that a process that finds the headers as an earlier one left them reads one small entry
// instead of every header (issue 9: 0.7 ms of each warm first call).
std::string headersHash(const std::string& directory, const backend::DiskCache& cache);

// Whether code lowered for `target` runs its checks and reports failures through the error
// record: debug=True, or bounds checks on `target`. The one place this is decided.
bool runsChecks(const CompilerOptions& options, Target target);

// The front end's result for one specialization.
struct FrontEndResult {
  bool ok = false;
  DiagnosticReport diagnostics;  // sema's diagnostics (errors make ok false)
  // A failed WEFT_CHECK: a bug in weft, not in the program; its message (empty otherwise).
  std::string internalError;
  codegen::EmittedUnit unit;
  std::string kernelName;                          // the kernel's Python name, for messages
  std::vector<const types::Type*> parameterTypes;  // the kernel's C++ parameters, in order
  std::vector<std::string> parameterNames;         // their Python names, for launch errors
  std::vector<int> argumentToParam;                // see TypedProgram::argumentToParam
  std::vector<sema::GlobalDependency> globals;
  uint64_t localArrayBytes = 0;  // see TypedProgram::localArrayBytes
  int tileThreads = 0;           // see TypedProgram::tileBlock
  uint32_t tileSharedBytes = 0;  // see TypedProgram::tileSharedBytes
};

class CompilerState;
class Driver;
class KernelCode;

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
  // Lowers and loads for `target` (disk cache first) the specialization `frontEnd` describes.
  // Specializations whose generated code is the same share the loaded code (memory cache), each
  // with its own parameters and check sites. Throws CudaError on failure.
  std::shared_ptr<LoadedKernel> load(const FrontEndResult& frontEnd, Target target, const CompilerOptions& options);
  // Whether a CUDA device is usable (driver loads, at least one device).
  bool gpuAvailable();
  // What identifies this build of weft in disk cache keys: its version, the contents of its
  // headers (headersHash) and what the file system says of its library (a rebuilt library is
  // another build even where neither changed). Computed once per process.
  const std::string& buildIdentity();
  // The disk cache, for the bindings' front-end records (src/python/front_end_records.h).
  const backend::DiskCache& diskCache() const { return cache_; }
  // Sets what a CPU-target launch polls about every 20 ms on the launching thread while it
  // runs: returning true stops the launch, which throws Interrupted. Set before launching.
  void setInterruptCheck(std::function<bool()> check);
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
  // The classic front's host API (python/weft/_cuda_host.py; implemented in host_api.cpp). Each
  // throws CudaError naming the failing call, as the device memory calls above do.
  // Allocates `bytes` (at least 1) of page-locked host memory, mapped into the device's address
  // space when `mapped`, and returns its host address.
  uintptr_t allocateHost(size_t bytes, bool mapped);
  // Frees memory from allocateHost(); 0 is ignored.
  void freeHost(uintptr_t address);
  // The device address of mapped page-locked host memory.
  uintptr_t mappedDeviceAddress(uintptr_t hostAddress);
  // Page-locks `bytes` of existing host memory at `address` (mapped when `mapped`) until
  // unregisterHost(address).
  void registerHost(uintptr_t address, size_t bytes, bool mapped);
  void unregisterHost(uintptr_t address);
  // Copies on `stream` without waiting; the host memory must stay valid until the copy is done.
  void copyToDeviceAsync(uintptr_t destination, const void* source, size_t bytes, uintptr_t stream);
  void copyToHostAsync(void* destination, uintptr_t source, size_t bytes, uintptr_t stream);
  // A new stream that waits for the legacy default stream as numba's streams do; destroyStream
  // releases it once its work is done.
  uintptr_t createStream();
  void destroyStream(uintptr_t stream);
  // Whether all work queued on `stream` has completed.
  bool streamDone(uintptr_t stream);
  // Makes `stream`'s later work wait for `event`.
  void streamWaitEvent(uintptr_t stream, uintptr_t event);
  // A new event (recording timing when `timing`); destroyEvent releases it.
  uintptr_t createEvent(bool timing);
  void destroyEvent(uintptr_t event);
  void recordEvent(uintptr_t event, uintptr_t stream);
  void synchronizeEvent(uintptr_t event);
  // Whether the work before the event's last record has completed.
  bool eventDone(uintptr_t event);
  // Milliseconds between two recorded, completed timing events.
  float elapsedMilliseconds(uintptr_t start, uintptr_t end);
  // The current device's name, a driver attribute (cuda.h's CU_DEVICE_ATTRIBUTE_* number) and
  // its (free, total) memory in bytes.
  std::string deviceName();
  int deviceAttribute(int attribute);
  std::pair<size_t, size_t> memoryInfo();
  types::TypeContext& types() { return types_; }
  // The files this process parsed, shared by every program of the front end (and by
  // sema::describeParameters and friends when the caller passes it).
  syntax::ParseCache& parses() { return parses_; }
  const backend::Toolchain& toolchain() const { return toolchain_; }

 private:
  // Compiles (or finds in the disk cache) and loads the CPU target's shared object;
  // `readsRecord`: its launches read back its error record.
  std::shared_ptr<KernelCode> loadHostCode(const FrontEndResult& frontEnd, const std::string& key,
                                           const backend::CompileOptions& options, bool readsRecord);
  std::mutex mutex_;  // guards types_ (the front end)
  types::TypeContext types_;
  syntax::ParseCache parses_;
  backend::Toolchain toolchain_;
  backend::DiskCache cache_;
  std::unique_ptr<CompilerState> state_;  // driver, loaded kernels, CPU runner (compiler.cpp)
  // The driver, current on the calling thread; throws CudaError without a GPU.
  std::shared_ptr<Driver> currentDriver();
};

}  // namespace weft::runtime
