// weft's sm_90a (Hopper) building blocks, usable from CUDA C++ (nvcc -arch=sm_90a, NVRTC
// -arch=sm_90a) and by weft's generated code (docs/tiles.md, "Hopper building blocks (C++)"):
// mbarriers and a ring of stages, clusters, elect.sync and setmaxnreg (sm90/sync.h); TMA loads,
// multicast and stores (sm90/tma.h); swizzled shared-memory tiles, wgmma descriptors and the
// accumulator layout (sm90/layout.h: constexpr, host C++ too); wgmma and stmatrix
// (sm90/wgmma.h); tensor-map encoding on the host (sm90/tensor_map.h). Namespace
// weft::tiles::sm90.
//
// wgmma, setmaxnreg and multicast loads are sm_90a instructions: in a device pass for another
// architecture (such as the compute_90 PTX that nvcc -arch=sm_90a embeds besides the sm_90a code)
// they trap. The rest needs sm_90. The tile header includes this file where
// __CUDA_ARCH_FEAT_SM90_ALL is defined (sm_90a device code, nvcc or NVRTC).
#pragma once

#include "weft/device/config.h"

#if defined(WEFT_TARGET_HOST)
#error "<weft/tiles/sm90.h> is for CUDA C++ compiled for sm_90a; the CPU target has no Hopper building blocks"
#endif

#include "weft/tiles/sm90/layout.h"

// A Hopper building block: a device function inlined into its caller.
#define WEFT_SM90_FN __device__ __forceinline__
// An inline asm statement of an sm_90a instruction (a trap elsewhere, see above).
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WEFT_SM90A_ASM(...) __trap()
#else
#define WEFT_SM90A_ASM(...) asm volatile(__VA_ARGS__)
#endif
#include "weft/tiles/sm90/sync.h"
#include "weft/tiles/sm90/tma.h"
#include "weft/tiles/sm90/wgmma.h"

#if !defined(__CUDACC_RTC__)
#include "weft/tiles/sm90/tensor_map.h"
#endif
