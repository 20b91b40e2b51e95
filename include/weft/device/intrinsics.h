// SIMT intrinsics (thread_idx, block_idx, ..., tid, grid_size, lane_id, syncthreads) and the
// storage of shared/local arrays. On the GPU they read CUDA's built-in variables. On the CPU
// target (WEFT_TARGET_HOST) every simulated thread runs with a weft::host::ThreadContext that the
// kernel's host entry installs in the thread-local `weft::host::current`; the CPU runner
// must resume a block's fibers on the OS thread that suspended them.
#pragma once

#include "weft/device/config.h"

#if defined(WEFT_TARGET_HOST)
#include <stdexcept>
#include <string>

#include "weft/device/host_context.h"

namespace weft::host {
// The simulated thread running on this OS thread (inline: one per loaded kernel library).
inline thread_local ThreadContext* current = nullptr;
// A loop's periodic checkpoint: the runner may cancel the thread here (never returning) or let
// another thread run. Outside a launch (an interoperable function called by host C++) nothing
// is current and it does nothing.
inline void loopCheckpoint() {
  ThreadContext* self = current;
  if (self == nullptr || self->checkpoint == nullptr) return;
  self->checkpoint(self);
  current = self;
}
}  // namespace weft::host

// Every loop of device code counts its iterations in a local counter (a register) and calls
// the runner every kLoopCheckpointPeriod of them, so that any launch can be cancelled and
// never hangs the process (a `while True` kernel stops on Ctrl-C). Nothing on the GPU.
#define WEFT_LOOP_TICKS(name) uint32_t name = 0
#define WEFT_LOOP_CHECKPOINT(name)                                                \
  do {                                                                            \
    if (__builtin_expect(++(name) % ::weft::host::kLoopCheckpointPeriod == 0, 0)) \
      ::weft::host::loopCheckpoint();                                             \
  } while (0)

#define WEFT_THREAD_VAR(name, component) (::weft::host::current->name.component)
#define WEFT_INTRINSIC inline
#else
#define WEFT_THREAD_VAR(name, component) (name.component)
#define WEFT_INTRINSIC __device__ __forceinline__
#define WEFT_LOOP_TICKS(name)
#define WEFT_LOOP_CHECKPOINT(name)
#if !defined(__CUDACC_RTC__)
#include <cstdio>  // printf in nvcc's host pass (assert_fail of an interoperable function)
#endif
#endif

namespace weft {

#define WEFT_DIM3_INTRINSICS(component)                                             \
  WEFT_INTRINSIC uint32_t thread_idx_##component() {                                \
    return WEFT_THREAD_VAR(threadIdx, component);                                   \
  }                                                                                 \
  WEFT_INTRINSIC uint32_t block_idx_##component() {                                 \
    return WEFT_THREAD_VAR(blockIdx, component);                                    \
  }                                                                                 \
  WEFT_INTRINSIC uint32_t block_dim_##component() {                                 \
    return WEFT_THREAD_VAR(blockDim, component);                                    \
  }                                                                                 \
  WEFT_INTRINSIC uint32_t grid_dim_##component() {                                  \
    return WEFT_THREAD_VAR(gridDim, component);                                     \
  }                                                                                 \
  /* tid() and grid_size() are int32 (builtin int); the uint32 product wraps. */    \
  WEFT_INTRINSIC int32_t tid_##component() {                                        \
    return static_cast<int32_t>(block_idx_##component() * block_dim_##component() + \
                                thread_idx_##component());                          \
  }                                                                                 \
  WEFT_INTRINSIC int32_t grid_size_##component() {                                  \
    return static_cast<int32_t>(block_dim_##component() * grid_dim_##component());  \
  }
WEFT_DIM3_INTRINSICS(x)
WEFT_DIM3_INTRINSICS(y)
WEFT_DIM3_INTRINSICS(z)
#undef WEFT_DIM3_INTRINSICS

// The warp width; lanes are numbered by the linear thread index within the block (CUDA's
// rule), so the CPU target numbers them the same way.
WEFT_INTRINSIC int32_t warp_size() {
  return 32;
}
WEFT_INTRINSIC int32_t lane_id() {
#if defined(WEFT_TARGET_HOST)
  const host::ThreadContext& thread = *host::current;
  uint32_t linear =
      thread.threadIdx.x + thread.blockDim.x * (thread.threadIdx.y + thread.blockDim.y * thread.threadIdx.z);
  return static_cast<int32_t>(linear % 32u);
#else
  uint32_t lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int32_t>(lane);
#endif
}

// syncthreads(): a block-wide barrier. On the CPU target the barrier switches fibers, and
// another simulated thread installs itself meanwhile, so this one re-installs itself after.
WEFT_INTRINSIC void syncthreads() {
#if defined(WEFT_TARGET_HOST)
  host::ThreadContext* self = host::current;
  self->barrier(self);
  host::current = self;
#else
  __syncthreads();
#endif
}

// A failed run-time check of a debug build (an `assert`, a view's precondition): reports
// `file:line: what` and stops the kernel. On the GPU the trap makes the launch fail (the
// runtime raises weft.CudaError); on the CPU target it throws for the runner to rethrow, since
// trapping would kill the user's process. Host and device: an interoperable function compiled
// by nvcc for C++ host code stops that program.
WEFT_HD void check_fail(const char* file, int line, const char* what) {
#if defined(WEFT_TARGET_HOST)
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what);
#else
  printf("%s:%d: %s\n", file, line, what);
#if defined(__CUDA_ARCH__)
  __trap();
#else
  __builtin_trap();
#endif
#endif
}

// A failed `assert` (debug builds).
WEFT_HD void assert_fail(const char* file, int line) {
  check_fail(file, line, "assertion failed");
}

}  // namespace weft

#undef WEFT_THREAD_VAR
#undef WEFT_INTRINSIC

// Storage of a shared_array of `count` elements of T, declared at the top of the function
// that creates it. GPU: a static __shared__ array. CPU: the block's shared memory at byte
// `offset`, which codegen assigns (EmittedUnit::hostSharedBytes is the total).
#if defined(WEFT_TARGET_HOST)
#define WEFT_SHARED_STORAGE(T, name, count, offset) \
  T* const name = reinterpret_cast<T*>(::weft::host::current->sharedMemory + (offset))
#else
#define WEFT_SHARED_STORAGE(T, name, count, offset) __shared__ T name[count]
#endif
// Storage of a local_array: per thread, on both targets.
#define WEFT_LOCAL_STORAGE(T, name, count) T name[count]
