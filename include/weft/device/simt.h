// SIMT programming beyond the thread position (shared/spec/SIMT.md): block votes
// (syncthreads_count/and/or), warp masks, warp votes, shuffles and matches, the numeric
// intrinsics (popc brev clz ffs cbrt fma), dynamic shared memory and aligned shared storage.
// Codegen includes this header only into units that use one of them.
//
// On the GPU each function is the CUDA intrinsic of the same name. On the CPU target the
// lanes of a warp (32 consecutive linear thread indices of a block, CUDA's rule) run as
// fibers of one OS thread; every collective is a rendezvous through the runner's
// ThreadContext::warpExchange, which returns each participating lane's 64-bit value, so the
// result is computed here from the same values the GPU would exchange.
#pragma once

#include "weft/device/array.h"
#include "weft/device/intrinsics.h"
#include "weft/device/numeric.h"

#if defined(WEFT_TARGET_HOST)
#include <cstring>
#define WEFT_SIMT inline
#else
#define WEFT_SIMT __device__ __forceinline__
#endif

namespace weft {

namespace detail {

#if defined(WEFT_TARGET_HOST)
// The calling lane's position in its block, linear (x fastest).
inline uint32_t linearThread(const host::ThreadContext& thread) {
  return thread.threadIdx.x +
         thread.blockDim.x * (thread.threadIdx.y + thread.blockDim.y * thread.threadIdx.z);
}
// Meets the other lanes of `mask` (the caller always takes part) and fills values[lane] with
// each participant's `value`; returns the participants. The runner switches fibers, so the
// caller re-installs itself as the current thread afterwards.
inline uint32_t warpExchange(uint32_t mask, uint64_t value, uint64_t* values) {
  host::ThreadContext* self = host::current;
  uint32_t lanes = self->warpExchange(self, mask, value, values);
  host::current = self;
  return lanes;
}
#endif

}  // namespace detail

// ---- block votes: every thread of the block must call them ----

WEFT_SIMT int32_t syncthreads_count(bool predicate) {
#if defined(WEFT_TARGET_HOST)
  host::ThreadContext* self = host::current;
  int32_t count = self->barrierCount(self, predicate ? 1 : 0);
  host::current = self;
  return count;
#else
  return __syncthreads_count(predicate);
#endif
}
WEFT_SIMT bool syncthreads_and(bool predicate) {
#if defined(WEFT_TARGET_HOST)
  // No participant's predicate is false: threads that have returned take no part, as on the GPU.
  return syncthreads_count(!predicate) == 0;
#else
  return __syncthreads_and(predicate) != 0;
#endif
}
WEFT_SIMT bool syncthreads_or(bool predicate) {
#if defined(WEFT_TARGET_HOST)
  return syncthreads_count(predicate) != 0;
#else
  return __syncthreads_or(predicate) != 0;
#endif
}

// ---- warp masks (WarpMask is a uint32: bit i is lane i) ----

// The lanes executing this call together. CPU target: the lanes of the warp that reach this
// call site (`site`, codegen's number for it) while the others have returned or wait elsewhere.
WEFT_SIMT uint32_t activemask(uint64_t site) {
#if defined(WEFT_TARGET_HOST)
  host::ThreadContext* self = host::current;
  uint32_t lanes = self->warpActiveMask(self, site);
  host::current = self;
  return lanes;
#else
  static_cast<void>(site);
  return __activemask();
#endif
}
// The lanes below the calling one.
WEFT_SIMT uint32_t lanemask_lt() {
  return (1u << static_cast<uint32_t>(lane_id())) - 1u;
}
// mask[lane]: whether the lane's bit is set (false for a lane outside 0..31, which sema
// rejects when the lane is a constant).
WEFT_SIMT bool lane_bit(uint32_t mask, int64_t lane) {
  return lane >= 0 && lane < 32 && ((mask >> lane) & 1u) != 0;
}
// mask[lane] = bit: the mask with the lane's bit set or cleared (unchanged for a lane outside 0..31).
WEFT_SIMT uint32_t with_lane_bit(uint32_t mask, int64_t lane, bool bit) {
  if (lane < 0 || lane >= 32) return mask;
  uint32_t one = 1u << lane;
  return bit ? mask | one : mask & ~one;
}
WEFT_SIMT void syncwarp(uint32_t mask) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  detail::warpExchange(mask, 0, values);
#else
  __syncwarp(mask);
#endif
}

// ---- warp votes ----

WEFT_SIMT bool all_sync(uint32_t mask, bool predicate) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint32_t lanes = detail::warpExchange(mask, predicate, values);
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && !values[lane]) return false;
  }
  return true;
#else
  return __all_sync(mask, predicate) != 0;
#endif
}
WEFT_SIMT bool any_sync(uint32_t mask, bool predicate) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint32_t lanes = detail::warpExchange(mask, predicate, values);
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && values[lane]) return true;
  }
  return false;
#else
  return __any_sync(mask, predicate) != 0;
#endif
}
// True when the predicate has the same value in every lane of the mask.
WEFT_SIMT bool eq_sync(uint32_t mask, bool predicate) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint32_t lanes = detail::warpExchange(mask, predicate, values);
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && values[lane] != static_cast<uint64_t>(predicate)) return false;
  }
  return true;
#else
  return __uni_sync(mask, predicate) != 0;
#endif
}
WEFT_SIMT uint32_t ballot_sync(uint32_t mask, bool predicate) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint32_t lanes = detail::warpExchange(mask, predicate, values);
  uint32_t ballot = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && values[lane]) ballot |= 1u << lane;
  }
  return ballot;
#else
  return __ballot_sync(mask, predicate);
#endif
}

// ---- shuffles: values of at most 8 bytes, moved as bits (two 32-bit shuffles for 8) ----

enum class Shuffle { Index, Up, Down, Xor };

namespace detail {

#if !defined(WEFT_TARGET_HOST)
template <Shuffle S>
__device__ __forceinline__ uint32_t shuffle32(uint32_t mask, uint32_t bits, int32_t operand) {
  if constexpr (S == Shuffle::Index) {
    return __shfl_sync(mask, bits, operand);
  } else if constexpr (S == Shuffle::Up) {
    return __shfl_up_sync(mask, bits, static_cast<unsigned>(operand));
  } else if constexpr (S == Shuffle::Down) {
    return __shfl_down_sync(mask, bits, static_cast<unsigned>(operand));
  } else {
    return __shfl_xor_sync(mask, bits, operand);
  }
}
#endif

// The lane a shuffle reads for `lane`, or -1 for its own value (CUDA's rules for width 32).
WEFT_HD int shuffleSource(Shuffle kind, int lane, int32_t operand) {
  switch (kind) {
    case Shuffle::Index: return operand & 31;
    case Shuffle::Up: return operand < 0 || operand > lane ? -1 : lane - operand;
    case Shuffle::Down: return operand < 0 || lane + operand > 31 ? -1 : lane + operand;
    case Shuffle::Xor: {
      int source = lane ^ operand;
      return source < 0 || source > 31 ? -1 : source;
    }
  }
  return -1;
}

}  // namespace detail

// shfl_sync (Index: from lane `operand`), shfl_up_sync / shfl_down_sync (by `operand` lanes),
// shfl_xor_sync (from lane ^ `operand`).
template <Shuffle S, class T>
WEFT_SIMT T shuffle(uint32_t mask, T value, int32_t operand) {
  static_assert(sizeof(T) <= 8, "shuffles move values of at most 8 bytes");
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint32_t lanes = detail::warpExchange(mask, detail::toBits(value), values);
  int source = detail::shuffleSource(S, lane_id(), operand);
  if (source < 0 || !(lanes >> source & 1u)) return value;
  return detail::fromBits<T>(values[source]);
#else
  uint64_t bits = detail::toBits(value);
  uint32_t low = detail::shuffle32<S>(mask, static_cast<uint32_t>(bits), operand);
  if constexpr (sizeof(T) <= 4) {
    return detail::fromBits<T>(low);
  } else {
    uint32_t high = detail::shuffle32<S>(mask, static_cast<uint32_t>(bits >> 32), operand);
    return detail::fromBits<T>(uint64_t{high} << 32 | low);
  }
#endif
}

// ---- matches: lanes of the mask holding the same bits ----

template <class T>
WEFT_SIMT uint32_t match_any_sync(uint32_t mask, T value) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint64_t mine = detail::toBits(value);
  uint32_t lanes = detail::warpExchange(mask, mine, values);
  uint32_t same = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && values[lane] == mine) same |= 1u << lane;
  }
  return same;
#else
  if constexpr (sizeof(T) <= 4) {
    return __match_any_sync(mask, static_cast<unsigned>(detail::toBits(value)));
  } else {
    return __match_any_sync(mask, static_cast<unsigned long long>(detail::toBits(value)));
  }
#endif
}

// match_all_sync's (lanes, all equal): the participating lanes when every one holds the same
// bits, else 0. The participants are the lanes of the mask that exist and have not returned (a
// block of 10 threads with a full mask: the 10 lanes, as the GPU answers).
template <class T>
WEFT_SIMT uint32_t match_all_sync(uint32_t mask, T value, bool* all) {
#if defined(WEFT_TARGET_HOST)
  uint64_t values[32];
  uint64_t mine = detail::toBits(value);
  uint32_t lanes = detail::warpExchange(mask, mine, values);
  for (int lane = 0; lane < 32; ++lane) {
    if ((lanes >> lane & 1u) && values[lane] != mine) {
      *all = false;
      return 0;
    }
  }
  *all = true;
  return lanes;
#else
  int predicate = 0;
  uint32_t result;
  if constexpr (sizeof(T) <= 4) {
    result = __match_all_sync(mask, static_cast<unsigned>(detail::toBits(value)), &predicate);
  } else {
    result = __match_all_sync(mask, static_cast<unsigned long long>(detail::toBits(value)), &predicate);
  }
  *all = predicate != 0;
  return result;
#endif
}

// match_all_sync as weft's (WarpMask, bool) tuple type `Tuple`.
template <class Tuple, class T>
WEFT_SIMT Tuple match_all(uint32_t mask, T value) {
  bool all = false;
  uint32_t lanes = match_all_sync(mask, value, &all);
  return Tuple{lanes, all};
}

// ---- numeric intrinsics (integers: their own width; the result of popc/clz/ffs is int32) ----
// Host and device functions: an interoperable function may use them on the host (nvcc's host
// pass, like the CPU target, has no __CUDA_ARCH__).

template <class T>
WEFT_HD int32_t popc(T x) {
  using U = typename detail::Traits<T>::U;
  uint64_t bits = static_cast<U>(x);
#if !defined(__CUDA_ARCH__)
  return __builtin_popcountll(bits);
#else
  return __popcll(bits);
#endif
}
// The bits of x in reverse order, within its width.
template <class T>
WEFT_HD T brev(T x) {
  using U = typename detail::Traits<T>::U;
  constexpr int bits = detail::Traits<T>::kBits;
  uint64_t value = static_cast<U>(x);
#if !defined(__CUDA_ARCH__)
  uint64_t reversed = 0;
  for (int i = 0; i < 64; ++i) reversed |= ((value >> i) & 1u) << (63 - i);
#else
  uint64_t reversed = __brevll(value);
#endif
  return static_cast<T>(static_cast<U>(reversed >> (64 - bits)));
}
// Leading zero bits within the width of T.
template <class T>
WEFT_HD int32_t clz(T x) {
  using U = typename detail::Traits<T>::U;
  constexpr int bits = detail::Traits<T>::kBits;
  uint64_t value = static_cast<U>(x);
  if (value == 0) return bits;
#if !defined(__CUDA_ARCH__)
  return __builtin_clzll(value) - (64 - bits);
#else
  return __clzll(static_cast<long long>(value)) - (64 - bits);
#endif
}
// The position of the least significant set bit, counting from 1; 0 when x == 0.
template <class T>
WEFT_HD int32_t ffs(T x) {
  using U = typename detail::Traits<T>::U;
  uint64_t value = static_cast<U>(x);
#if !defined(__CUDA_ARCH__)
  return __builtin_ffsll(static_cast<long long>(value));
#else
  return __ffsll(static_cast<long long>(value));
#endif
}

// ---- dynamic shared memory ----

// The launch's `shared` bytes as a 1-D uint8 array. GPU: the extern __shared__ block, sized
// by %dynamic_smem_size. CPU: after the unit's static shared arrays (`staticBytes`, a
// multiple of 16), in the block's shared memory the runner allocates.
WEFT_SIMT Array<uint8_t, 1> dynamic_shared_array(uint64_t staticBytes) {
#if defined(WEFT_TARGET_HOST)
  const host::ThreadContext& thread = *host::current;
  return Array<uint8_t, 1>{thread.sharedMemory + staticBytes, {thread.dynamicSharedBytes}, {1}};
#else
  static_cast<void>(staticBytes);
  extern __shared__ __align__(16) uint8_t weft_dynamic_shared[];
  uint32_t bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return Array<uint8_t, 1>{weft_dynamic_shared, {bytes}, {1}};
#endif
}

}  // namespace weft

// Storage of a shared_array with `align=`: the CPU target's offset is already aligned by
// codegen; the GPU's static array says so.
#if defined(WEFT_TARGET_HOST)
#define WEFT_SHARED_STORAGE_ALIGNED(T, name, count, offset, align) \
  T* const name = reinterpret_cast<T*>(::weft::host::current->sharedMemory + (offset))
#else
#define WEFT_SHARED_STORAGE_ALIGNED(T, name, count, offset, align) \
  __shared__ __align__(align)                                      \
  T name[count]
#endif
// Storage of a local_array with `align=`.
#define WEFT_LOCAL_STORAGE_ALIGNED(T, name, count, align) alignas(align) T name[count]

#undef WEFT_SIMT
