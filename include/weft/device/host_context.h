// The contract between a kernel compiled for the CPU target (-DWEFT_HOST) and the CPU block
// runner of the weft runtime. Plain C++ with no dependencies: both sides include it.
#pragma once

#include <cstdint>

namespace weft::host {

struct Dim3 {
  uint32_t x, y, z;
};

// The state of one simulated GPU thread. The runner owns it; the kernel reads it through
// the thread-local pointer the entry installs (see WEFT_HOST in <weft/device/runtime.h>).
struct ThreadContext {
  Dim3 threadIdx, blockIdx, blockDim, gridDim;
  unsigned char* sharedMemory;  // this block's shared memory: static shared_arrays first
  // Suspends this thread until every thread of the block has called it (syncthreads).
  void (*barrier)(ThreadContext* self);
  void* runner;  // opaque to the kernel
};

// The signature of the CPU entry that codegen emits for each kernel: runs the kernel body as
// the thread `context` with the packed arguments (args[i] points at parameter i's value).
using KernelEntry = void (*)(ThreadContext* context, void** args);

}  // namespace weft::host
