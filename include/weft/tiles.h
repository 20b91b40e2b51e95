// weft's tile library (namespace weft::tiles): the Tile C++ model of
// shared/spec/cuda-tile-cpp-general-principles.txt as a header for CUDA C++ (nvcc, NVRTC) and
// for host C++ (-DWEFT_HOST: the CPU target). docs/tiles-cpp.md is its reference;
// <weft/cuda_tile.h> exposes it as cuda::tiles.
#pragma once

#include "weft/tiles/config.h"
#include "weft/tiles/traits.h"
#include "weft/tiles/extents.h"
#include "weft/tiles/tile.h"
#include "weft/tiles/scalar_ops.h"
#include "weft/tiles/elementwise.h"
#include "weft/tiles/memory.h"
#include "weft/tiles/shape_ops.h"
#include "weft/tiles/reduce.h"
#include "weft/tiles/atomic.h"
#include "weft/tiles/mma.h"
// The pipelined K loops, with the Hopper building blocks (weft/tiles/sm90.h) in sm_90a device code.
#include "weft/tiles/mma_pipeline_tma.h"
#include "weft/tiles/block.h"
