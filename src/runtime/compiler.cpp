// The Compiler's lowering half: cache keys, the disk and memory caches, loading for each
// target, and device memory for weft.DeviceArray.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "runtime/cpu_runner.h"
#include "runtime/driver.h"
#include "runtime/loaded_kernels.h"
#include "runtime/runtime.h"
#include "runtime/tensor_maps.h"
#include "support/check.h"
#include "support/hash.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "dev"
#endif

namespace weft::runtime {

// Everything the Compiler creates lazily: probing the driver or NVRTC costs milliseconds and
// the runner's threads are only wanted by CPU launches. Guarded by `mutex`.
class CompilerState {
 public:
  ~CompilerState() {
    code.clear();
    if (!temporaryDirectory.empty()) ::rmdir(temporaryDirectory.c_str());
  }
  std::mutex mutex;
  bool driverProbed = false;
  std::shared_ptr<Driver> driver;
  std::string driverProblem;
  std::shared_ptr<TensorMapCache> tensorMaps;  // made with the driver: every GPU kernel's maps
  std::shared_ptr<BlockRunner> runner;
  InterruptCheck interruptCheck;             // given to the runner when it is made
  std::optional<std::string> nvrtcIdentity;  // identifies the toolkit in cache keys
  std::optional<std::string> headersHash;
  std::optional<std::string> buildIdentity;
  std::string temporaryDirectory;  // where the host compiler writes shared objects
  // Loaded code by cache key: specializations that generate the same unit share it (bindKernel).
  std::unordered_map<std::string, std::shared_ptr<KernelCode>> code;
};

namespace {

constexpr int kCudaErrorNoDevice = 100;

std::shared_ptr<Driver> requireDriver(CompilerState& state) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.driverProbed) {
    state.driver = Driver::open(state.driverProblem);
    if (state.driver)
      state.tensorMaps = std::make_shared<TensorMapCache>(state.driver->api().cuTensorMapEncodeTiled);
    state.driverProbed = true;
  }
  if (!state.driver) throw CudaError("no CUDA GPU is available: " + state.driverProblem, kCudaErrorNoDevice);
  return state.driver;
}

// The hash of weft's headers (runtime::headersHash), once per process; `state.mutex` held.
const std::string& headersHashOnce(CompilerState& state, const backend::Toolchain& toolchain,
                                   const backend::DiskCache& cache) {
  if (!state.headersHash) state.headersHash = headersHash(toolchain.weftIncludeDir + "/weft", cache);
  return *state.headersHash;
}

// What the file system says of the file holding this code (the extension module, or weftc): its
// path, size, device, inode, modification and change times, as directoryFingerprint hashes a header.
std::string libraryFingerprint() {
  Dl_info info{};
  struct stat status {};
  if (::dladdr(reinterpret_cast<void*>(&libraryFingerprint), &info) == 0 || info.dli_fname == nullptr ||
      ::stat(info.dli_fname, &status) != 0)
    return "unknown";
  return ContentHash()
      .add(info.dli_fname)
      .add(static_cast<uint64_t>(status.st_size))
      .add(static_cast<uint64_t>(status.st_dev))
      .add(static_cast<uint64_t>(status.st_ino))
      .add(static_cast<uint64_t>(status.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(status.st_mtim.tv_nsec))
      .add(static_cast<uint64_t>(status.st_ctim.tv_sec) * 1000000000ull + static_cast<uint64_t>(status.st_ctim.tv_nsec))
      .hex();
}

std::string kernelName(const FrontEndResult& frontEnd) {
  return frontEnd.kernelName.empty() ? frontEnd.unit.kernelSymbol : frontEnd.kernelName;
}

// A switch of weft's environment: "1" true, "0" false, unset or empty nullopt.
std::optional<bool> environmentSwitch(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  if (std::string_view(value) == "1") return true;
  if (std::string_view(value) == "0") return false;
  throw std::invalid_argument(std::string(name) + " must be 1 or 0 (or unset), not '" + value + "'");
}

}  // namespace

CompilerOptions kernelOptions(bool debug, bool fastMath, std::optional<bool> boundsCheck) {
  CompilerOptions options;
  options.debug = environmentSwitch("WEFT_DEBUG").value_or(debug);
  options.fastMath = fastMath;
  if (std::optional<bool> environment = environmentSwitch("WEFT_BOUNDSCHECK")) boundsCheck = environment;
  options.boundsCheck = !boundsCheck   ? BoundsCheck::CpuOnly
                        : *boundsCheck ? BoundsCheck::Always
                                       : BoundsCheck::Never;
  return options;
}

std::string headersHash(const std::string& directory, const backend::DiskCache& cache) {
  // The fingerprint is taken before the contents are read: a header written in between then
  // leaves the entry under a fingerprint that no longer matches, never an old hash under a new one.
  std::string memo = "headers-" + ContentHash().add(directory).add(directoryFingerprint(directory)).hex();
  if (std::optional<std::string> remembered = cache.load(memo); remembered && remembered->size() == 32)
    return *remembered;
  std::string hash = hashDirectory(directory);
  cache.store(memo, hash);
  return hash;
}

bool runsChecks(const CompilerOptions& options, Target target) {
  switch (options.boundsCheck) {
    case BoundsCheck::CpuOnly: return options.debug || target == Target::Cpu;
    case BoundsCheck::Always: return true;
    case BoundsCheck::Never: return options.debug;
  }
  return true;
}

Compiler::Compiler(std::string weftIncludeDir)
    : toolchain_(backend::discoverToolchain(std::move(weftIncludeDir))),
      cache_(backend::DiskCache::fromEnvironment()),
      state_(std::make_unique<CompilerState>()) {}

Compiler::~Compiler() = default;

bool Compiler::gpuAvailable() {
  try {
    requireDriver(*state_);
    return true;
  } catch (const CudaError&) {
    return false;
  }
}

const std::string& Compiler::buildIdentity() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->buildIdentity)
    state_->buildIdentity = ContentHash()
                                .add("weft " WEFT_VERSION)
                                .add(headersHashOnce(*state_, toolchain_, cache_))
                                .add(libraryFingerprint())
                                .hex();
  return *state_->buildIdentity;
}

int Compiler::gpuArchitecture() { return requireDriver(*state_)->architecture(); }

std::shared_ptr<LoadedKernel> Compiler::load(const FrontEndResult& frontEnd, Target target,
                                             const CompilerOptions& options) {
  WEFT_CHECK(frontEnd.ok, "load() of a front-end result with errors");
  std::shared_ptr<Driver> driver = target == Target::Gpu ? requireDriver(*state_) : nullptr;
  std::string toolkitIdentity;
  ContentHash hash;
  hash.add("weft " WEFT_VERSION).add(target == Target::Gpu ? "gpu" : "cpu");
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    // Generated code includes weft's headers (weft/device, weft/tiles, ...): a changed header
    // changes every key even when weft's version did not (a development build).
    hash.add(headersHashOnce(*state_, toolchain_, cache_));
    if (target == Target::Gpu) {
      if (!state_->nvrtcIdentity) state_->nvrtcIdentity = backend::nvrtcIdentity(toolchain_);
      toolkitIdentity = *state_->nvrtcIdentity;
      hash.add(toolkitIdentity);
    }
  }
  backend::CompileOptions compileOptions;
  compileOptions.debug = options.debug;
  compileOptions.fastMath = options.fastMath;
  compileOptions.checks = runsChecks(options, target);
  // A unit that asks for `a`/`f` features gets the device's variant that has them (sm_90a on an
  // H100), and the -arch argument below puts the variant in the key.
  if (target == Target::Gpu)
    compileOptions.target = sema::jitTarget(driver->architecture(), frontEnd.unit.features);
  // The key hashes the compiler's very arguments (the host compiler, the architecture,
  // -lineinfo, -DWEFT_CHECKS, ...): every option that changes the artifact changes it.
  for (const std::string& argument : target == Target::Gpu
                                         ? backend::nvrtcOptions(toolchain_, compileOptions)
                                         : backend::hostCompilerArguments(toolchain_, compileOptions))
    hash.add(argument);
  hash.add(frontEnd.unit.source).add(frontEnd.unit.kernelSymbol).add(frontEnd.unit.hostEntrySymbol);
  std::string key = hash.hex();
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (auto found = state_->code.find(key); found != state_->code.end())
      return bindKernel(found->second, frontEnd);
  }
  // A unit without check sites has nothing that can fail: its launches read no record.
  bool readsRecord = compileOptions.checks && !frontEnd.unit.checkSites.empty();
  std::shared_ptr<KernelCode> code;
  if (target == Target::Gpu) {
    std::optional<std::string> cubin = cache_.load(key);
    if (!cubin) {
      backend::Artifact artifact =
          backend::compileWithNvrtc(toolchain_, frontEnd.unit.source, kernelName(frontEnd) + ".cu", compileOptions);
      if (!artifact.ok && (toolkitIdentity.empty() || artifact.refused))
        throw CudaError("kernel '" + kernelName(frontEnd) + "': cannot compile for the GPU: " + artifact.log, 0);
      if (!artifact.ok)
        throw CudaError("kernel '" + kernelName(frontEnd) +
                            "': NVRTC rejected the CUDA C++ that weft generated (this is a weft bug; please report "
                            "it with the kernel's source):\n" + artifact.log,
                        0);
      cache_.store(key, artifact.bytes);
      cubin = std::move(artifact.bytes);
    }
    code = loadGpuCode(driver, state_->tensorMaps, *cubin, frontEnd, readsRecord);
  } else {
    code = loadHostCode(frontEnd, key, compileOptions, readsRecord);
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  // Another thread may have loaded the same unit meanwhile; keep the first so both share it.
  return bindKernel(state_->code.emplace(key, std::move(code)).first->second, frontEnd);
}

std::shared_ptr<KernelCode> Compiler::loadHostCode(const FrontEndResult& frontEnd, const std::string& key,
                                                   const backend::CompileOptions& options, bool readsRecord) {
  std::shared_ptr<BlockRunner> runner;
  std::string path;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->runner) {
      state_->runner = std::make_shared<BlockRunner>();
      state_->runner->setInterruptCheck(state_->interruptCheck);
    }
    runner = state_->runner;
    if (state_->temporaryDirectory.empty()) {
      const char* base = std::getenv("TMPDIR");
      std::string pattern = std::string(base && *base ? base : "/tmp") + "/weft-XXXXXX";
      if (::mkdtemp(pattern.data())) state_->temporaryDirectory = pattern;
    }
    path = state_->temporaryDirectory + "/" + key + ".so";
  }
  std::string error;
  // The cache verifies an entry's checksum before handing it out, so a damaged shared object is
  // rebuilt instead of crashing dlopen.
  if (std::optional<std::string> image = cache_.load(key)) {
    if (std::shared_ptr<KernelCode> code =
            loadCpuCode(runner, *image, frontEnd, readsRecord, options.fastMath, error))
      return code;
  }
  backend::Artifact artifact = backend::compileForHost(toolchain_, frontEnd.unit.source, path, options);
  if (!artifact.ok)
    throw CudaError("kernel '" + kernelName(frontEnd) + "': the host C++ compiler failed on the code weft generated "
                        "for the CPU target:\n" + artifact.log,
                    0);
  std::ifstream file(path, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ::unlink(path.c_str());
  cache_.store(key, image);
  std::shared_ptr<KernelCode> code =
      loadCpuCode(runner, image, frontEnd, readsRecord, options.fastMath, error);
  if (!code)
    throw CudaError("kernel '" + kernelName(frontEnd) + "': cannot load the CPU target's code: " + error, 0);
  return code;
}

void Compiler::setInterruptCheck(std::function<bool()> check) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->interruptCheck = std::move(check);
  if (state_->runner) state_->runner->setInterruptCheck(state_->interruptCheck);
}

std::shared_ptr<Driver> Compiler::currentDriver() {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  return driver;
}

uintptr_t Compiler::allocate(size_t bytes) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  CUdeviceptr address = 0;
  WEFT_DRIVER_CALL(*driver, "allocating " + std::to_string(bytes) + " bytes of device memory", cuMemAlloc_v2,
                   &address, std::max<size_t>(bytes, 1));
  return static_cast<uintptr_t>(address);
}

void Compiler::free(uintptr_t address) {
  if (address == 0) return;
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  WEFT_DRIVER_CALL(*driver, "freeing device memory", cuMemFree_v2, address);
}

void Compiler::copyToDevice(uintptr_t destination, const void* source, size_t bytes) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  WEFT_DRIVER_CALL(*driver, "copying to the device", cuMemcpyHtoD_v2, destination, source, bytes);
}

void Compiler::copyToHost(void* destination, uintptr_t source, size_t bytes) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  WEFT_DRIVER_CALL(*driver, "copying to the host", cuMemcpyDtoH_v2, destination, source, bytes);
}

void Compiler::copyOnDevice(uintptr_t destination, uintptr_t source, size_t bytes) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  WEFT_DRIVER_CALL(*driver, "copying on the device", cuMemcpyDtoD_v2, destination, source, bytes);
}

void Compiler::memset(uintptr_t destination, uint8_t value, size_t bytes) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  WEFT_DRIVER_CALL(*driver, "filling device memory", cuMemsetD8_v2, destination, value, bytes);
}

void Compiler::synchronize(uintptr_t stream) {
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  if (stream == 0) WEFT_DRIVER_CALL(*driver, "synchronizing the device", cuCtxSynchronize);
  else WEFT_DRIVER_CALL(*driver, "synchronizing a stream", cuStreamSynchronize, reinterpret_cast<CUstream>(stream));
}

bool Compiler::isDevicePointer(uintptr_t address) {
  if (!gpuAvailable()) return false;
  std::shared_ptr<Driver> driver = requireDriver(*state_);
  driver->makeCurrent();
  // Not through check(): an error here is the answer "host memory", not a failure.
  unsigned int memoryType = 0;
  constexpr unsigned int kMemoryTypeDevice = 2, kMemoryTypeUnified = 4;
  return driver->api().cuPointerGetAttribute(&memoryType, kPointerMemoryType, address) == 0 &&
         (memoryType == kMemoryTypeDevice || memoryType == kMemoryTypeUnified);
}

}  // namespace weft::runtime
