// Target configuration shared by every weft device header and by the generated code: the
// fixed-width integer types and the function/storage qualifiers, spelled so that one
// translation unit compiles with NVRTC or nvcc for the GPU and, with -DWEFT_HOST, with the
// host C++ compiler for the CPU target.
#pragma once

#if defined(__CUDACC_RTC__)
// NVRTC has no standard headers unless the toolkit's include folder is on its path, and
// parsing them would dominate compile time: declare the fixed-width integers ourselves.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif

// WEFT_TARGET_HOST: compiling for the CPU target (or by a plain C++ compiler, e.g. for the
// headers' own unit tests).
#if defined(WEFT_HOST) || !defined(__CUDACC__)
#define WEFT_TARGET_HOST 1
#include <cmath>
// Host and device helpers: plain inline functions on the CPU target.
#define WEFT_HD inline
// A generated device function, and one that must not be inlined (recursive).
#define WEFT_DEVICE_FN static inline
#define WEFT_DEVICE_FN_NOINLINE static
// The same for a function an interoperable function calls: compiled for the host as well.
#define WEFT_HOST_DEVICE_FN static inline
#define WEFT_HOST_DEVICE_FN_NOINLINE static
// An interoperable function (@func(interop=True)): its Python name as an extern "C" symbol.
#define WEFT_INTEROP_FN extern "C"
// A generated kernel: an ordinary C function that the host entry calls per thread.
#define WEFT_KERNEL extern "C"
// A generated tile kernel: one thread runs a whole tile block on the CPU target.
#define WEFT_TILE_KERNEL extern "C"
// Read-only data of the program (a global NumPy array's elements): in constant memory where it
// fits, else in global memory, on the GPU; a static array on the CPU target.
#define WEFT_CONSTANT_DATA alignas(16) static const
#define WEFT_GLOBAL_DATA alignas(16) static const
#else
#define WEFT_HD __host__ __device__ __forceinline__
#define WEFT_DEVICE_FN static __device__ __forceinline__
#define WEFT_DEVICE_FN_NOINLINE static __device__ __noinline__
#define WEFT_HOST_DEVICE_FN static __host__ __device__ __forceinline__
#define WEFT_HOST_DEVICE_FN_NOINLINE static __host__ __device__ __noinline__
#define WEFT_INTEROP_FN extern "C" __host__ __device__
#define WEFT_KERNEL extern "C" __global__
#define WEFT_CONSTANT_DATA alignas(16) static __constant__ const
#define WEFT_GLOBAL_DATA alignas(16) static __device__ const
// A generated tile kernel: its tile block is one CTA of WEFT_TILE_THREADS threads, with registers
// for WEFT_TILE_MIN_BLOCKS of them on an SM (the unit defines both; include/weft/tiles.h).
#if !defined(WEFT_TILE_MIN_BLOCKS)
#define WEFT_TILE_MIN_BLOCKS 1
#endif
#define WEFT_TILE_KERNEL extern "C" __global__ __launch_bounds__(WEFT_TILE_THREADS, WEFT_TILE_MIN_BLOCKS)
#endif
