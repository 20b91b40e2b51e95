// Kernels on the CPU target: the TU compiled by the host compiler, loaded with dlopen, run by
// the block runner.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "runtime/argument_packing.h"
#include "runtime/loaded_kernels.h"

namespace weft::runtime {
namespace {

// The CPU target mirrors sm_90's launch limits, so that a launch that works on the CPU also
// works on the GPU.
constexpr DeviceLimits kCpuLimits{};

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

class CpuKernel final : public LoadedKernel {
 public:
  CpuKernel(std::shared_ptr<BlockRunner> runner, std::shared_ptr<HostLibrary> library,
            host::KernelEntry entry, const FrontEndResult& frontEnd)
      : runner_(std::move(runner)),
        library_(std::move(library)),
        entry_(entry),
        name_(frontEnd.kernelName.empty() ? frontEnd.unit.hostEntrySymbol : frontEnd.kernelName),
        layout_(name_, frontEnd),
        staticShared_(frontEnd.unit.hostSharedBytes),
        localArrayBytes_(frontEnd.localArrayBytes) {}

  void launch(const LaunchConfig& config, const std::vector<ArgumentValue>& arguments) override {
    validateLaunch(name_, config, kCpuLimits, kCpuLimits.maxThreadsPerBlock, staticShared_);
    PackedArguments packed(layout_, arguments);
    GridLaunch grid;
    grid.entry = entry_;
    grid.arguments = packed.pointers();
    grid.grid = host::Dim3{config.grid[0], config.grid[1], config.grid[2]};
    grid.block = host::Dim3{config.block[0], config.block[1], config.block[2]};
    grid.sharedBytes = staticShared_ + config.sharedBytes;
    grid.dynamicSharedBytes = config.sharedBytes;
    grid.localArrayBytes = localArrayBytes_;
    grid.kernelName = name_;
    runner_->run(grid);
  }

  Target target() const override { return Target::Cpu; }

 private:
  std::shared_ptr<BlockRunner> runner_;
  std::shared_ptr<HostLibrary> library_;
  host::KernelEntry entry_;
  std::string name_;
  ParameterLayout layout_;
  uint64_t staticShared_;
  uint64_t localArrayBytes_;
};

}  // namespace

std::shared_ptr<LoadedKernel> loadCpuKernel(std::shared_ptr<BlockRunner> runner, const std::string& image,
                                            const FrontEndResult& frontEnd, std::string& error) {
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
  library->handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
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
  return std::make_shared<CpuKernel>(std::move(runner), std::move(library),
                                     reinterpret_cast<host::KernelEntry>(entry), frontEnd);
}

}  // namespace weft::runtime
