// Vectors (int8xN ... float64xN, float16xN, bfloat16xN, float8e4m3xN, float8e5m2xN; N = 1..4):
// immutable values of N numbers. The generated unit includes this header only when the
// program uses a vector type (docs/types.md).
// Machine representation: CUDA's charN, shortN, intN, longlongN, ucharN ... floatN, doubleN,
// __half2, __nv_bfloat162, __nv_fp8x2_e4m3 ...: N elements in order, aligned to the element
// size for N = 1 and 3, to twice it for N = 2 and to four times it (at most 16) for N = 4.
// The static_asserts below check size and alignment against CUDA's own types when NVRTC or
// nvcc compiles the unit, and every component's offset where offsetof is a constant
// expression (nvcc and host compilers; NVRTC has no offsetof: tests/cpp/test_vectors.cpp
// compiles this header with nvcc for sm_90).
#pragma once

#include "weft/device/config.h"

#if !defined(__CUDACC_RTC__)
#include <cstddef>
#endif

namespace weft {

namespace detail {

// CUDA's vector alignment for N elements of `bytes` bytes each.
constexpr int vectorAlignment(int bytes, int n) {
  int alignment = n == 2 ? 2 * bytes : n == 4 ? 4 * bytes : bytes;
  return alignment > 16 ? 16 : alignment;
}

}  // namespace detail

// N numbers of type T; `v[0]` is CUDA's `.x`, `v[1]` `.y`, `v[2]` `.z`, `v[3]` `.w`.
template <class T, int N>
struct alignas(detail::vectorAlignment(sizeof(T), N)) Vector {
  T v[N];
};

// vec[i]: a negative signed index counts from the end (Python semantics); sema rejects
// constant indices out of range; a variable index out of range is undefined.
template <class T, int N, class I>
WEFT_HD T vector_get(const Vector<T, N>& vec, I i) {
  if constexpr (static_cast<I>(-1) < static_cast<I>(0)) {
    if (i < 0) i = static_cast<I>(i + N);
  }
  return vec.v[i];
}

#define WEFT_VECTOR_LAYOUT(T, N, Cuda)                                                          \
  static_assert(sizeof(Vector<T, N>) == sizeof(Cuda) && alignof(Vector<T, N>) == alignof(Cuda), \
                #Cuda " layout");
#if !defined(__CUDACC_RTC__)
namespace detail {
// Single template arguments, for the offsetof macro.
template <class T>
using Vector2 = Vector<T, 2>;
template <class T>
using Vector3 = Vector<T, 3>;
template <class T>
using Vector4 = Vector<T, 4>;
}  // namespace detail
#define WEFT_VECTOR_OFFSETS4(T, Cuda)                                          \
  static_assert(offsetof(detail::Vector4<T>, v[1]) == offsetof(Cuda, y) &&     \
                    offsetof(detail::Vector4<T>, v[2]) == offsetof(Cuda, z) && \
                    offsetof(detail::Vector4<T>, v[3]) == offsetof(Cuda, w),   \
                #Cuda " offsets");
#define WEFT_VECTOR_OFFSETS3(T, Cuda)                                        \
  static_assert(offsetof(detail::Vector3<T>, v[1]) == offsetof(Cuda, y) &&   \
                    offsetof(detail::Vector3<T>, v[2]) == offsetof(Cuda, z), \
                #Cuda " offsets");
#define WEFT_VECTOR_OFFSETS2(T, Cuda) \
  static_assert(offsetof(detail::Vector2<T>, v[1]) == offsetof(Cuda, y), #Cuda " offsets");
#else
#define WEFT_VECTOR_OFFSETS4(T, Cuda)
#define WEFT_VECTOR_OFFSETS3(T, Cuda)
#define WEFT_VECTOR_OFFSETS2(T, Cuda)
#endif

#if !defined(WEFT_TARGET_HOST)
// Against CUDA's vector types (builtin under NVRTC and nvcc). 4-element 8-byte vectors:
// CUDA 13 deprecates longlong4/double4 for the identical longlong4_16a/double4_16a.
#define WEFT_VECTOR_FAMILY(T, c1, c2, c3, c4) \
  WEFT_VECTOR_LAYOUT(T, 1, c1)                \
  WEFT_VECTOR_LAYOUT(T, 2, c2)                \
  WEFT_VECTOR_LAYOUT(T, 3, c3)                \
  WEFT_VECTOR_LAYOUT(T, 4, c4)                \
  WEFT_VECTOR_OFFSETS2(T, c2)                 \
  WEFT_VECTOR_OFFSETS3(T, c3)                 \
  WEFT_VECTOR_OFFSETS4(T, c4)
WEFT_VECTOR_FAMILY(int8_t, char1, char2, char3, char4)
WEFT_VECTOR_FAMILY(int16_t, short1, short2, short3, short4)
WEFT_VECTOR_FAMILY(int32_t, int1, int2, int3, int4)
WEFT_VECTOR_FAMILY(int64_t, longlong1, longlong2, longlong3, longlong4_16a)
WEFT_VECTOR_FAMILY(uint8_t, uchar1, uchar2, uchar3, uchar4)
WEFT_VECTOR_FAMILY(uint16_t, ushort1, ushort2, ushort3, ushort4)
WEFT_VECTOR_FAMILY(uint32_t, uint1, uint2, uint3, uint4)
WEFT_VECTOR_FAMILY(uint64_t, ulonglong1, ulonglong2, ulonglong3, ulonglong4_16a)
WEFT_VECTOR_FAMILY(float, float1, float2, float3, float4)
WEFT_VECTOR_FAMILY(double, double1, double2, double3, double4_16a)
#undef WEFT_VECTOR_FAMILY
#if defined(WEFT_FLOAT16)
WEFT_VECTOR_LAYOUT(float16, 2, __half2)
WEFT_VECTOR_OFFSETS2(float16, __half2)
#endif
#if defined(WEFT_BFLOAT16)
WEFT_VECTOR_LAYOUT(bfloat16, 2, __nv_bfloat162)
WEFT_VECTOR_OFFSETS2(bfloat16, __nv_bfloat162)
#endif
#if defined(WEFT_FLOAT8)
WEFT_VECTOR_LAYOUT(float8e4m3, 2, __nv_fp8x2_e4m3)
WEFT_VECTOR_LAYOUT(float8e4m3, 4, __nv_fp8x4_e4m3)
WEFT_VECTOR_LAYOUT(float8e5m2, 2, __nv_fp8x2_e5m2)
WEFT_VECTOR_LAYOUT(float8e5m2, 4, __nv_fp8x4_e5m2)
#endif
#else
// The CPU target: the same numbers, written out (alignof(double) is 8 on every ABI weft runs on).
static_assert(sizeof(Vector<int8_t, 3>) == 3 && alignof(Vector<int8_t, 3>) == 1, "char3 layout");
static_assert(sizeof(Vector<int16_t, 2>) == 4 && alignof(Vector<int16_t, 2>) == 4, "short2 layout");
static_assert(sizeof(Vector<float, 3>) == 12 && alignof(Vector<float, 3>) == 4, "float3 layout");
static_assert(sizeof(Vector<float, 4>) == 16 && alignof(Vector<float, 4>) == 16, "float4 layout");
static_assert(sizeof(Vector<double, 3>) == 24 && alignof(Vector<double, 3>) == 8, "double3 layout");
static_assert(sizeof(Vector<double, 4>) == 32 && alignof(Vector<double, 4>) == 16, "double4 layout");
static_assert(sizeof(Vector<uint64_t, 2>) == 16 && alignof(Vector<uint64_t, 2>) == 16, "ulonglong2 layout");
#endif

#undef WEFT_VECTOR_LAYOUT
#undef WEFT_VECTOR_OFFSETS2
#undef WEFT_VECTOR_OFFSETS3
#undef WEFT_VECTOR_OFFSETS4

}  // namespace weft
