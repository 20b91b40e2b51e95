// Atomics on pointer tiles against references: add (integers, float, double) into shared
// counters from several blocks with the old values checked as a chain, max/min, and/or/xor,
// exchange, cas (matching and non-matching), load/store with masks, every memory order and
// scope, and a scalar atomic whose result every thread must see.
#include "tile_test.h"

#if !defined(__CUDACC_RTC__)
#include <algorithm>
#endif

namespace ct = ::cuda::tiles;

constexpr int kElements = 256;
constexpr int kCounters = 7;

template <class T, class Order, class Scope>
__tile_global__ void add_kernel(T* counters, const T* values, T* old) {
  using I = ct::tile<int32_t, ct::shape<kElements>>;
  auto i = ct::iota<I>();
  long block = ct::bid().x;
  auto v = ct::load(values + block * kElements + i);
  auto previous = ct::atomic_add(counters + ct::rem(i, int(kCounters)), v, Order{}, Scope{});
  ct::store(old + block * kElements + i, previous);
}

// Op: 0 max, 1 min, 2 and, 3 or, 4 xor.
template <class T, int Op>
__tile_global__ void rmw_kernel(T* counters, const T* values, T* old) {
  using I = ct::tile<int32_t, ct::shape<kElements>>;
  auto i = ct::iota<I>();
  auto p = counters + ct::rem(i, int(kCounters));
  auto v = ct::load(values + i);
  ct::tile<T, ct::shape<kElements>> r;
  if constexpr (Op == 0) r = ct::atomic_max(p, v);
  if constexpr (Op == 1) r = ct::atomic_min(p, v, ct::memory_order_relaxed_t{});
  if constexpr (Op == 2) r = ct::atomic_and(p, v, ct::memory_order_acquire_t{}, ct::thread_scope_device_t{});
  if constexpr (Op == 3) r = ct::atomic_or(p, v, ct::memory_order_release_t{}, ct::thread_scope_block_t{});
  if constexpr (Op == 4) r = ct::atomic_xor(p, v, ct::thread_scope_system_t{});
  ct::store(old + i, r);
}

// exchange and cas into distinct locations, masked; then load/store.
template <class T>
__tile_global__ void swap_kernel(T* slots, const T* values, const T* expected, T* oldExchange, T* oldCas, T* loaded,
                                 T* stored) {
  using I = ct::tile<int32_t, ct::shape<8, 32>>;
  auto i = ct::iota<I>();
  auto v = ct::load(values + i);
  auto keep = ct::ne(ct::rem(i, 5), 0);
  ct::store(oldExchange + i, ct::atomic_exchange(slots + i, v, keep));
  auto e = ct::load(expected + i);
  ct::store(oldCas + i, ct::atomic_cas(slots + 256 + i, e, v, ct::memory_order_acq_rel_t{}, ct::thread_scope_device_t{}));
  ct::atomic_store(stored + i, v, keep, ct::memory_order_relaxed_t{}, ct::thread_scope_block_t{});
  ct::store(loaded + i, ct::atomic_load(slots + i, ct::memory_order_relaxed_t{}));
  ct::store(loaded + 256 + i, ct::atomic_load(static_cast<const T*>(slots) + 256 + i, keep));
}

// A scalar atomic: every thread gets the old value; each marks seen[old] (a wrong value in any
// thread marks another slot).
__tile_global__ void scalar_kernel(int* counter, int* seen) {
  int previous = ct::atomic_add(counter, 1);
  seen[previous] = 1;
  auto small = ct::atomic_add(counter + 1 + ct::iota<ct::tile<int32_t, ct::shape<4>>>(), 2);
  int total = ct::sum(small);
  seen[100 + total] = 1;
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class T, class Order, class Scope>
void run_add(Random& random, int blocks) {
  Buffer<T> counters(kCounters), values(kElements * blocks), old(kElements * blocks);
  std::vector<double> initial(kCounters);
  for (int c = 0; c < kCounters; ++c) {
    counters[c] = static_cast<T>(random.next() % 100);
    initial[c] = as_double(counters[c]);
  }
  for (int i = 0; i < kElements * blocks; ++i) values[i] = static_cast<T>(random.next() % 50 + 1);  // exact in every type
  launch({static_cast<uint32_t>(blocks), 1, 1}, add_kernel<T, Order, Scope>, counters.get(), static_cast<const T*>(values.get()),
         old.get());
  std::string what = std::string("atomic_add ") + type_name<T>() + " order " + std::to_string(Order::value) + " scope " +
                     std::to_string(Scope::value);
  for (int c = 0; c < kCounters; ++c) {
    // The old values of the elements on counter c, sorted, must chain: each is the previous
    // plus the previous element's value, from the initial value to the final one.
    std::vector<std::pair<double, double>> chain;
    double total = initial[c];
    for (int b = 0; b < blocks; ++b) {
      for (int i = c; i < kElements; i += kCounters) {
        chain.push_back({as_double(old[b * kElements + i]), as_double(values[b * kElements + i])});
        total += as_double(values[b * kElements + i]);
      }
    }
    std::sort(chain.begin(), chain.end());
    double expected = initial[c];
    bool ok = true;
    for (auto& link : chain) {
      ok = ok && link.first == expected;
      expected += link.second;
    }
    check(ok, what + " old values chain on counter " + std::to_string(c));
    check(as_double(counters[c]) == total, what + " final value of counter " + std::to_string(c));
  }
}

template <class T, int Op>
void run_rmw(Random& random) {
  Buffer<T> counters(kCounters), values(kElements), old(kElements);
  std::vector<T> initial(kCounters);
  for (int c = 0; c < kCounters; ++c) initial[c] = counters[c] = std::is_integral_v<T> ? random.bits<T>() : from_double<T>(random.uniform(-100, 100));
  for (int i = 0; i < kElements; ++i) values[i] = std::is_integral_v<T> ? random.bits<T>() : from_double<T>(random.uniform(-100, 100));
  launch({1, 1, 1}, rmw_kernel<T, Op>, counters.get(), static_cast<const T*>(values.get()), old.get());
  for (int c = 0; c < kCounters; ++c) {
    T expected = initial[c];
    bool oldOk = true;
    for (int i = c; i < kElements; i += kCounters) {
      T v = values[i];
      if constexpr (std::is_integral_v<T>) {
        if (Op == 2) expected &= v;
        if (Op == 3) expected |= v;
        if (Op == 4) expected ^= v;
      }
      if (Op == 0) expected = expected < v ? v : expected;
      if (Op == 1) expected = v < expected ? v : expected;
    }
    // Every old value is a state the counter went through: for max (min) at most (least) the final.
    for (int i = c; i < kElements; i += kCounters) {
      if (Op == 0) oldOk = oldOk && !(expected < old[i]);
      if (Op == 1) oldOk = oldOk && !(old[i] < expected);
    }
    check(same_value(counters[c], expected), std::string("atomic rmw ") + std::to_string(Op) + " " + type_name<T>() +
                                                 " counter " + std::to_string(c));
    check(oldOk, std::string("atomic rmw ") + std::to_string(Op) + " " + type_name<T>() + " old values");
  }
}

template <class T>
void run_swap(Random& random) {
  constexpr int n = 256;
  Buffer<T> slots(2 * n), values(n), expected(n), oldExchange(n), oldCas(n), loaded(2 * n), stored(n);
  std::vector<T> initial(2 * n);
  T sentinel = from_double<T>(9.0);
  for (int i = 0; i < 2 * n; ++i) initial[i] = slots[i] = from_double<T>(static_cast<double>(random.next() % 1000));
  for (int i = 0; i < n; ++i) {
    values[i] = from_double<T>(static_cast<double>(random.next() % 1000 + 1000));
    expected[i] = random.next() % 2 ? initial[n + i] : from_double<T>(-5.0);
    stored[i] = sentinel;
  }
  launch({1, 1, 1}, swap_kernel<T>, slots.get(), static_cast<const T*>(values.get()), static_cast<const T*>(expected.get()),
         oldExchange.get(), oldCas.get(), loaded.get(), stored.get());
  std::string what = std::string("atomic swap ") + type_name<T>();
  for (int i = 0; i < n; ++i) {
    bool keep = i % 5 != 0;
    check(same_value(oldExchange[i], keep ? initial[i] : from_double<T>(0.0)), what + " exchange old " + std::to_string(i));
    check(same_value(slots[i], keep ? values[i] : initial[i]), what + " exchange new " + std::to_string(i));
    bool match = same_value(expected[i], initial[n + i]);
    check(same_value(oldCas[i], initial[n + i]), what + " cas old " + std::to_string(i));
    check(same_value(slots[n + i], match ? values[i] : initial[n + i]), what + " cas new " + std::to_string(i));
    check(same_value(stored[i], keep ? values[i] : sentinel), what + " atomic_store " + std::to_string(i));
    check(same_value(loaded[i], slots[i]), what + " atomic_load " + std::to_string(i));
    check(same_value(loaded[n + i], keep ? slots[n + i] : from_double<T>(0.0)), what + " masked atomic_load " + std::to_string(i));
  }
}

template <class T>
void run_orders_scopes(Random& random) {
  run_add<T, ct::memory_order_relaxed_t, ct::thread_scope_block_t>(random, 1);
  run_add<T, ct::memory_order_relaxed_t, ct::thread_scope_device_t>(random, 4);
  run_add<T, ct::memory_order_relaxed_t, ct::thread_scope_system_t>(random, 4);
  run_add<T, ct::memory_order_acquire_t, ct::thread_scope_device_t>(random, 4);
  run_add<T, ct::memory_order_release_t, ct::thread_scope_system_t>(random, 4);
  run_add<T, ct::memory_order_acq_rel_t, ct::thread_scope_system_t>(random, 8);
}

int main() {
  Random random(seed());
  run_orders_scopes<int32_t>(random);
  run_orders_scopes<uint64_t>(random);
  run_orders_scopes<float>(random);
  run_orders_scopes<double>(random);
  run_add<int64_t, ct::memory_order_acq_rel_t, ct::thread_scope_block_t>(random, 1);
  run_add<uint32_t, ct::memory_order_acquire_t, ct::thread_scope_block_t>(random, 1);
  run_rmw<int32_t, 0>(random);
  run_rmw<int32_t, 1>(random);
  run_rmw<uint64_t, 0>(random);
  run_rmw<int64_t, 1>(random);
  run_rmw<float, 0>(random);
  run_rmw<double, 1>(random);
  run_rmw<uint32_t, 2>(random);
  run_rmw<uint32_t, 3>(random);
  run_rmw<int64_t, 4>(random);
  run_swap<int32_t>(random);
  run_swap<float>(random);
  run_swap<uint64_t>(random);
  run_swap<double>(random);
  {
    Buffer<int> counter(5), seen(200);
    launch({1, 1, 1}, scalar_kernel, counter.get(), seen.get());
    int marked = 0;
    for (int i = 0; i < 200; ++i) marked += seen[i];
    check(seen[0] == 1 && seen[100] == 1 && marked == 2, "a scalar atomic's old value reaches every thread");
    check(counter[0] == 1 && counter[1] == 2 && counter[4] == 2, "scalar and small-tile atomics happen once per element");
  }
  return finish("test_atomic");
}
#endif
