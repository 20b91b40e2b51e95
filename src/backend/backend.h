// Entry points of the backend: a CUDA C++ TU -> a cubin/PTX (NVRTC) or a shared object (host
// C++ compiler), through a content-addressed disk cache.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sema/targets.h"

namespace weft::backend {

// Where the CUDA toolkit and weft's device headers are.
struct Toolchain {
  std::string cudaHome;          // e.g. /usr/local/cuda; empty when not found
  std::vector<std::string> cudaIncludeDirs;  // its include/ (and include/cccl/ for libcu++)
  std::string weftIncludeDir;    // the directory holding weft/device/*.h
  std::string hostCompiler;      // $CXX, else c++/g++/clang++ on PATH; empty when none
};

// Finds the toolkit (CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda) and the host compiler.
Toolchain discoverToolchain(std::string weftIncludeDir);

// What NVRTC produces: a cubin (SASS for sm_XY), PTX (for compute_XY), LTO-IR (for
// nvJitLink's link-time optimization; always relocatable), or nothing: the front end checks the
// unit (its static_asserts) and stops (-fdevice-syntax-only).
enum class DeviceCode : uint8_t { Cubin, Ptx, LtoIr, CheckOnly };

struct CompileOptions {
  // The target: sm_XY[a|f] for a cubin, its virtual architecture compute_XY[a|f] otherwise.
  sema::GpuTarget target;
  bool fastMath = false;
  bool debug = false;
  // The unit's run-time checks run (WEFT_CHECKS, include/weft/device/intrinsics.h): debug=True,
  // or array bounds checked on this target. The runtime decides it (runtime::runsChecks).
  bool checks = false;
  DeviceCode output = DeviceCode::Cubin;
  // Relocatable device code (-rdc=true): extern functions may be defined in another object,
  // to be resolved by nvJitLink or nvcc's device link.
  bool relocatable = false;
  // More folders for #include (a CUDA C++ file that nvJitLink links with a weft unit).
  std::vector<std::string> includeDirs;
  // Macros to define (NAME or NAME=VALUE), e.g. the interoperable unit's ABI check.
  std::vector<std::string> defines;
};

// The result of a compilation: the artifact bytes or a log of what failed.
struct Artifact {
  bool ok = false;
  std::string bytes;  // cubin / PTX text / path of the shared object for the host target
  std::string log;    // compiler output (errors and warnings)
  // NVRTC does not compile for the target at all; `log` says so and lists the targets it does.
  bool refused = false;
};

// The on-disk cache: `directory` is $WEFT_CACHE_DIR or ~/.cache/weft; disabled by WEFT_CACHE=0.
class DiskCache {
 public:
  // Reads the environment to decide the directory and whether the cache is enabled.
  static DiskCache fromEnvironment();
  DiskCache(std::string directory, bool enabled) : directory_(std::move(directory)), enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  const std::string& directory() const { return directory_; }
  // The entry stored under `key`, verified against its checksum; nullopt if absent or corrupt
  // (a corrupt entry is removed).
  std::optional<std::string> load(const std::string& key) const;
  // Stores atomically (temporary file + rename); safe with concurrent writers.
  void store(const std::string& key, const std::string& bytes) const;
  // Creates the cache directory (and its parents); false when the cache is disabled or the
  // directory cannot be created, so that callers fall back to uncached files.
  bool createDirectory() const;
  // The path where a host shared object for `key` lives.
  std::string pathFor(const std::string& key, const std::string& suffix) const;

 private:
  std::string directory_;
  bool enabled_;
};

// The NVRTC options compileWithNvrtc passes for `options` (cache keys hash them, so that every
// option that changes the artifact changes the key).
std::vector<std::string> nvrtcOptions(const Toolchain& toolchain, const CompileOptions& options);

// The host compiler's arguments compileForHost compiles the unit into an object with for
// `options`, before the file names; the link that makes the shared object takes only the
// compiler's own words (CXX) and -shared.
std::vector<std::string> hostCompilerArguments(const Toolchain& toolchain, const CompileOptions& options);

// Compiles `source` with NVRTC (loaded at run time) for `options.target`. A target this NVRTC
// does not know is `refused`, with the list of those it compiles for.
Artifact compileWithNvrtc(const Toolchain& toolchain, const std::string& source, const std::string& name,
                          const CompileOptions& options);

// Compiles `source` with -DWEFT_HOST into a shared object at `outputPath`. The link sees no
// option of the code (-ffast-math), so the driver adds no crtfastmath.o: loading the library
// leaves the loading thread's floating-point control alone (unless CXX itself asks for it).
Artifact compileForHost(const Toolchain& toolchain, const std::string& source, const std::string& outputPath,
                        const CompileOptions& options);

// The NVRTC version as "major.minor", or empty when NVRTC cannot be loaded.
std::string nvrtcVersion(const Toolchain& toolchain);

// The known targets (sema::knownTargets) the loaded NVRTC compiles for: the architectures
// nvrtcGetSupportedArchs lists, each with those of its `a`/`f` variants NVRTC accepts (tried on
// an empty program, which takes a few milliseconds each). Empty when NVRTC cannot be loaded.
std::vector<sema::GpuTarget> nvrtcSupportedTargets(const Toolchain& toolchain);

// One input of a device link: a file's contents and what they are.
struct LinkInput {
  enum class Kind : uint8_t { Cubin, Ptx, LtoIr, Fatbin, Object, Library } kind = Kind::Cubin;
  std::string name;   // for messages
  std::string bytes;
};

// Links device code for `target` with nvJitLink (loaded at run time) into one executable cubin:
// relocatable code, or one PTX unit (which it compiles to SASS for `target`, as ptxas would);
// LTO-IR inputs are optimized together (-lto).
Artifact linkWithNvJitLink(const Toolchain& toolchain, const std::vector<LinkInput>& inputs, sema::GpuTarget target);

// One image of a fatbin: SASS (a cubin) for a GPU target, or PTX for a virtual architecture.
struct FatbinImage {
  enum class Kind : uint8_t { Cubin, Ptx } kind = Kind::Cubin;
  sema::GpuTarget target;
  std::string bytes;
};

// A fatbin holding `images`, made by the toolkit's fatbinary tool; `bytes` is the fatbin.
Artifact createFatbin(const Toolchain& toolchain, const std::vector<FatbinImage>& images);

// Identifies the NVRTC library compileWithNvrtc would load (path, size, modification time)
// without loading it, for cache keys: loading NVRTC costs milliseconds, too much for a
// warm-cache first call. Falls back to nvrtcVersion() when NVRTC is only on the loader path.
std::string nvrtcIdentity(const Toolchain& toolchain);

}  // namespace weft::backend
