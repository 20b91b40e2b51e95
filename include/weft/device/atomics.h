// Atomics (shared/spec/SIMT.md "Synchronization"): Atomic<T, Align> owns an atomically
// accessed scalar (an element of shared_array(n, Atomic(dtype))); AtomicRef<T> refers to
// one (AtomicRef(array, index), or an element of an Atomic array); each operation takes its
// memory order and thread scope as template arguments, which sema validated.
//
// GPU: CUDA's atomic builtins at the scope's variant (atomicAdd_block, atomicAdd,
// atomicAdd_system), with fences of the same scope before (release) and after (acquire)
// the operation; operations CUDA has no builtin for (float max/min, 8- and 16-bit exch/cas)
// are compare-and-swap loops. libcu++'s cuda::atomic_ref would do the same but costs NVRTC
// far more header parsing than the whole rest of a unit. CPU: GCC/Clang __atomic builtins.
#pragma once

#include "weft/device/intrinsics.h"
#include "weft/device/numeric.h"

#if defined(WEFT_TARGET_HOST)
#define WEFT_ATOMIC inline
#else
#define WEFT_ATOMIC __device__ __forceinline__
#endif

namespace weft {

// The memory orders and thread scopes, numbered as sema encodes them.
enum MemoryOrder : int { kRelaxed = 0, kConsume = 1, kAcquire = 2, kRelease = 3, kAcqRel = 4, kSeqCst = 5 };
enum ThreadScope : int { kThread = 0, kBlock = 1, kDevice = 2, kSystem = 3 };

// An atomically accessed T, aligned to at least `Align` bytes (0: T's own alignment).
template <class T, int Align>
struct alignas(Align > int(alignof(T)) ? Align : int(alignof(T))) Atomic {
  T value;
};

// A reference to an atomically accessed T.
template <class T>
struct AtomicRef {
  T* target;
};

// AtomicRef(array, index) and the elements of Atomic arrays.
template <class T>
WEFT_HD AtomicRef<T> atomic_ref_of(T& place) {
  return AtomicRef<T>{&place};
}
template <class T, int Align>
WEFT_HD AtomicRef<T> atomic_ref_of(Atomic<T, Align>& place) {
  return AtomicRef<T>{&place.value};
}

namespace detail {

#if defined(WEFT_TARGET_HOST)
constexpr int hostOrder(int order) {
  return order == kRelaxed   ? __ATOMIC_RELAXED
         : order == kConsume ? __ATOMIC_CONSUME
         : order == kAcquire ? __ATOMIC_ACQUIRE
         : order == kRelease ? __ATOMIC_RELEASE
         : order == kAcqRel  ? __ATOMIC_ACQ_REL
                             : __ATOMIC_SEQ_CST;
}
// The order of a compare-and-swap's failure path: no release part.
constexpr int hostFailureOrder(int order) {
  return order == kRelease ? __ATOMIC_RELAXED : order == kAcqRel ? __ATOMIC_ACQUIRE : hostOrder(order);
}
// Every atomic operation and fence may be one step of a spin-wait for another thread (of the
// block, whose fibers share this OS thread, or of another block): after ThreadContext::pollsLeft
// of them the thread lets the others run. Nothing is current in the headers' own unit tests.
inline void hostPoll() {
  host::ThreadContext* self = host::current;
  if (self == nullptr || --self->pollsLeft != 0) return;
  self->yieldThread(self);
  host::current = self;
}
#else
template <int Scope>
__device__ __forceinline__ void fence() {
  if constexpr (Scope == kBlock) {
    __threadfence_block();
  } else if constexpr (Scope == kDevice) {
    __threadfence();
  } else if constexpr (Scope == kSystem) {
    __threadfence_system();
  } else {
    asm volatile("" ::: "memory");
  }
}
// The fences around a relaxed operation that give it `Order`.
template <int Order, int Scope>
__device__ __forceinline__ void fenceBefore() {
  if constexpr (Order == kRelease || Order == kAcqRel || Order == kSeqCst) fence<Scope>();
}
template <int Order, int Scope>
__device__ __forceinline__ void fenceAfter() {
  if constexpr (Order == kConsume || Order == kAcquire || Order == kAcqRel || Order == kSeqCst)
    fence<Scope>();
}

// Relaxed compare-and-swap on the bits of T at the scope; returns the old bits. 8- and
// 16-bit values swap within their aligned 32-bit word.
template <int Scope>
__device__ __forceinline__ unsigned casWord(unsigned* p, unsigned expected, unsigned desired) {
  if constexpr (Scope == kBlock || Scope == kThread) {
    return atomicCAS_block(p, expected, desired);
  } else if constexpr (Scope == kSystem) {
    return atomicCAS_system(p, expected, desired);
  } else {
    return atomicCAS(p, expected, desired);
  }
}
template <int Scope>
__device__ __forceinline__ unsigned long long casWord(unsigned long long* p, unsigned long long expected,
                                                      unsigned long long desired) {
  if constexpr (Scope == kBlock || Scope == kThread) {
    return atomicCAS_block(p, expected, desired);
  } else if constexpr (Scope == kSystem) {
    return atomicCAS_system(p, expected, desired);
  } else {
    return atomicCAS(p, expected, desired);
  }
}
template <int Scope, class T>
__device__ __forceinline__ T casRelaxed(T* p, T expected, T desired) {
  if constexpr (sizeof(T) == 8) {
    unsigned long long old =
        casWord<Scope>(reinterpret_cast<unsigned long long*>(p), toBits(expected), toBits(desired));
    return fromBits<T>(old);
  } else if constexpr (sizeof(T) == 4) {
    unsigned old = casWord<Scope>(reinterpret_cast<unsigned*>(p), static_cast<unsigned>(toBits(expected)),
                                  static_cast<unsigned>(toBits(desired)));
    return fromBits<T>(old);
  } else {
    // The containing aligned word; the other bytes must not change.
    unsigned long long address = reinterpret_cast<unsigned long long>(p);
    unsigned* word = reinterpret_cast<unsigned*>(address & ~3ull);
    unsigned shift = static_cast<unsigned>(address & 3u) * 8u;
    unsigned field = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned current = *reinterpret_cast<volatile unsigned*>(word);
    for (;;) {
      T present = fromBits<T>((current & field) >> shift);
      if (toBits(present) != toBits(expected)) return present;
      unsigned next = (current & ~field) | (static_cast<unsigned>(toBits(desired)) << shift);
      unsigned seen = casWord<Scope>(word, current, next);
      if (seen == current) return expected;
      current = seen;
    }
  }
}
#endif

}  // namespace detail

// ---- load, store, exch, cas: any scalar of at most 8 bytes ----

template <int Order, int Scope, class T>
WEFT_ATOMIC T atomic_load(AtomicRef<T> ref) {
#if defined(WEFT_TARGET_HOST)
  T value;
  __atomic_load(ref.target, &value, detail::hostOrder(Order));
  detail::hostPoll();
  return value;
#else
  detail::fenceBefore<Order == kSeqCst ? kSeqCst : kRelaxed, Scope>();
  T value;
  if constexpr (sizeof(T) == 8) {
    value = detail::fromBits<T>(*reinterpret_cast<volatile unsigned long long*>(ref.target));
  } else if constexpr (sizeof(T) == 4) {
    value = detail::fromBits<T>(*reinterpret_cast<volatile unsigned*>(ref.target));
  } else if constexpr (sizeof(T) == 2) {
    value = detail::fromBits<T>(*reinterpret_cast<volatile unsigned short*>(ref.target));
  } else {
    value = detail::fromBits<T>(*reinterpret_cast<volatile unsigned char*>(ref.target));
  }
  detail::fenceAfter<Order, Scope>();
  return value;
#endif
}

template <int Order, int Scope, class T>
WEFT_ATOMIC void atomic_store(AtomicRef<T> ref, T value) {
#if defined(WEFT_TARGET_HOST)
  __atomic_store(ref.target, &value, detail::hostOrder(Order));
  detail::hostPoll();
#else
  detail::fenceBefore<Order, Scope>();
  if constexpr (sizeof(T) == 8) {
    *reinterpret_cast<volatile unsigned long long*>(ref.target) = detail::toBits(value);
  } else if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<volatile unsigned*>(ref.target) = static_cast<unsigned>(detail::toBits(value));
  } else if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<volatile unsigned short*>(ref.target) =
        static_cast<unsigned short>(detail::toBits(value));
  } else {
    *reinterpret_cast<volatile unsigned char*>(ref.target) =
        static_cast<unsigned char>(detail::toBits(value));
  }
  detail::fenceAfter<Order == kSeqCst ? kSeqCst : kRelaxed, Scope>();
#endif
}

// Stores `desired` if the value is `expected`; returns the old value either way.
template <int Order, int Scope, class T>
WEFT_ATOMIC T atomic_cas(AtomicRef<T> ref, T expected, T desired) {
#if defined(WEFT_TARGET_HOST)
  __atomic_compare_exchange(ref.target, &expected, &desired, false, detail::hostOrder(Order),
                            detail::hostFailureOrder(Order));
  detail::hostPoll();
  return expected;
#else
  detail::fenceBefore<Order, Scope>();
  T old = detail::casRelaxed<Scope>(ref.target, expected, desired);
  detail::fenceAfter<Order, Scope>();
  return old;
#endif
}

namespace detail {

// Applies `update(old) -> new` atomically; returns the old value.
template <int Order, int Scope, class T, class F>
WEFT_ATOMIC T atomicUpdate(AtomicRef<T> ref, F update) {
#if defined(WEFT_TARGET_HOST)
  T old;
  __atomic_load(ref.target, &old, __ATOMIC_RELAXED);
  T next = update(old);
  while (
      !__atomic_compare_exchange(ref.target, &old, &next, true, hostOrder(Order), hostFailureOrder(Order))) {
    next = update(old);
  }
  hostPoll();
  return old;
#else
  fenceBefore<Order, Scope>();
  T old = atomic_load<kRelaxed, Scope>(ref);
  for (;;) {
    T seen = casRelaxed<Scope>(ref.target, old, update(old));
    if (toBits(seen) == toBits(old)) break;
    old = seen;
  }
  fenceAfter<Order, Scope>();
  return old;
#endif
}

}  // namespace detail

template <int Order, int Scope, class T>
WEFT_ATOMIC T atomic_exch(AtomicRef<T> ref, T value) {
#if defined(WEFT_TARGET_HOST)
  T old;
  __atomic_exchange(ref.target, &value, &old, detail::hostOrder(Order));
  detail::hostPoll();
  return old;
#else
  return detail::atomicUpdate<Order, Scope>(ref, [value](T) { return value; });
#endif
}

// numba's cuda.atomic.inc and dec (uint32, uint64): a counter that wraps within [0, limit],
// CUDA's atomicInc/atomicDec extended to 64 bits. Both return the old value.
template <int Order, int Scope, class T>
WEFT_ATOMIC T atomic_inc(AtomicRef<T> ref, T limit) {
  return detail::atomicUpdate<Order, Scope>(ref, [limit](T old) { return old >= limit ? T(0) : T(old + 1); });
}

template <int Order, int Scope, class T>
WEFT_ATOMIC T atomic_dec(AtomicRef<T> ref, T limit) {
  return detail::atomicUpdate<Order, Scope>(ref,
                                            [limit](T old) { return old == 0 || old > limit ? limit : T(old - 1); });
}

// ---- arithmetic: int32 uint32 int64 uint64 float32 float64 (bitwise: the integers) ----
// Integer add and sub wrap (weft's fixed-width integer semantics). max/min compare integers
// by value; for floats they propagate nan (as NumPy's max), while nanmax/nanmin ignore it
// (as NumPy's nanmax): a nan operand leaves the value, a nan value takes the operand.

namespace detail {
template <class T>
WEFT_HD T maxOf(T old, T value) {
  if constexpr (kIsFloat<T>) {
    if (isNan(old) || isNan(value)) return isNan(old) ? old : value;
  }
  return value > old ? value : old;
}
template <class T>
WEFT_HD T minOf(T old, T value) {
  if constexpr (kIsFloat<T>) {
    if (isNan(old) || isNan(value)) return isNan(old) ? old : value;
  }
  return value < old ? value : old;
}
template <class T>
WEFT_HD T nanMaxOf(T old, T value) {
  if constexpr (kIsFloat<T>) {
    if (isNan(value)) return old;
    if (isNan(old)) return value;
  }
  return value > old ? value : old;
}
template <class T>
WEFT_HD T nanMinOf(T old, T value) {
  if constexpr (kIsFloat<T>) {
    if (isNan(value)) return old;
    if (isNan(old)) return value;
  }
  return value < old ? value : old;
}

#if !defined(WEFT_TARGET_HOST)
// CUDA's builtin at the scope's variant.
#define WEFT_CUDA_ATOMIC(name, cudaName)                 \
  template <int Scope, class P>                          \
  __device__ __forceinline__ P name##Scoped(P* p, P v) { \
    if constexpr (Scope == kBlock || Scope == kThread) { \
      return cudaName##_block(p, v);                     \
    } else if constexpr (Scope == kSystem) {             \
      return cudaName##_system(p, v);                    \
    } else {                                             \
      return cudaName(p, v);                             \
    }                                                    \
  }
WEFT_CUDA_ATOMIC(add, atomicAdd)
WEFT_CUDA_ATOMIC(and, atomicAnd)
WEFT_CUDA_ATOMIC(or, atomicOr)
WEFT_CUDA_ATOMIC(xor, atomicXor)
WEFT_CUDA_ATOMIC(max, atomicMax)
WEFT_CUDA_ATOMIC(min, atomicMin)
#undef WEFT_CUDA_ATOMIC
// The unsigned type CUDA's wrapping builtins (add, and, or, xor) take for an integer T.
template <class T>
using CudaBits = typename Traits<T>::W;
// The type CUDA's ordered builtins (max, min) take for an integer T.
template <class T>
struct CudaOrdered;
template <>
struct CudaOrdered<int32_t> {
  using Type = int;
};
template <>
struct CudaOrdered<uint32_t> {
  using Type = unsigned;
};
template <>
struct CudaOrdered<int64_t> {
  using Type = long long;
};
template <>
struct CudaOrdered<uint64_t> {
  using Type = unsigned long long;
};
#endif
}  // namespace detail

#if defined(WEFT_TARGET_HOST)
#define WEFT_ATOMIC_WRAPPING(name, builtin, expression)                                      \
  template <int Order, int Scope, class T>                                                   \
  WEFT_ATOMIC T atomic_##name(AtomicRef<T> ref, T value) {                                   \
    if constexpr (detail::kIsInteger<T>) {                                                   \
      T old = builtin(ref.target, value, detail::hostOrder(Order));                          \
      detail::hostPoll();                                                                    \
      return old;                                                                            \
    } else {                                                                                 \
      return detail::atomicUpdate<Order, Scope>(ref, [value](T old) { return expression; }); \
    }                                                                                        \
  }
WEFT_ATOMIC_WRAPPING(add, __atomic_fetch_add, old + value)
WEFT_ATOMIC_WRAPPING(sub, __atomic_fetch_sub, old - value)
WEFT_ATOMIC_WRAPPING(and_, __atomic_fetch_and, old)
WEFT_ATOMIC_WRAPPING(or_, __atomic_fetch_or, old)
WEFT_ATOMIC_WRAPPING(xor, __atomic_fetch_xor, old)
#undef WEFT_ATOMIC_WRAPPING
#define WEFT_ATOMIC_ORDERED(name, scoped, helper)                                                          \
  template <int Order, int Scope, class T>                                                                 \
  WEFT_ATOMIC T atomic_##name(AtomicRef<T> ref, T value) {                                                 \
    return detail::atomicUpdate<Order, Scope>(ref, [value](T old) { return detail::helper(old, value); }); \
  }
#else
// `negate`: sub is the add of the wrapped negation (floats: of -value).
#define WEFT_ATOMIC_WRAPPING(name, builtin, negate)                                                    \
  template <int Order, int Scope, class T>                                                             \
  WEFT_ATOMIC T atomic_##name(AtomicRef<T> ref, T value) {                                             \
    detail::fenceBefore<Order, Scope>();                                                               \
    T old;                                                                                             \
    if constexpr (detail::kIsInteger<T>) {                                                             \
      using C = detail::CudaBits<T>;                                                                   \
      C operand = negate ? C(0) - static_cast<C>(value) : static_cast<C>(value);                       \
      old = static_cast<T>(detail::builtin##Scoped<Scope>(reinterpret_cast<C*>(ref.target), operand)); \
    } else {                                                                                           \
      old = detail::addScoped<Scope>(ref.target, negate ? -value : value);                             \
    }                                                                                                  \
    detail::fenceAfter<Order, Scope>();                                                                \
    return old;                                                                                        \
  }
WEFT_ATOMIC_WRAPPING(add, add, false)
WEFT_ATOMIC_WRAPPING(sub, add, true)
WEFT_ATOMIC_WRAPPING(and_, and, false)
WEFT_ATOMIC_WRAPPING(or_, or, false)
WEFT_ATOMIC_WRAPPING(xor, xor, false)
#undef WEFT_ATOMIC_WRAPPING
#define WEFT_ATOMIC_ORDERED(name, scoped, helper)                                                            \
  template <int Order, int Scope, class T>                                                                   \
  WEFT_ATOMIC T atomic_##name(AtomicRef<T> ref, T value) {                                                   \
    if constexpr (detail::kIsInteger<T>) {                                                                   \
      using C = typename detail::CudaOrdered<T>::Type;                                                       \
      detail::fenceBefore<Order, Scope>();                                                                   \
      T old = static_cast<T>(                                                                                \
          detail::scoped##Scoped<Scope>(reinterpret_cast<C*>(ref.target), static_cast<C>(value)));           \
      detail::fenceAfter<Order, Scope>();                                                                    \
      return old;                                                                                            \
    } else {                                                                                                 \
      return detail::atomicUpdate<Order, Scope>(ref, [value](T old) { return detail::helper(old, value); }); \
    }                                                                                                        \
  }
#endif
WEFT_ATOMIC_ORDERED(max, max, maxOf)
WEFT_ATOMIC_ORDERED(min, min, minOf)
WEFT_ATOMIC_ORDERED(nanmax, max, nanMaxOf)
WEFT_ATOMIC_ORDERED(nanmin, min, nanMinOf)
#undef WEFT_ATOMIC_ORDERED

// wait(old): returns once the value's bits differ from `old`'s (C++ atomic wait: a
// notify is not needed to observe the change, so notify_all/notify_one do nothing). It
// polls: GPU with a short sleep, CPU target letting the other threads and blocks run.
template <int Order, int Scope, class T>
WEFT_ATOMIC void atomic_wait(AtomicRef<T> ref, T old) {
  for (;;) {
    T now = atomic_load<Order, Scope>(ref);
    if (detail::toBits(now) != detail::toBits(old)) return;
#if defined(WEFT_TARGET_HOST)
    host::ThreadContext* self = host::current;
    self->yieldThread(self);
    host::current = self;
#else
    __nanosleep(32);
#endif
  }
}
template <class T>
WEFT_ATOMIC void atomic_notify(AtomicRef<T>) {}

// threadfence(memory, scope): a fence of the order at the scope.
template <int Order, int Scope>
WEFT_ATOMIC void threadfence() {
#if defined(WEFT_TARGET_HOST)
  if constexpr (Order != kRelaxed) __atomic_thread_fence(detail::hostOrder(Order));
  detail::hostPoll();
#else
  if constexpr (Order != kRelaxed) detail::fence<Scope>();
#endif
}

}  // namespace weft

#undef WEFT_ATOMIC
