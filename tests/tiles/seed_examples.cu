// The seed's own examples (shared/spec/cuda-tile-cpp-general-principles.txt), with only the
// include line changed, plus the checks of their results: the vector-add kernel, the arithmetic
// conversion Example 1 (and Example 2's well-formed comparison), the numeric-modifier examples
// and the memory-model atomic_store example.
#include <weft/cuda_tile.h>

#if !defined(__CUDACC_RTC__)
#include <cstdio>
#endif

// "Basic kernel returning the sum of two vectors" (one tile block per element).
__tile_global__ void kernel(int* a, int* b, int* c) {
  namespace ct = ::cuda::tiles;

  auto idx = ct::bid().x;

  c[idx] = ct::add(a[idx], b[idx]);
}

// Arithmetic conversions, Example 1: (2 6) - (4 1)^T as float and double tiles.
__tile_global__ void example1(double* out) {
  namespace ct = ::cuda::tiles;
  using i32x1x2 = ct::tile<int, ct::shape<1, 2>>;
  using i32x2x1 = ct::tile<int, ct::shape<2, 1>>;
  using f32x1x2 = ct::tile<float, ct::shape<1, 2>>;
  using f64x2x1 = ct::tile<double, ct::shape<2, 1>>;
  using f64x2x2 = ct::tile<double, ct::shape<2, 2>>;

  float xData[1][2] = {
    {2, 6},
  };

  double yData[2][1] = {
    {4},
    {1},
  };

  f32x1x2 x = ct::load(&xData[0][0] + ct::iota<i32x1x2>());
  f64x2x1 y = ct::load(&yData[0][0] + ct::iota<i32x2x1>());
  f64x2x2 result = x - y;

  ct::store(out + ct::iota<ct::tile<int, ct::shape<2, 2>>>(), result);
}

// Example 2's well-formed half: comparison conversion converts the int tile to double.
__tile_global__ void example2(bool* out) {
  namespace ct = ::cuda::tiles;
  using i32x8 = ct::tile<int, ct::shape<8>>;

  i32x8 x = ct::full<i32x8>(42);
  auto equal = 2.0 == x;  // (2) OK
  ct::store(out + ct::iota<i32x8>(), equal);
}

// The numeric modifier examples.
__tile_global__ void modifiers(float* out) {
  namespace ct = ::cuda::tiles;
  float eps = 0x0.000002p0f;
  float result = ct::add(8.0f, 5 * eps, ct::round_toward_negative_t{});
  out[0] = result;
  float flushed = ct::sub(0x1.1p-126f, 0x1.0p-126f,
                          ct::round_ties_to_even_t{},
                          ct::round_subnormals_to_zero_t{});
  out[1] = flushed;
}

// The memory model example: atomic stores of 0..3 to one int (no undefined behaviour), then a
// plain store (a data race in the seed's model).
__tile_global__ void memory_model(int* out) {
  namespace ct = ::cuda::tiles;
  using i32x4 = ct::tile<int, ct::shape<4>>;

  int x = 0;

  auto ptrs = ct::full<ct::tile<int*, ct::shape<4>>>(&x);

  // No UB
  ct::atomic_store(ptrs, ct::iota<i32x4>(),
                   ct::memory_order_relaxed_t{},
                   ct::thread_scope_block_t{});

  // Value of 'x' is either 0, 1, 2, or 3 at this point
  printf("%i\n", x);
  out[0] = x;

  // UB, due to data race
  ct::store(ptrs, ct::iota<i32x4>());
}

#if !defined(__CUDACC_RTC__)
#include "tile_test.h"

int main() {
  using namespace tile_test;
  {
    constexpr int n = 37;
    Buffer<int> a(n), b(n), c(n);
    Random random(seed());
    for (int i = 0; i < n; ++i) {
      a[i] = static_cast<int>(random.next() % 1000);
      b[i] = static_cast<int>(random.next() % 1000);
    }
    launch({n, 1, 1}, kernel, a.get(), b.get(), c.get());
    for (int i = 0; i < n; ++i) check(c[i] == a[i] + b[i], "vector add element " + std::to_string(i));
  }
  {
    Buffer<double> out(4);
    launch({1, 1, 1}, example1, out.get());
    check(out[0] == -2 && out[1] == 2 && out[2] == 1 && out[3] == 5, "Example 1: (2 6) - (4 1)^T == (-2 2; 1 5)");
  }
  {
    Buffer<bool> out(8);
    launch({1, 1, 1}, example2, out.get());
    bool none = true;
    for (int i = 0; i < 8; ++i) none = none && !out[i];
    check(none, "Example 2: 2.0 == x is false for x == 42");
  }
  {
    Buffer<float> out(2);
    launch({1, 1, 1}, modifiers, out.get());
    check(out[0] == 8.0f, "round_toward_negative example gives 8.0f");
    check(out[1] == 0.0f, "round_subnormals_to_zero example gives 0.0");
  }
  {
    Buffer<int> out(1);
    out[0] = -1;
    launch({1, 1, 1}, memory_model, out.get());
    check(out[0] >= 0 && out[0] <= 3, "memory model example: x is 0, 1, 2 or 3");
  }
  return finish("seed_examples");
}
#endif
