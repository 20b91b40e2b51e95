// Kernels' code on the CPU target: the TU compiled by the host compiler, loaded with dlopen, run
// by the block runner. Checked code (runsChecks; by default every kernel here) resets the error
// record in its shared object before each launch and reads it after: a failed check throws out
// of its thread (host::ThreadStopped), which stops the grid (blocks not started do not run), and
// the record says what failed.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "runtime/argument_packing.h"
#include "runtime/float_control.h"
#include "runtime/loaded_kernels.h"

namespace weft::runtime {
namespace {

// The CPU target mirrors sm_90's launch limits, so that a launch that works on the CPU also
// works on the GPU.
// Clusters are validated as on the GPU and otherwise ignored: the CPU's blocks share nothing.
constexpr DeviceLimits kCpuLimits{.clusters = true};

// An open shared object; closed when the last kernel from it goes.
struct HostLibrary {
  void* handle = nullptr;
  // The memfd the library was loaded from, open while the library is loaded: dlopen finds
  // loaded libraries by path, and a reused /proc/self/fd/N would return an older kernel's
  // library. dlclose may keep a library loaded (a C++ unique symbol makes it undeletable);
  // then the descriptor stays open for the life of the process, so its path is never reused.
  int fd = -1;
  ~HostLibrary() {
    if (handle) ::dlclose(handle);
    if (fd < 0) return;
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (void* stillLoaded = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
      ::dlclose(stillLoaded);
      return;
    }
    ::close(fd);
  }
};

class CpuCode final : public KernelCode {
 public:
  CpuCode(std::shared_ptr<BlockRunner> runner, std::shared_ptr<HostLibrary> library, host::KernelEntry entry,
          ErrorRecord* record, const FrontEndResult& frontEnd, bool flushSubnormals)
      : runner_(std::move(runner)),
        library_(std::move(library)),
        entry_(entry),
        record_(record),
        staticShared_(frontEnd.unit.hostSharedBytes),
        localArrayBytes_(frontEnd.localArrayBytes),
        flushSubnormals_(flushSubnormals) {}

  ErrorRecord launch(const std::string& name, const ParameterLayout& layout, const LaunchConfig& config,
                     const std::vector<ArgumentValue>& arguments) override {
    validateLaunch(name, config, kCpuLimits, kCpuLimits.maxThreadsPerBlock, staticShared_);
    PackedArguments packed(layout, arguments);
    GridLaunch grid;
    grid.entry = entry_;
    grid.arguments = packed.pointers();
    grid.grid = host::Dim3{config.grid[0], config.grid[1], config.grid[2]};
    grid.block = host::Dim3{config.block[0], config.block[1], config.block[2]};
    grid.sharedBytes = staticShared_ + config.sharedBytes;
    grid.dynamicSharedBytes = config.sharedBytes;
    grid.localArrayBytes = localArrayBytes_;
    grid.kernelName = name;
    grid.flushSubnormals = flushSubnormals_;
    if (record_ == nullptr) {
      runner_->run(grid);
      return ErrorRecord{};
    }
    // One record per shared object: concurrent launches of this code take turns.
    std::lock_guard<std::mutex> lock(recordMutex_);
    *record_ = ErrorRecord{};
    try {
      runner_->run(grid);
    } catch (...) {
      // A failed check's thread threw; anything else that went wrong is reported as it is.
      if (static_cast<CheckKind>(record_->kind) == CheckKind::None) throw;
    }
    return *record_;
  }

  Target target() const override { return Target::Cpu; }
  bool waitsForCompletion() const override { return true; }

 private:
  std::shared_ptr<BlockRunner> runner_;
  std::shared_ptr<HostLibrary> library_;
  host::KernelEntry entry_;
  ErrorRecord* record_;  // the library's weft_error_record; null when unchecked
  std::mutex recordMutex_;
  uint64_t staticShared_;
  uint64_t localArrayBytes_;
  bool flushSubnormals_;
};

}  // namespace

std::shared_ptr<KernelCode> loadCpuCode(std::shared_ptr<BlockRunner> runner, const std::string& image,
                                        const FrontEndResult& frontEnd, bool checked, bool flushSubnormals,
                                        std::string& error) {
  // dlopen needs a file: an anonymous in-memory one holds exactly the verified bytes, so no
  // other process can truncate or replace it between the check and the mapping.
  int fd = ::memfd_create("weft-kernel", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create failed: ") + std::strerror(errno);
    return nullptr;
  }
  size_t written = 0;
  while (written < image.size()) {
    ssize_t n = ::write(fd, image.data() + written, image.size() - written);
    if (n <= 0) {
      error = std::string("writing the shared object failed: ") + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
    written += static_cast<size_t>(n);
  }
  auto library = std::make_shared<HostLibrary>();
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  library->fd = fd;
  {
    // Loading runs the library's constructors, and one may change this thread's floating-point
    // control for good (crtfastmath.o, linked in when CXX itself passes -ffast-math): every
    // later computation of the thread, NumPy's and Python's included, and every thread it
    // creates would flush subnormals. The process keeps its own; kernels get theirs from the
    // runner (kernelFloatControl).
    FloatControlGuard keep;
    library->handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!library->handle) {
    const char* reason = ::dlerror();
    error = reason ? reason : "dlopen failed";
    return nullptr;
  }
  void* entry = ::dlsym(library->handle, frontEnd.unit.hostEntrySymbol.c_str());
  if (!entry) {
    error = "the shared object has no symbol " + frontEnd.unit.hostEntrySymbol;
    return nullptr;
  }
  void* record = nullptr;
  if (checked && !(record = ::dlsym(library->handle, "weft_error_record"))) {
    error = "the shared object has no error record (weft_error_record)";
    return nullptr;
  }
  return std::make_shared<CpuCode>(std::move(runner), std::move(library),
                                   reinterpret_cast<host::KernelEntry>(entry),
                                   static_cast<ErrorRecord*>(record), frontEnd, flushSubnormals);
}

}  // namespace weft::runtime
