// A small harness for the tile header's test programs. Each program's kernels are tile kernels
// (__tile_global__); its main() fills buffers with seeded random data, launches them with
// tile_test::launch and compares every result with a scalar reference computed here. The same
// program is built three ways (tests/python/test_tile_header.py): g++ -DWEFT_HOST (the CPU
// target: one thread per tile block), g++ -DWEFT_HOST -DWEFT_TILES_EMULATE_BLOCK (the GPU
// algorithms run by kBlockThreads host threads) and nvcc (the GPU; NVRTC compiles the kernels,
// main is skipped there).
#pragma once

// The tests cover the fp8 types too: on the GPU their CUDA header comes first, so that
// <weft/cuda_tile.h> enables them.
#if defined(__CUDACC__) && !defined(WEFT_HOST)
#include <cuda_fp8.h>
#endif
#include <weft/cuda_tile.h>

#if !defined(__CUDACC_RTC__)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace tile_test {

namespace ct = ::cuda::tiles;

inline int g_checks = 0;
inline int g_failures = 0;

// Records one check; prints the first failures with their context.
inline bool check(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    if (g_failures <= 40) std::printf("FAIL: %s\n", what.c_str());
  }
  return ok;
}

// Prints the totals; the process's exit status says whether every check passed.
inline int finish(const char* name) {
  std::printf("%s: %d checks, %d failures\n", name, g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

#if !defined(WEFT_TARGET_HOST)
inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::printf("CUDA error in %s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}
#endif

// n elements visible to the tile kernel and to main: managed memory on the GPU.
template <class T>
class Buffer {
 public:
  explicit Buffer(size_t n, size_t alignmentOffset = 0) : n_(n), offset_(alignmentOffset) {
    size_t bytes = (n + alignmentOffset + 16) * sizeof(T) + 64;
#if defined(WEFT_TARGET_HOST)
    base_ = static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
#else
    cuda_check(cudaMallocManaged(&base_, bytes), "cudaMallocManaged");
#endif
    std::memset(base_, 0, bytes);
  }
  ~Buffer() {
#if defined(WEFT_TARGET_HOST)
    std::free(base_);
#else
    cudaFree(base_);
#endif
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  // The elements (offset by alignmentOffset elements from a 64-byte boundary).
  T* get() const { return reinterpret_cast<T*>(base_) + offset_; }
  T& operator[](size_t i) const { return get()[i]; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  size_t offset_;
  unsigned char* base_ = nullptr;
};

// Runs a tile kernel over `grid` tile blocks.
template <class Kernel, class... Args>
void launch(ct::dim3_t grid, Kernel kernel, Args... args) {
#if defined(WEFT_TARGET_HOST)
  ct::host_launch(grid, kernel, args...);
#else
  kernel<<<dim3(grid.x, grid.y, grid.z), ct::kBlockThreads>>>(args...);
  cuda_check(cudaGetLastError(), "launch");
  cuda_check(cudaDeviceSynchronize(), "kernel");
#endif
}

// A seeded generator (splitmix64): tests draw reproducible data.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53); }
  // Any bit pattern of T.
  template <class T>
  T bits() {
    uint64_t b = next();
    T value;
    std::memcpy(&value, &b, sizeof(T));
    return value;
  }

 private:
  uint64_t state_;
};

// The test seed: WEFT_TEST_SEED, else fixed.
inline uint64_t seed() {
  const char* text = std::getenv("WEFT_TEST_SEED");
  return text ? std::strtoull(text, nullptr, 10) : 20261124ull;
}

// Names and numeric helpers of every element type.
template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, weft::float16>) return "float16";
  else if constexpr (std::is_same_v<T, weft::bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, ct::tfloat32>) return "tfloat32";
#if defined(WEFT_TILES_FLOAT8)
  else if constexpr (std::is_same_v<T, weft::float8e4m3>) return "float8e4m3";
  else if constexpr (std::is_same_v<T, weft::float8e5m2>) return "float8e5m2";
#endif
  else return "?";
}

template <class T>
inline constexpr bool is_narrow = ct::detail::is_narrow_float<T> || std::is_same_v<T, ct::tfloat32>;

// A value of T as double (exact for every type here but 64-bit integers beyond 2**53).
template <class T>
double as_double(T x) {
  if constexpr (is_narrow<T>) {
    return static_cast<double>(ct::detail::to_float(x));
  } else {
    return static_cast<double>(x);
  }
}
// The nearest T to a double (test data only).
template <class T>
T from_double(double x) {
  if constexpr (is_narrow<T>) {
    return ct::detail::scalar_convert<T>(x);
  } else {
    return static_cast<T>(x);
  }
}

// Bitwise equality (NaNs of one pattern compare equal).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
// Equal values, or both NaN.
template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T> || is_narrow<T>) {
    double x = as_double(a), y = as_double(b);
    return (x == y && std::signbit(x) == std::signbit(y)) || (std::isnan(x) && std::isnan(y));
  } else {
    return a == b;
  }
}
// |a - b| <= tolerance * max(1, |b|), or both NaN / equal infinities.
inline bool close(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= tolerance * std::fmax(1.0, std::fabs(b));
}

template <class T>
std::string show(const T& x) {
  char text[64];
  if constexpr (std::is_same_v<T, bool>) {
    std::snprintf(text, sizeof text, "%s", x ? "true" : "false");
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      std::snprintf(text, sizeof text, "%lld", static_cast<long long>(x));
    } else {
      std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(x));
    }
  } else {
    std::snprintf(text, sizeof text, "%.17g", as_double(x));
  }
  return text;
}

}  // namespace tile_test
#endif
