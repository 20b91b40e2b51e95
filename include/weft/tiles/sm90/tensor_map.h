// Host side of the sm_90a TMA copies (docs/tiles.md, "Hopper building blocks (C++)"): encoding a
// CUtensorMap for a dense row-major array through the driver's cuTensorMapEncodeTiled, reached
// by cudaGetDriverEntryPointByVersion so that programs need not link libcuda.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

namespace weft::tiles::sm90 {

static_assert(sizeof(tensor_map) == sizeof(CUtensorMap) && alignof(tensor_map) == alignof(CUtensorMap),
              "tensor_map mirrors CUtensorMap");

// Encodes into `map` the tiled tensor map of the dense row-major Rank-D array at `base`
// (16-byte aligned) of ElementBytes-byte elements (1, 2, 4 or 8) with `extents` (outermost
// first; the innermost extent times ElementBytes a multiple of 16), copied in boxes of `box`
// (outermost first; each at most 256, the innermost box row at most the swizzle width in bytes
// when swizzled) landing in shared memory with `mode`'s swizzle. Elements outside the array read
// as zero. Returns the driver's status (CUDA_SUCCESS, or why the encoding failed).
template <int Rank>
CUresult make_tensor_map(CUtensorMap* map, const void* base, uint32_t elementBytes,
                         const uint64_t (&extents)[Rank], const uint32_t (&box)[Rank], swizzle mode) {
  static_assert(Rank >= 1 && Rank <= 5, "tiled tensor maps have 1 to 5 dimensions");
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      function = nullptr;
    }
    return reinterpret_cast<Encode>(function);
  }();
  if (encode == nullptr) return CUDA_ERROR_NOT_FOUND;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  switch (elementBytes) {
    case 1: type = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;
    case 2: type = CU_TENSOR_MAP_DATA_TYPE_UINT16; break;
    case 4: type = CU_TENSOR_MAP_DATA_TYPE_UINT32; break;
    case 8: type = CU_TENSOR_MAP_DATA_TYPE_UINT64; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  // The driver lists dimensions innermost first, and the byte strides of all but the innermost.
  cuuint64_t dims[Rank], strides[Rank > 1 ? Rank - 1 : 1];
  cuuint32_t boxDims[Rank], elementStrides[Rank];
  cuuint64_t stride = elementBytes;
  for (int d = 0; d < Rank; ++d) {
    dims[d] = extents[Rank - 1 - d];
    boxDims[d] = box[Rank - 1 - d];
    elementStrides[d] = 1;
    if (d > 0) strides[d - 1] = stride;
    stride *= dims[d];
  }
  return encode(map, type, Rank, const_cast<void*>(base), dims, strides, boxDims, elementStrides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(mode),
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

}  // namespace weft::tiles::sm90
