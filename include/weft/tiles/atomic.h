// Atomics on pointer tiles (the seed's memory model): atomic_add max min and or xor exchange cas
// load store. Each element is one strong memory operation on the location its pointer names,
// done once (by the element's owner), with a memory order (relaxed, acquire, release, acq_rel)
// and a thread scope (block, device, system: the seed's default). The read-modify-write
// operations return the old values as a tile (in every thread); masked-off elements do nothing
// and give 0. GPU: PTX atom/ld/st with .sem and .scope (no libcu++); float min/max are
// compare-and-swap loops. CPU target: the __atomic builtins (every scope is the system).
// Element types: 32- and 64-bit integers, float and double (add, min, max, exchange, cas, load,
// store; bitwise operations on integers only).
#pragma once

#include "weft/tiles/memory.h"

namespace weft::tiles {

// Memory orders of atomic operations (the seed's ct::memory_order).
struct memory_order_relaxed_t {
  static constexpr int value = 0;
};
struct memory_order_acquire_t {
  static constexpr int value = 1;
};
struct memory_order_release_t {
  static constexpr int value = 2;
};
struct memory_order_acq_rel_t {
  static constexpr int value = 3;
};
// Thread scopes of atomic operations (the seed's ct::thread_scope).
struct thread_scope_block_t {
  static constexpr int value = 0;
};
struct thread_scope_device_t {
  static constexpr int value = 1;
};
struct thread_scope_system_t {
  static constexpr int value = 2;
};

namespace detail {

template <class X>
inline constexpr bool is_order = is_same_v<X, memory_order_relaxed_t> || is_same_v<X, memory_order_acquire_t> ||
                                 is_same_v<X, memory_order_release_t> || is_same_v<X, memory_order_acq_rel_t>;
template <class X>
inline constexpr bool is_scope =
    is_same_v<X, thread_scope_block_t> || is_same_v<X, thread_scope_device_t> || is_same_v<X, thread_scope_system_t>;

template <class... A>
struct first_of {
  using type = void;
};
template <class A, class... R>
struct first_of<A, R...> {
  using type = A;
};
template <class A>
WEFT_HD constexpr int order_value() {
  if constexpr (is_order<A>) {
    return A::value;
  } else {
    return 0;
  }
}
template <class A>
WEFT_HD constexpr int scope_value() {
  if constexpr (is_scope<A>) {
    return A::value;
  } else {
    return 0;
  }
}

// The absent operand of an atomic operation that takes fewer than two.
struct no_operand {};

// The trailing arguments of an atomic call: [mask] [order] [scope], each optional, in that order.
template <int DefaultOrder, class... A>
struct atomic_arguments;
template <int DefaultOrder>
struct atomic_arguments<DefaultOrder> {
  static constexpr bool kMask = false;
  static constexpr int kOrder = DefaultOrder, kScope = 2;
};
template <int DefaultOrder, class A, class... R>
struct atomic_arguments<DefaultOrder, A, R...> {
  using Rest = atomic_arguments<DefaultOrder, R...>;
  static constexpr bool kMask = !is_order<A> && !is_scope<A>;
  static_assert(!kMask || sizeof...(R) == 0 || !Rest::kMask, "an atomic operation takes at most one mask");
  static_assert(!is_order<A> || sizeof...(R) == 0 || !is_order<typename first_of<R...>::type>,
                "an atomic operation takes at most one memory order");
  static_assert(!is_scope<A> || sizeof...(R) == 0,
                "an atomic operation's arguments are [mask] [memory order] [thread scope], in this order");
  static constexpr int kOrder = is_order<A> ? order_value<A>() : Rest::kOrder;
  static constexpr int kScope = is_scope<A> ? scope_value<A>() : Rest::kScope;
};

// The mask among the trailing arguments (true if none).
WEFT_TILE_FN bool mask_of() {
  return true;
}
template <class A, class... R>
WEFT_TILE_FN auto mask_of(const A& a, const R&... rest) {
  if constexpr (!is_order<A> && !is_scope<A>) {
    (void)sizeof...(rest);
    return a;
  } else {
    return mask_of(rest...);
  }
}

enum class atomic_op { add, max, min, bit_and, bit_or, bit_xor, exchange, cas, load, store };

#if !defined(WEFT_TARGET_HOST)
// One PTX instruction in each of the 12 (order, scope) combinations.
#define WEFT_ATOM_SEM_SCOPE(prefix, suffix, ...)                                                      \
  if constexpr (O == 0 && S == 0) asm volatile(prefix ".relaxed.cta" suffix : __VA_ARGS__ : "memory");   \
  else if constexpr (O == 0 && S == 1) asm volatile(prefix ".relaxed.gpu" suffix : __VA_ARGS__ : "memory"); \
  else if constexpr (O == 0) asm volatile(prefix ".relaxed.sys" suffix : __VA_ARGS__ : "memory");          \
  else if constexpr (O == 1 && S == 0) asm volatile(prefix ".acquire.cta" suffix : __VA_ARGS__ : "memory"); \
  else if constexpr (O == 1 && S == 1) asm volatile(prefix ".acquire.gpu" suffix : __VA_ARGS__ : "memory"); \
  else if constexpr (O == 1) asm volatile(prefix ".acquire.sys" suffix : __VA_ARGS__ : "memory");          \
  else if constexpr (O == 2 && S == 0) asm volatile(prefix ".release.cta" suffix : __VA_ARGS__ : "memory"); \
  else if constexpr (O == 2 && S == 1) asm volatile(prefix ".release.gpu" suffix : __VA_ARGS__ : "memory"); \
  else if constexpr (O == 2) asm volatile(prefix ".release.sys" suffix : __VA_ARGS__ : "memory");          \
  else if constexpr (S == 0) asm volatile(prefix ".acq_rel.cta" suffix : __VA_ARGS__ : "memory");          \
  else if constexpr (S == 1) asm volatile(prefix ".acq_rel.gpu" suffix : __VA_ARGS__ : "memory");          \
  else asm volatile(prefix ".acq_rel.sys" suffix : __VA_ARGS__ : "memory");

// atom.<sem>.<scope>.<op>.<type> on a 32-bit (W = unsigned) or 64-bit word.
#define WEFT_ATOM_WORD(name, op32, op64)                                                                     \
  template <int O, int S, class W>                                                                          \
  __device__ __forceinline__ W name(W* p, W v) {                                                            \
    W old;                                                                                                  \
    if constexpr (sizeof(W) == 4) {                                                                         \
      WEFT_ATOM_SEM_SCOPE("atom", "." op32 " %0, [%1], %2;", "=r"(old) : "l"(p), "r"(v))                     \
    } else {                                                                                                \
      WEFT_ATOM_SEM_SCOPE("atom", "." op64 " %0, [%1], %2;", "=l"(old) : "l"(p), "l"(v))                     \
    }                                                                                                       \
    return old;                                                                                             \
  }
WEFT_ATOM_WORD(atom_add_u, "add.u32", "add.u64")
WEFT_ATOM_WORD(atom_max_u, "max.u32", "max.u64")
WEFT_ATOM_WORD(atom_min_u, "min.u32", "min.u64")
WEFT_ATOM_WORD(atom_max_s, "max.s32", "max.s64")
WEFT_ATOM_WORD(atom_min_s, "min.s32", "min.s64")
WEFT_ATOM_WORD(atom_and, "and.b32", "and.b64")
WEFT_ATOM_WORD(atom_or, "or.b32", "or.b64")
WEFT_ATOM_WORD(atom_xor, "xor.b32", "xor.b64")
WEFT_ATOM_WORD(atom_exch, "exch.b32", "exch.b64")
#undef WEFT_ATOM_WORD

template <int O, int S, class W>
__device__ __forceinline__ W atom_cas(W* p, W expected, W desired) {
  W old;
  if constexpr (sizeof(W) == 4) {
    WEFT_ATOM_SEM_SCOPE("atom", ".cas.b32 %0, [%1], %2, %3;", "=r"(old) : "l"(p), "r"(expected), "r"(desired))
  } else {
    WEFT_ATOM_SEM_SCOPE("atom", ".cas.b64 %0, [%1], %2, %3;", "=l"(old) : "l"(p), "l"(expected), "l"(desired))
  }
  return old;
}
template <int O, int S>
__device__ __forceinline__ float atom_add_f(float* p, float v) {
  float old;
  WEFT_ATOM_SEM_SCOPE("atom", ".add.f32 %0, [%1], %2;", "=f"(old) : "l"(p), "f"(v))
  return old;
}
template <int O, int S>
__device__ __forceinline__ double atom_add_f(double* p, double v) {
  double old;
  WEFT_ATOM_SEM_SCOPE("atom", ".add.f64 %0, [%1], %2;", "=d"(old) : "l"(p), "d"(v))
  return old;
}
template <int O, int S, class W>
__device__ __forceinline__ W ld_word(const W* p) {
  W value;
  if constexpr (sizeof(W) == 4) {
    WEFT_ATOM_SEM_SCOPE("ld", ".b32 %0, [%1];", "=r"(value) : "l"(p))
  } else {
    WEFT_ATOM_SEM_SCOPE("ld", ".b64 %0, [%1];", "=l"(value) : "l"(p))
  }
  return value;
}
template <int O, int S, class W>
__device__ __forceinline__ void st_word(W* p, W value) {
  if constexpr (sizeof(W) == 4) {
    WEFT_ATOM_SEM_SCOPE("st", ".b32 [%0], %1;", : "l"(p), "r"(value))
  } else {
    WEFT_ATOM_SEM_SCOPE("st", ".b64 [%0], %1;", : "l"(p), "l"(value))
  }
}
#undef WEFT_ATOM_SEM_SCOPE
#else
inline constexpr int host_order(int order) {
  return order == 0 ? __ATOMIC_RELAXED : order == 1 ? __ATOMIC_ACQUIRE : order == 2 ? __ATOMIC_RELEASE : __ATOMIC_ACQ_REL;
}
inline constexpr int host_failure_order(int order) {
  return order == 0 || order == 2 ? __ATOMIC_RELAXED : __ATOMIC_ACQUIRE;
}
#endif

// The word type an element moves as (32 or 64 bits).
template <class T>
using atomic_word_t = conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

// One atomic operation on *p (operands a, b) with order O and scope S; returns the old value
// (the loaded one for load).
template <atomic_op Op, int O, int S, class T>
WEFT_TILE_FN T atomic_element(T* p, T a, T b) {
  using W = atomic_word_t<T>;
  W* word = reinterpret_cast<W*>(p);
#if defined(WEFT_TARGET_HOST)
  constexpr int kOrder = host_order(O);
  if constexpr (Op == atomic_op::load) {
    return bit_cast<T>(__atomic_load_n(word, O == 0 ? __ATOMIC_RELAXED : __ATOMIC_ACQUIRE));
  } else if constexpr (Op == atomic_op::store) {
    __atomic_store_n(word, bit_cast<W>(a), O == 0 ? __ATOMIC_RELAXED : __ATOMIC_RELEASE);
    return a;
  } else if constexpr (Op == atomic_op::exchange) {
    return bit_cast<T>(__atomic_exchange_n(word, bit_cast<W>(a), kOrder));
  } else if constexpr (Op == atomic_op::cas) {
    W expected = bit_cast<W>(a);
    __atomic_compare_exchange_n(word, &expected, bit_cast<W>(b), false, kOrder, host_failure_order(O));
    return bit_cast<T>(expected);
  } else if constexpr (is_integral<T> && Op == atomic_op::add) {
    return __atomic_fetch_add(p, a, kOrder);
  } else if constexpr (Op == atomic_op::bit_and) {
    return __atomic_fetch_and(p, a, kOrder);
  } else if constexpr (Op == atomic_op::bit_or) {
    return __atomic_fetch_or(p, a, kOrder);
  } else if constexpr (Op == atomic_op::bit_xor) {
    return __atomic_fetch_xor(p, a, kOrder);
  } else {
    // add on floating point, max and min: a compare-and-swap loop.
    W old = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
      T current = bit_cast<T>(old);
      T next = Op == atomic_op::add ? T(current + a) : e_minmax<Op == atomic_op::max, false>(current, a);
      if (__atomic_compare_exchange_n(word, &old, bit_cast<W>(next), false, kOrder, host_failure_order(O))) return current;
    }
  }
#else
  if constexpr (Op == atomic_op::load) {
    return bit_cast<T>(ld_word<O, S>(word));
  } else if constexpr (Op == atomic_op::store) {
    st_word<O, S>(word, bit_cast<W>(a));
    return a;
  } else if constexpr (Op == atomic_op::exchange) {
    return bit_cast<T>(atom_exch<O, S>(word, bit_cast<W>(a)));
  } else if constexpr (Op == atomic_op::cas) {
    return bit_cast<T>(atom_cas<O, S>(word, bit_cast<W>(a), bit_cast<W>(b)));
  } else if constexpr (Op == atomic_op::add) {
    if constexpr (is_floating<T>) {
      return atom_add_f<O, S>(p, a);
    } else {
      return bit_cast<T>(atom_add_u<O, S>(word, bit_cast<W>(a)));
    }
  } else if constexpr (Op == atomic_op::bit_and) {
    return bit_cast<T>(atom_and<O, S>(word, bit_cast<W>(a)));
  } else if constexpr (Op == atomic_op::bit_or) {
    return bit_cast<T>(atom_or<O, S>(word, bit_cast<W>(a)));
  } else if constexpr (Op == atomic_op::bit_xor) {
    return bit_cast<T>(atom_xor<O, S>(word, bit_cast<W>(a)));
  } else if constexpr (is_integral<T>) {
    constexpr bool kMax = Op == atomic_op::max;
    if constexpr (is_signed_integer<T>) {
      return bit_cast<T>(kMax ? atom_max_s<O, S>(word, bit_cast<W>(a)) : atom_min_s<O, S>(word, bit_cast<W>(a)));
    } else {
      return bit_cast<T>(kMax ? atom_max_u<O, S>(word, bit_cast<W>(a)) : atom_min_u<O, S>(word, bit_cast<W>(a)));
    }
  } else {
    // float max/min: a compare-and-swap loop (the loads are relaxed: the successful swap carries
    // the order).
    W old = ld_word<0, S>(word);
    for (;;) {
      T current = bit_cast<T>(old);
      T next = e_minmax<Op == atomic_op::max, false>(current, a);
      W seen = atom_cas<O, S>(word, old, bit_cast<W>(next));
      if (seen == old) return current;
      old = seen;
    }
  }
#endif
}

template <atomic_op Op, class T>
WEFT_HD constexpr bool check_atomic_element() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                "atomic operations take 32- or 64-bit integers, float or double (or 32/64-bit pointers for "
                "exchange, cas, load and store)");
  static_assert(is_arithmetic<T> || is_pointer_scalar<T>, "atomic operations take arithmetic elements");
  static_assert(!(Op == atomic_op::bit_and || Op == atomic_op::bit_or || Op == atomic_op::bit_xor) || is_integral<T>,
                "atomic_and / atomic_or / atomic_xor take integers");
  static_assert(!(Op == atomic_op::add || Op == atomic_op::max || Op == atomic_op::min) || is_arithmetic<T>,
                "atomic_add / atomic_max / atomic_min take numbers");
  return true;
}

template <class A, class T, class S>
WEFT_HD constexpr bool check_operand() {
  if constexpr (!is_same_v<A, no_operand>) {
    static_assert(broadcastable_to<shape_of<A>, S>(), "an atomic operation's values must broadcast to the pointers' shape");
    static_assert(check_not_narrowing<element_of<A>, T>());
  }
  return true;
}
template <class T, class S, class A>
WEFT_TILE_FN auto operand(const A& a) {
  if constexpr (is_same_v<A, no_operand>) {
    return T{};
  } else {
    return prepare<T, S>(a);
  }
}

// The atomic operation Op on every element of the pointer tile `pointers` with operands a, b
// (tile-like, broadcast to its shape and converted to its element type) and the trailing
// [mask] [order] [scope]; the old values (0 where masked off) as a tile in every thread.
template <atomic_op Op, int DefaultOrder, class P, class A, class B, class... Rest>
WEFT_TILE_FN auto atomic_apply(const P& pointers, const A& a, const B& b, const Rest&... rest) {
  static_assert(check_pointer_tile<P>());
  using T = remove_cv_t<typename remove_pointer<element_of<P>>::type>;
  static_assert(check_atomic_element<Op, T>());
  static_assert(!is_const_element<typename remove_pointer<element_of<P>>::type> || Op == atomic_op::load,
                "atomic operations other than atomic_load need pointers to non-const elements");
  using Args = atomic_arguments<DefaultOrder, Rest...>;
  constexpr int O = Args::kOrder, S = Args::kScope;
  static_assert(Op != atomic_op::load || O == 0 || O == 1, "atomic_load takes memory_order_relaxed_t or memory_order_acquire_t");
  static_assert(Op != atomic_op::store || O == 0 || O == 2, "atomic_store takes memory_order_relaxed_t or memory_order_release_t");
  using SP = shape_of<P>;
  static_assert(check_operand<A, T, SP>() && check_operand<B, T, SP>());
  auto m = mask_of(rest...);
  static_assert(broadcastable_to<shape_of<decltype(m)>, SP>(), "an atomic operation's mask must broadcast to the pointers' shape");
  using Tile = tile<element_of<P>, SP>;
  Tile ptrs = broadcast_to<SP>(pointers);
  using L = typename Tile::layout_type;
  auto va = in_layout<L>(operand<T, SP>(a));
  auto vb = in_layout<L>(operand<T, SP>(b));
  auto vm = in_layout<L>(prepare<bool, SP>(m));
  const uint32_t t = thread_rank();
  tile<T, SP> old;
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    T result = T{};
    if (L::owner(t) && element(vm, k)) result = atomic_element<Op, O, S>(const_cast<T*>(ptrs.frag_[k]), element(va, k), element(vb, k));
    old.frag_[k] = result;
  }
  if constexpr (L::kReplicated) {
    // Replicas take the owners' results.
    tile<T, SP> shared = old;
    exchange(old, shared, [](uint32_t j) { return static_cast<int32_t>(j); });
  }
  if constexpr (is_tile<P>) {
    return old;
  } else {
    return static_cast<T>(old.frag_[0]);
  }
}

}  // namespace detail

// *p += v for each element (integers wrap); returns the old values. Trailing arguments:
// [mask] [memory order: default acq_rel] [thread scope: default system].
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_add(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::add, 3>(pointers, values, detail::no_operand{}, rest...);
}
// *p = max(*p, v) / min(*p, v); returns the old values.
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_max(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::max, 3>(pointers, values, detail::no_operand{}, rest...);
}
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_min(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::min, 3>(pointers, values, detail::no_operand{}, rest...);
}
// *p &= v, |= v, ^= v (integers); return the old values.
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_and(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::bit_and, 3>(pointers, values, detail::no_operand{}, rest...);
}
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_or(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::bit_or, 3>(pointers, values, detail::no_operand{}, rest...);
}
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_xor(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::bit_xor, 3>(pointers, values, detail::no_operand{}, rest...);
}
// *p = v; returns the old values.
template <class P, class V, class... Rest>
WEFT_TILE_FN auto atomic_exchange(const P& pointers, const V& values, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::exchange, 3>(pointers, values, detail::no_operand{}, rest...);
}
// If *p == expected (bitwise) then *p = desired; returns the old values (equal to expected
// where the swap happened).
template <class P, class E, class D, class... Rest>
WEFT_TILE_FN auto atomic_cas(const P& pointers, const E& expected, const D& desired, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::cas, 3>(pointers, expected, desired, rest...);
}
// The values at the pointers, read atomically ([mask] [order: relaxed or acquire, default
// acquire] [scope]).
template <class P, class... Rest>
WEFT_TILE_FN auto atomic_load(const P& pointers, const Rest&... rest) {
  return detail::atomic_apply<detail::atomic_op::load, 1>(pointers, detail::no_operand{}, detail::no_operand{}, rest...);
}
// *p = v atomically ([mask] [order: relaxed or release, default release] [scope]).
template <class P, class V, class... Rest>
WEFT_TILE_FN void atomic_store(const P& pointers, const V& values, const Rest&... rest) {
  detail::atomic_apply<detail::atomic_op::store, 2>(pointers, values, detail::no_operand{}, rest...);
}

}  // namespace weft::tiles
