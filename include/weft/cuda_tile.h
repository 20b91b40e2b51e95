// <weft/cuda_tile.h>: the Tile C++ API of shared/spec/cuda-tile-cpp-general-principles.txt in
// namespace cuda::tiles, for CUDA C++ today (CUDA 13.0 has no cuda_tile.h): a program written for
// the seed compiles with its include line changed to this one. See docs/tiles-cpp.md.
//
// GPU: compile with -std=c++20 for sm_80 or later; launch a __tile_global__ kernel with
// cuda::tiles::kBlockThreads threads per block (WEFT_TILE_THREADS, default 128) and one block
// per tile block: kernel<<<grid, cuda::tiles::kBlockThreads>>>(...). The basic floating point
// types __half and __nv_bfloat16 are included (they are weft::float16 and weft::bfloat16); the
// fp8 types too when the program included cuda_fp8.h first or defines WEFT_FLOAT8.
// CPU: compile with -DWEFT_HOST; weft::tiles::host_launch(grid, kernel, args...) runs it.
#pragma once

#if !defined(WEFT_HOST) && defined(__CUDACC__)
#if !defined(WEFT_FLOAT16)
#define WEFT_FLOAT16 1
#endif
#if !defined(WEFT_BFLOAT16)
#define WEFT_BFLOAT16 1
#endif
#if !defined(WEFT_FLOAT8) && defined(__CUDA_FP8_H__)
#define WEFT_FLOAT8 1
#endif
#endif

#include "weft/tiles.h"

namespace cuda {
namespace tiles = ::weft::tiles;
}  // namespace cuda

// A tile kernel: a __global__ function run by kBlockThreads threads per tile block. (CUDA 13.0's
// headers reserve the name for the compiler's own tile mode, which this header replaces.)
#if defined(__tile_global__)
#undef __tile_global__
#endif
#if defined(WEFT_TARGET_HOST)
#define __tile_global__
#else
#define __tile_global__ __global__ __launch_bounds__(::weft::tiles::kBlockThreads)
#endif
