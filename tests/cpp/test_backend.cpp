// Backend: toolkit discovery, NVRTC, the host compiler and the disk cache.
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cfenv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "scoped_test_state.h"

#include "backend/backend.h"
#include "support/check.h"
#include "support/hash.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft::backend {
namespace {

namespace fs = std::filesystem;

using test::ScopedEnvironment;
using test::TemporaryDirectory;

std::string randomBytes(size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xff);
  return bytes;
}

Toolchain localToolchain() { return discoverToolchain(std::string(WEFT_SOURCE_DIR) + "/include"); }

bool nvrtcPresent() { return !nvrtcVersion(localToolchain()).empty(); }

TEST(Toolchain, CudaHomeVariableWins) {
  TemporaryDirectory home;
  ScopedEnvironment cudaHome("CUDA_HOME", home.path().c_str());
  EXPECT_EQ(discoverToolchain("/inc").cudaHome, home.path());
  EXPECT_EQ(discoverToolchain("/inc").weftIncludeDir, "/inc");
}

TEST(Toolchain, CudaPathIsTheSecondChoiceAndMissingDirectoriesAreSkipped) {
  TemporaryDirectory home;
  ScopedEnvironment cudaHome("CUDA_HOME", "/nonexistent/weft/cuda");
  ScopedEnvironment cudaPath("CUDA_PATH", home.path().c_str());
  EXPECT_EQ(discoverToolchain("").cudaHome, home.path());
}

TEST(Toolchain, NvccOnPathGivesItsToolkit) {
  TemporaryDirectory home;
  fs::create_directories(home.path() + "/bin");
  std::ofstream(home.path() + "/bin/nvcc") << "#!/bin/sh\n";
  fs::permissions(home.path() + "/bin/nvcc", fs::perms::owner_all);
  ScopedEnvironment cudaHome("CUDA_HOME", nullptr);
  ScopedEnvironment cudaPath("CUDA_PATH", nullptr);
  std::string path = home.path() + "/bin:" + (std::getenv("PATH") ? std::getenv("PATH") : "");
  ScopedEnvironment searchPath("PATH", path.c_str());
  EXPECT_EQ(discoverToolchain("").cudaHome, home.path());
}

TEST(Toolchain, HostCompilerFromCxxOrPath) {
  {
    ScopedEnvironment cxx("CXX", "g++");
    std::string compiler = discoverToolchain("").hostCompiler;
    EXPECT_TRUE(compiler.size() > 4 && compiler.substr(compiler.size() - 4) == "/g++") << compiler;
  }
  {
    ScopedEnvironment cxx("CXX", "ccache-that-does-not-exist");
    std::string compiler = discoverToolchain("").hostCompiler;
    EXPECT_FALSE(compiler.empty());  // falls back to c++/g++/clang++ on PATH
    EXPECT_EQ(compiler.find("ccache"), std::string::npos);
  }
  {
    ScopedEnvironment cxx("CXX", nullptr);
    ScopedEnvironment searchPath("PATH", "/nonexistent");
    EXPECT_EQ(discoverToolchain("").hostCompiler, "");
  }
}

constexpr const char* kTinyKernel = R"(
extern "C" __global__ void scale(float* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
)";

TEST(Nvrtc, VersionIsMajorDotMinor) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  std::string version = nvrtcVersion(localToolchain());
  EXPECT_NE(version.find('.'), std::string::npos) << version;
  EXPECT_GE(std::stoi(version), 11);
}

TEST(Nvrtc, CompilesToCubinForSm90) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  CompileOptions options;
  options.target = {90};
  Artifact artifact = compileWithNvrtc(localToolchain(), kTinyKernel, "scale.cu", options);
  ASSERT_TRUE(artifact.ok) << artifact.log;
  ASSERT_GT(artifact.bytes.size(), 4u);
  EXPECT_EQ(artifact.bytes.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(artifact.bytes.find("scale"), std::string::npos);
}

// Relocatable device code: a kernel calling an extern "C" function of another unit, both
// compiled to LTO-IR, linked by nvJitLink into one cubin.
TEST(NvJitLink, LinksLtoIrUnitsIntoOneCubin) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  CompileOptions options;
  options.target = {90};
  options.output = DeviceCode::LtoIr;
  Artifact caller = compileWithNvrtc(localToolchain(),
                                     "extern \"C\" __device__ float twice(float);\n"
                                     "extern \"C\" __global__ void apply(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n",
                                     "caller.cu", options);
  ASSERT_TRUE(caller.ok) << caller.log;
  Artifact callee = compileWithNvrtc(localToolchain(), "extern \"C\" __device__ float twice(float x) { return 2 * x; }\n",
                                     "callee.cu", options);
  ASSERT_TRUE(callee.ok) << callee.log;
  Artifact linked = linkWithNvJitLink(localToolchain(),
                                      {{LinkInput::Kind::LtoIr, "caller.cu", caller.bytes},
                                       {LinkInput::Kind::LtoIr, "callee.cu", callee.bytes}},
                                      {90});
  ASSERT_TRUE(linked.ok) << linked.log;
  EXPECT_EQ(linked.bytes.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(linked.bytes.find("apply"), std::string::npos);
  // An undefined function is the linker's error, reported in the log.
  Artifact unresolved = linkWithNvJitLink(localToolchain(), {{LinkInput::Kind::LtoIr, "caller.cu", caller.bytes}}, {90});
  EXPECT_FALSE(unresolved.ok);
  EXPECT_NE(unresolved.log.find("twice"), std::string::npos) << unresolved.log;
}

TEST(Nvrtc, CompilesToPtx) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  CompileOptions options;
  options.target = {90};
  options.output = DeviceCode::Ptx;
  options.fastMath = true;
  Artifact artifact = compileWithNvrtc(localToolchain(), kTinyKernel, "scale.cu", options);
  ASSERT_TRUE(artifact.ok) << artifact.log;
  EXPECT_NE(artifact.bytes.find(".target sm_90"), std::string::npos);
  EXPECT_NE(artifact.bytes.find(".entry scale"), std::string::npos);
  EXPECT_NE(artifact.bytes.back(), '\0');
}

TEST(Nvrtc, DefaultDeviceAndNdebug) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  // A function without __device__ is callable from device code (-default-device), and NDEBUG
  // is defined unless debug.
  std::string source = R"(
int twice(int x) { return 2 * x; }
#ifndef NDEBUG
#error debug build
#endif
extern "C" __global__ void k(int* out) { *out = twice(21); }
)";
  CompileOptions options;
  Artifact artifact = compileWithNvrtc(localToolchain(), source, "k.cu", options);
  EXPECT_TRUE(artifact.ok) << artifact.log;
  options.debug = true;
  Artifact debug = compileWithNvrtc(localToolchain(), source, "k.cu", options);
  EXPECT_FALSE(debug.ok);
  EXPECT_NE(debug.log.find("debug build"), std::string::npos) << debug.log;
}

TEST(Nvrtc, ErrorsComeBackInTheLog) {
  if (!nvrtcPresent()) GTEST_SKIP() << "NVRTC is not installed";
  Artifact artifact = compileWithNvrtc(localToolchain(), "extern \"C\" __global__ void k() { undeclared_name(); }",
                                       "broken.cu", CompileOptions{});
  EXPECT_FALSE(artifact.ok);
  EXPECT_TRUE(artifact.bytes.empty());
  EXPECT_NE(artifact.log.find("undeclared_name"), std::string::npos) << artifact.log;
  EXPECT_NE(artifact.log.find("broken.cu"), std::string::npos) << artifact.log;
}

TEST(Nvrtc, MissingLibraryIsAnErrorNotACrash) {
  Toolchain toolchain = localToolchain();
  toolchain.cudaHome = "/nonexistent";
  // The loader path may still find NVRTC; either way there must be an answer.
  Artifact artifact = compileWithNvrtc(toolchain, kTinyKernel, "scale.cu", CompileOptions{});
  EXPECT_TRUE(artifact.ok || artifact.log.find("NVRTC") != std::string::npos) << artifact.log;
}

TEST(HostCompiler, BuildsASharedObjectThatLoads) {
  TemporaryDirectory directory;
  std::string output = directory.path() + "/unit.so";
  std::string source = R"(
#include <weft/device/host_context.h>
#ifndef WEFT_HOST
#error WEFT_HOST must be defined
#endif
extern "C" int weft_test_answer(int x) { return x * 6 + static_cast<int>(sizeof(weft::host::Dim3)); }
)";
  Artifact artifact = compileForHost(localToolchain(), source, output, CompileOptions{});
  ASSERT_TRUE(artifact.ok) << artifact.log;
  EXPECT_EQ(artifact.bytes, output);
  void* library = ::dlopen(output.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << ::dlerror();
  auto answer = reinterpret_cast<int (*)(int)>(::dlsym(library, "weft_test_answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(5), 42);
  ::dlclose(library);
  // Only the output is left: the temporary source and object are gone.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(directory.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

// Whether float arithmetic in the calling thread keeps a subnormal product (no flush to zero).
bool keepsSubnormals() {
  volatile float tiny = 1e-40f, one = 1.0f;
  return tiny * one != 0.0f;
}

TEST(HostCompiler, FastMathCodeLoadsWithoutChangingTheFloatingPointEnvironment) {
  TemporaryDirectory directory;
  std::string output = directory.path() + "/fast.so";
  CompileOptions options;
  options.fastMath = true;
  Artifact artifact = compileForHost(
      localToolchain(), R"(extern "C" float weft_test_half(float x) { return x * 0.5f; })", output, options);
  ASSERT_TRUE(artifact.ok) << artifact.log;
  ASSERT_TRUE(keepsSubnormals());
  std::fenv_t before;
  std::fegetenv(&before);
  // A plain dlopen: nothing restores the environment if a constructor (crtfastmath.o) changes it.
  void* library = ::dlopen(output.c_str(), RTLD_NOW | RTLD_LOCAL);
  bool kept = keepsSubnormals();
  std::fesetenv(&before);  // the rest of the tests run with the environment they started with
  ASSERT_NE(library, nullptr) << ::dlerror();
  EXPECT_TRUE(kept) << "loading the fastmath shared object made this thread flush subnormals";
  auto half = reinterpret_cast<float (*)(float)>(::dlsym(library, "weft_test_half"));
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half(3.0f), 1.5f);
  ::dlclose(library);
}

TEST(HostCompiler, ErrorsComeBackInTheLogAndLeaveNoFiles) {
  TemporaryDirectory directory;
  std::string output = directory.path() + "/broken.so";
  Artifact artifact = compileForHost(localToolchain(), "int f() { return not_declared; }", output, CompileOptions{});
  EXPECT_FALSE(artifact.ok);
  EXPECT_NE(artifact.log.find("not_declared"), std::string::npos) << artifact.log;
  EXPECT_TRUE(fs::is_empty(directory.path()));
}

TEST(HostCompiler, NoCompilerIsReported) {
  Toolchain toolchain = localToolchain();
  toolchain.hostCompiler.clear();
  Artifact artifact = compileForHost(toolchain, "int x;", "/tmp/never.so", CompileOptions{});
  EXPECT_FALSE(artifact.ok);
  EXPECT_NE(artifact.log.find("no host C++ compiler"), std::string::npos);
}

TEST(DiskCache, EnvironmentChoosesTheDirectory) {
  {
    ScopedEnvironment directory("WEFT_CACHE_DIR", "/some/where");
    ScopedEnvironment enabled("WEFT_CACHE", nullptr);
    DiskCache cache = DiskCache::fromEnvironment();
    EXPECT_TRUE(cache.enabled());
    EXPECT_EQ(cache.directory(), "/some/where");
    EXPECT_EQ(cache.pathFor("abc", ".so"), "/some/where/abc.so");
  }
  {
    ScopedEnvironment directory("WEFT_CACHE_DIR", nullptr);
    ScopedEnvironment xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(DiskCache::fromEnvironment().directory(), "/xdg/weft");
  }
  {
    ScopedEnvironment directory("WEFT_CACHE_DIR", nullptr);
    ScopedEnvironment xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnvironment home("HOME", "/home/someone");
    EXPECT_EQ(DiskCache::fromEnvironment().directory(), "/home/someone/.cache/weft");
  }
  {
    ScopedEnvironment enabled("WEFT_CACHE", "0");
    EXPECT_FALSE(DiskCache::fromEnvironment().enabled());
  }
}

TEST(DiskCache, StoresAndLoads) {
  TemporaryDirectory directory;
  DiskCache cache(directory.path() + "/nested/cache", true);
  EXPECT_FALSE(cache.load("0123abcd").has_value());
  std::string payload = randomBytes(100000, 1);
  cache.store("0123abcd", payload);
  std::optional<std::string> loaded = cache.load("0123abcd");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, payload);
  cache.store("empty", "");
  ASSERT_TRUE(cache.load("empty").has_value());
  EXPECT_EQ(*cache.load("empty"), "");
}

TEST(DiskCache, CorruptAndTruncatedEntriesAreDetectedRemovedAndRebuilt) {
  TemporaryDirectory directory;
  DiskCache cache(directory.path(), true);
  std::string payload = randomBytes(4096, 2);
  std::string path = cache.pathFor("entry", ".bin");
  std::mt19937 generator(3);
  for (int round = 0; round < 3; ++round) {
    cache.store("entry", payload);
    ASSERT_TRUE(fs::exists(path));
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (round == 0) bytes[bytes.size() - 1 - generator() % 4096] ^= 0x10;  // a flipped bit
    else if (round == 1) bytes.resize(bytes.size() / 2);                    // truncated
    else bytes[2] = 'X';                                                     // bad magic
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    EXPECT_FALSE(cache.load("entry").has_value()) << "round " << round;
    EXPECT_FALSE(fs::exists(path)) << "round " << round;
  }
  cache.store("entry", payload);
  EXPECT_EQ(cache.load("entry").value_or(""), payload);
}

TEST(DiskCache, DisabledCacheStoresNothing) {
  TemporaryDirectory directory;
  DiskCache cache(directory.path() + "/off", false);
  cache.store("key", "bytes");
  EXPECT_FALSE(cache.load("key").has_value());
  EXPECT_FALSE(fs::exists(directory.path() + "/off"));
  EXPECT_FALSE(cache.createDirectory());
}

TEST(DiskCache, KeysThatAreNotFileNamesAreInternalErrors) {
  DiskCache cache("/tmp", true);
  EXPECT_THROW(cache.load("../etc/passwd"), InternalCompilerError);
  EXPECT_THROW(cache.store("a/b", "x"), InternalCompilerError);
}

TEST(DiskCache, ConcurrentWritersFromThreadsLeaveAValidEntry) {
  TemporaryDirectory directory;
  DiskCache cache(directory.path(), true);
  std::vector<std::string> payloads;
  for (unsigned i = 0; i < 8; ++i) payloads.push_back(randomBytes(20000 + i * 1000, 10 + i));
  std::set<std::string> valid(payloads.begin(), payloads.end());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round) {
        cache.store("shared", payloads[i]);
        std::optional<std::string> loaded = cache.load("shared");
        if (loaded && !valid.count(*loaded)) ++bad;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  std::optional<std::string> final = cache.load("shared");
  ASSERT_TRUE(final.has_value());
  EXPECT_TRUE(valid.count(*final));
  // No temporary files are left behind.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(directory.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST(DiskCache, ConcurrentWritersFromProcessesLeaveAValidEntry) {
  TemporaryDirectory directory;
  DiskCache cache(directory.path(), true);
  std::vector<std::string> payloads;
  for (unsigned i = 0; i < 4; ++i) payloads.push_back(randomBytes(50000, 20 + i));
  std::vector<pid_t> children;
  for (unsigned i = 0; i < 4; ++i) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int status = 0;
      for (int round = 0; round < 30; ++round) {
        cache.store("multi", payloads[i]);
        std::optional<std::string> loaded = cache.load("multi");
        if (loaded && std::find(payloads.begin(), payloads.end(), *loaded) == payloads.end()) status = 1;
      }
      ::_exit(status);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::optional<std::string> final = cache.load("multi");
  ASSERT_TRUE(final.has_value());
  EXPECT_NE(std::find(payloads.begin(), payloads.end(), *final), payloads.end());
}

// The cache keys hash weft's headers through hashDirectory: every file at any depth counts (a
// change under weft/tiles once left stale kernels in the disk cache).
TEST(HashDirectory, CoversEveryFileAtAnyDepth) {
  fs::path root = fs::temp_directory_path() / ("weft-hash-" + std::to_string(::getpid()));
  fs::create_directories(root / "device");
  fs::create_directories(root / "tiles" / "deep");
  auto write = [&](const fs::path& file, const std::string& text) { std::ofstream(root / file) << text; };
  write("device/a.h", "a");
  write("tiles/deep/b.h", "b");
  std::string first = hashDirectory(root.string());
  EXPECT_EQ(first, hashDirectory(root.string()));
  write("tiles/deep/b.h", "b2");
  std::string changed = hashDirectory(root.string());
  EXPECT_NE(changed, first);
  write("tiles/c.h", "");
  EXPECT_NE(hashDirectory(root.string()), changed);
  fs::rename(root / "tiles" / "c.h", root / "tiles" / "d.h");
  EXPECT_NE(hashDirectory(root.string()), changed);
  fs::remove_all(root);
  EXPECT_EQ(hashDirectory(root.string()), ContentHash().hex());
}

}  // namespace
}  // namespace weft::backend
