// The contract between a kernel compiled for the CPU target (-DWEFT_HOST) and the CPU block
// runner of the weft runtime. Plain C++ with no dependencies: both sides include it.
#pragma once

#include <cstdint>

namespace weft::host {

struct Dim3 {
  uint32_t x, y, z;
};

// Loop back-edges call ThreadContext::checkpoint once per this many iterations of one loop.
inline constexpr uint32_t kLoopCheckpointPeriod = 1024;

// The state of one simulated GPU thread. The runner owns it; the kernel reads it through
// the thread-local pointer the entry installs (see WEFT_HOST in <weft/device/runtime.h>).
// Every function below may switch to another simulated thread (a fiber) before it returns, so
// the caller re-installs itself as the current thread afterwards.
struct ThreadContext {
  Dim3 threadIdx, blockIdx, blockDim, gridDim;
  unsigned char* sharedMemory;  // this block's shared memory: static shared_arrays first
  // Suspends this thread until every thread of the block that has not returned has called it
  // (syncthreads).
  void (*barrier)(ThreadContext* self);
  void* runner;  // opaque to the kernel
  // Bytes of dynamic shared memory (the launch's `shared`), which follow the unit's static
  // shared arrays (a multiple of 16 bytes) in `sharedMemory`.
  uint64_t dynamicSharedBytes;
  // syncthreads_count: a block barrier that returns how many threads passed a nonzero
  // `predicate` (threads that have returned take no part).
  int32_t (*barrierCount)(ThreadContext* self, int32_t predicate);
  // A warp rendezvous: waits until every lane of this thread's warp (32 consecutive linear
  // thread indices) named in `mask` that exists and has not returned has called it (the caller
  // always takes part), then writes each participant's `value` to values[lane] (other lanes:
  // 0) and returns the participants' mask.
  uint32_t (*warpExchange)(ThreadContext* self, uint32_t mask, uint64_t value, uint64_t* values);
  // activemask at call site `site`: waits until every other live lane of this thread's warp
  // has either called it at the same site or is blocked elsewhere (at a barrier, in another
  // collective, in activemask at another site), and returns the lanes that called it together:
  // the lanes converged here, as on the GPU.
  uint32_t (*warpActiveMask)(ThreadContext* self, uint64_t site);
  // Lets the other threads of the block, and other blocks, run: a thread that waits for
  // memory calls it between polls (AtomicRef.wait each time; every atomic operation and fence
  // when `pollsLeft` runs out, which it resets).
  void (*yieldThread)(ThreadContext* self);
  // Called from loop back-edges (WEFT_LOOP_CHECKPOINT): does not return when the launch was
  // cancelled (Ctrl-C, or another thread failed); null where nothing can cancel.
  void (*checkpoint)(ThreadContext* self);
  // Atomic operations and fences left before this thread calls yieldThread.
  uint32_t pollsLeft;
};

// The signature of the CPU entry that codegen emits for each kernel: runs the kernel body as
// the thread `context` with the packed arguments (args[i] points at parameter i's value).
using KernelEntry = void (*)(ThreadContext* context, void** args);

}  // namespace weft::host
