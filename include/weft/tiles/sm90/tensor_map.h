// Host side of the sm_90a TMA copies (docs/tiles.md, "Hopper building blocks (C++)"): encoding a
// CUtensorMap for a dense row-major array through the driver's cuTensorMapEncodeTiled, reached
// by cudaGetDriverEntryPointByVersion so that programs need not link libcuda.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

namespace weft::tiles::sm90 {

static_assert(sizeof(tensor_map) == sizeof(CUtensorMap) && alignof(tensor_map) == alignof(CUtensorMap),
              "tensor_map mirrors CUtensorMap");

// Encodes into `map` the tiled tensor map of the dense row-major Rank-D array at `base` of
// ElementBytes-byte elements (1, 2, 4 or 8) with `extents` (outermost first), copied in boxes of
// `box` (outermost first) landing in shared memory with `mode`'s swizzle; tensor_map_error
// (layout.h) lists the rules they must keep. Elements outside the array read as zero. Returns
// the driver's status: CUDA_SUCCESS, or CUDA_ERROR_INVALID_VALUE with the broken rule in
// `*error` (when `error` is given; also when the driver refuses, or CUDA_ERROR_NOT_FOUND without
// cuTensorMapEncodeTiled).
template <int Rank>
CUresult make_tensor_map(CUtensorMap* map, const void* base, uint32_t elementBytes,
                         const uint64_t (&extents)[Rank], const uint32_t (&box)[Rank], swizzle mode,
                         const char** error = nullptr) {
  const char* ignored = nullptr;
  const char*& why = error != nullptr ? *error : ignored;
  why = tensor_map_error<Rank>(reinterpret_cast<uintptr_t>(base), elementBytes, extents, box, mode);
  if (why != nullptr) return CUDA_ERROR_INVALID_VALUE;
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
  if (encode == nullptr) {
    why = "the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12)";
    return CUDA_ERROR_NOT_FOUND;
  }
  // tensor_map_error allowed only these element sizes.
  const CUtensorMapDataType type = elementBytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : elementBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : elementBytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                       : CU_TENSOR_MAP_DATA_TYPE_UINT64;
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
  const CUresult status = encode(map, type, Rank, const_cast<void*>(base), dims, strides, boxDims, elementStrides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(mode),
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) why = "cuTensorMapEncodeTiled refused the tensor map";
  return status;
}

}  // namespace weft::tiles::sm90
