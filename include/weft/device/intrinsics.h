// SIMT intrinsics (thread_idx, block_idx, ..., tid, grid_size, lane_id, syncthreads) and the
// storage of shared/local arrays. On the GPU they read CUDA's built-in variables. On the CPU
// target (WEFT_TARGET_HOST) every simulated thread runs with a weft::host::ThreadContext that the
// kernel's host entry installs in the thread-local `weft::host::current`; the CPU runner
// must resume a block's fibers on the OS thread that suspended them.
#pragma once

#include "weft/device/config.h"
#include "weft/device/error_record.h"

#if defined(WEFT_TARGET_HOST)
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

// ---- Run-time checks (docs/debugging.md) ----
//
// The runtime defines WEFT_CHECKS when it lowers a unit whose checks run: with debug=True (every
// check), or when array accesses are bounds-checked on the target (by default the CPU target).
// A failed check records itself in the unit's error record, `weft_error_record` (error_record.h),
// and stops its thread: on the GPU the thread exits (no trap, so the context stays usable; a
// barrier does not wait for exited threads), on the CPU target it throws host::ThreadStopped,
// which ends the thread's fiber and the launch. The runtime reads the record after the launch
// and raises the Python exception. Without WEFT_CHECKS nothing here is compiled into a kernel.
#if defined(WEFT_CHECKS)
inline constexpr bool kChecks = true;
#else
inline constexpr bool kChecks = false;
#endif

#if defined(WEFT_CHECKS) && !defined(WEFT_TARGET_HOST) && !defined(__CUDACC_RTC__)
#error "WEFT_CHECKS is for the runtime's own lowerings (NVRTC or the CPU target)"
#endif

#if defined(WEFT_TARGET_HOST)
namespace host {
// Thrown by a failed check to end its simulated thread (the record holds what failed).
struct ThreadStopped {};
}  // namespace host
#define WEFT_CHECK_FAIL_FN
#else
#define WEFT_CHECK_FAIL_FN __host__ __device__ __noinline__
#endif

namespace detail {

// A failed check as the thread that detected it describes it.
struct Failure {
  CheckKind kind;
  uint32_t site;
  uint32_t detail;
  uint32_t rank;  // Bounds: the array's dimensions and their lengths
  const uint64_t* shape;
  uint32_t indexCount;  // Bounds: the indices of an element access, or 0
  const int64_t* index;
  int64_t axisIndex;  // Bounds: the failing axis's index and length
  uint64_t axisSize;
};

// Records `failure` unless the record holds one of an earlier thread (in block, then thread
// order), then stops the calling thread. Defined only under WEFT_CHECKS: callers are discarded
// (`if constexpr (kChecks)`) or only emitted in units that define it.
[[noreturn]] WEFT_CHECK_FAIL_FN void fail(const Failure& failure);

}  // namespace detail

// A failed `assert` (debug=True) at check site `site`; its message is in the site table.
[[noreturn]] WEFT_HD void assert_failed(uint32_t site) {
  detail::fail(detail::Failure{CheckKind::Assert, site, 0, 0, nullptr, 0, nullptr, 0, 0});
}

// The divisor `b` of an integer // or % of a debug=True kernel at check site `site`: zero
// raises ZeroDivisionError instead of giving weft's defined result 0.
template <class T>
WEFT_HD T checked_divisor(uint32_t site, T b) {
  if (b == T(0))
    detail::fail(detail::Failure{CheckKind::ZeroDivision, site, 0, 0, nullptr, 0, nullptr, 0, 0});
  return b;
}

#if defined(WEFT_CHECKS)
// The record (one per unit). Outside the namespace, extern "C": the runtime finds it by name
// (cuModuleGetGlobal, dlsym).
}  // namespace weft
#if defined(WEFT_TARGET_HOST)
extern "C" {
::weft::ErrorRecord weft_error_record;
}
#else
extern "C" {
__device__ ::weft::ErrorRecord weft_error_record;
}
#endif
namespace weft {
namespace detail {

// Failing threads serialize on the record's lock. GPU: independent thread scheduling (sm_70+)
// lets lanes of one warp spin on it; fields are accessed volatile, past the non-coherent L1.
WEFT_INTRINSIC void lockRecord(ErrorRecord& record) {
#if defined(WEFT_TARGET_HOST)
  while (__atomic_exchange_n(&record.lock, 1u, __ATOMIC_ACQUIRE) != 0u) {
  }
#else
  while (atomicCAS(&record.lock, 0u, 1u) != 0u) {
  }
  __threadfence();
#endif
}

WEFT_INTRINSIC void unlockRecord(ErrorRecord& record) {
#if defined(WEFT_TARGET_HOST)
  __atomic_store_n(&record.lock, 0u, __ATOMIC_RELEASE);
#else
  __threadfence();
  atomicExch(&record.lock, 0u);
#endif
}

WEFT_CHECK_FAIL_FN void fail(const Failure& failure) {
  const uint32_t block[3] = {block_idx_x(), block_idx_y(), block_idx_z()};
  const uint32_t thread[3] = {thread_idx_x(), thread_idx_y(), thread_idx_z()};
  // Linear orders; every thread of the launch has the same grid and block extents.
  auto blockOrder = [](const volatile uint32_t* b) {
    return b[0] + uint64_t{grid_dim_x()} * (b[1] + uint64_t{grid_dim_y()} * b[2]);
  };
  auto threadOrder = [](const volatile uint32_t* t) {
    return t[0] + uint64_t{block_dim_x()} * (t[1] + uint64_t{block_dim_y()} * t[2]);
  };
  lockRecord(weft_error_record);
  volatile ErrorRecord& record = weft_error_record;
  uint64_t myBlock = blockOrder(block), theirBlock = blockOrder(record.block);
  bool first = record.kind == static_cast<uint32_t>(CheckKind::None) || myBlock < theirBlock ||
               (myBlock == theirBlock && threadOrder(thread) < threadOrder(record.thread));
  if (first) {
    record.kind = static_cast<uint32_t>(failure.kind);
    record.site = failure.site;
    record.detail = failure.detail;
    for (int k = 0; k < 3; ++k) {
      record.block[k] = block[k];
      record.thread[k] = thread[k];
    }
    record.rank = failure.rank;
    record.indexCount = failure.indexCount;
    for (uint32_t d = 0; d < failure.rank && d < kRecordedRank; ++d) record.shape[d] = failure.shape[d];
    for (uint32_t d = 0; d < failure.indexCount && d < kRecordedRank; ++d) record.index[d] = failure.index[d];
    record.axisIndex = failure.axisIndex;
    record.axisSize = failure.axisSize;
  }
  unlockRecord(weft_error_record);
#if defined(WEFT_TARGET_HOST)
  throw host::ThreadStopped{};
#else
  asm volatile("exit;");
  __builtin_unreachable();
#endif
}

}  // namespace detail
#endif  // WEFT_CHECKS

}  // namespace weft

#undef WEFT_THREAD_VAR
#undef WEFT_INTRINSIC
#undef WEFT_CHECK_FAIL_FN

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
