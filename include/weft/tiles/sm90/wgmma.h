// sm_90a warpgroup matrix multiply-accumulate (docs/tiles.md, "Hopper building blocks (C++)"):
// wgmma.mma_async m64nNk* with both operands in shared memory (descriptors from
// weft/tiles/sm90/layout.h) and an fp32 accumulator in registers (its fragment layout:
// wgmma_row / wgmma_col there), for float16, bfloat16, tfloat32 and float8 e4m3/e5m2 operands;
// the fence / commit / wait protocol; and stmatrix. The four warps of a warpgroup (128
// consecutive threads starting at a multiple of 128) call each wgmma function together.
//
// Protocol: wgmma_fence() before the first wgmma that reads accumulator registers the threads
// wrote (and after shared-memory operands were written by the threads: fence_proxy_async first);
// wgmma(...) one or more times; wgmma_commit(); wgmma_wait<P>() before touching the accumulators
// or reusing the operands' shared memory (P groups may stay in flight).
#pragma once

namespace weft::tiles::sm90 {

// Orders the warpgroup's register and shared-memory accesses before the wgmmas that follow.
WEFT_SM90_FN void wgmma_fence() {
  WEFT_SM90A_ASM("wgmma.fence.sync.aligned;" ::: "memory");
}
// Closes the warpgroup's current group of wgmmas.
WEFT_SM90_FN void wgmma_commit() {
  WEFT_SM90A_ASM("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most Pending of the warpgroup's committed wgmma groups are in flight.
template <int Pending>
WEFT_SM90_FN void wgmma_wait() {
  WEFT_SM90A_ASM("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// Keeps the compiler from moving accesses to accumulator registers across this point (around
// wgmma_commit / wgmma_wait, while an asynchronous wgmma owns them).
template <uint32_t R>
WEFT_SM90_FN void wgmma_fence_operands(float (&d)[R]) {
#pragma unroll
  for (uint32_t i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

namespace detail {

// The asm operand lists and numbering of an m64nN fp32 accumulator: N / 2 "+f" outputs, then the
// inputs (descriptor A, descriptor B, scale-d, transpose-B).
#define WEFT_WGMMA_D4(o) "+f"(d[o]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3])
#define WEFT_WGMMA_D8(o) WEFT_WGMMA_D4(o), WEFT_WGMMA_D4(o + 4)
#define WEFT_WGMMA_D16(o) WEFT_WGMMA_D8(o), WEFT_WGMMA_D8(o + 8)
#define WEFT_WGMMA_D32(o) WEFT_WGMMA_D16(o), WEFT_WGMMA_D16(o + 16)
#define WEFT_WGMMA_D64(o) WEFT_WGMMA_D32(o), WEFT_WGMMA_D32(o + 32)
#define WEFT_WGMMA_D128(o) WEFT_WGMMA_D64(o), WEFT_WGMMA_D64(o + 64)
#define WEFT_WGMMA_N8_REGS \
  "{"                      \
  "%0, %1, %2, %3"         \
  "}"
#define WEFT_WGMMA_N8_IN "4", "5", "6", "7"
#define WEFT_WGMMA_N16_REGS        \
  "{"                              \
  "%0, %1, %2, %3, %4, %5, %6, %7" \
  "}"
#define WEFT_WGMMA_N16_IN "8", "9", "10", "11"
#define WEFT_WGMMA_N32_REGS                                              \
  "{"                                                                    \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}"
#define WEFT_WGMMA_N32_IN "16", "17", "18", "19"
#define WEFT_WGMMA_N64_REGS                                                        \
  "{"                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define WEFT_WGMMA_N64_IN "32", "33", "34", "35"
#define WEFT_WGMMA_N128_REGS                                                         \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}"
#define WEFT_WGMMA_N128_IN "64", "65", "66", "67"
#define WEFT_WGMMA_N256_REGS                                                                       \
  "{"                                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"
#define WEFT_WGMMA_N256_IN "128", "129", "130", "131"

// The inputs of the A-in-registers form: A's four registers, descriptor B, scale-d, transpose-B.
#define WEFT_WGMMA_N8_RS_IN "4", "5", "6", "7", "8", "9", "10"
#define WEFT_WGMMA_N16_RS_IN "8", "9", "10", "11", "12", "13", "14"
#define WEFT_WGMMA_N32_RS_IN "16", "17", "18", "19", "20", "21", "22"
#define WEFT_WGMMA_N64_RS_IN "32", "33", "34", "35", "36", "37", "38"
#define WEFT_WGMMA_N128_RS_IN "64", "65", "66", "67", "68", "69", "70"
#define WEFT_WGMMA_N256_RS_IN "128", "129", "130", "131", "132", "133", "134"

// The instruction text: with (16-bit types) or without the transpose immediates.
#define WEFT_WGMMA_TEXT_T(shape, regs, ia, ib, is, it)                                                  \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" is ", 0;\nwgmma.mma_async.sync.aligned." shape " " regs ", %" ia \
  ", %" ib ", p, 1, 1, 0, %" it ";\n}\n"
#define WEFT_WGMMA_TEXT(shape, regs, ia, ib, is, it)                                                    \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" is ", 0;\nwgmma.mma_async.sync.aligned." shape " " regs ", %" ia \
  ", %" ib ", p, 1, 1;\n}\n"
// The same with A in four registers.
#define WEFT_WGMMA_RS_TEXT_T(shape, regs, a0, a1, a2, a3, ib, is, it)                                    \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" is ", 0;\nwgmma.mma_async.sync.aligned." shape " " regs ", {%" a0 \
  ", %" a1 ", %" a2 ", %" a3 "}, %" ib ", p, 1, 1, %" it ";\n}\n"
#define WEFT_WGMMA_RS_TEXT(shape, regs, a0, a1, a2, a3, ib, is, it)                                      \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" is ", 0;\nwgmma.mma_async.sync.aligned." shape " " regs ", {%" a0 \
  ", %" a1 ", %" a2 ", %" a3 "}, %" ib ", p, 1, 1;\n}\n"
#define WEFT_WGMMA_EXPAND(text, ...) text(__VA_ARGS__)

// The wgmmas m64nN, one per operand type and form; N / 2 accumulator registers.
template <uint32_t N>
struct wgmma_op;

// One asm statement: `text` for `shape` with N / 2 = R accumulators, input numbering `in` and the
// input operands.
#define WEFT_WGMMA_ONE(text, shape, N, R, in, ...)                          \
  WEFT_SM90A_ASM(WEFT_WGMMA_EXPAND(text, shape, WEFT_WGMMA_N##N##_REGS, in) \
                 : WEFT_WGMMA_D##R(0)                                       \
                 : __VA_ARGS__                                              \
                 : "memory")

// Both forms (A by descriptor, A in registers) for every operand type.
#define WEFT_WGMMA_DEFINE(N, R)                                                                              \
  template <>                                                                                                \
  struct wgmma_op<N> {                                                                                       \
    template <wgmma_type T, bool TransposeB>                                                                 \
    WEFT_SM90_FN static void run(float (&d)[R], uint64_t a, uint64_t b, uint32_t scaleD) {                   \
      if constexpr (T == wgmma_type::f16) {                                                                  \
        WEFT_WGMMA_ONE(WEFT_WGMMA_TEXT_T, "m64n" #N "k16.f32.f16.f16", N, R, WEFT_WGMMA_N##N##_IN, "l"(a),   \
                       "l"(b), "r"(scaleD), "n"(int(TransposeB)));                                           \
      } else if constexpr (T == wgmma_type::bf16) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_TEXT_T, "m64n" #N "k16.f32.bf16.bf16", N, R, WEFT_WGMMA_N##N##_IN, "l"(a), \
                       "l"(b), "r"(scaleD), "n"(int(TransposeB)));                                           \
      } else if constexpr (T == wgmma_type::tf32) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_TEXT, "m64n" #N "k8.f32.tf32.tf32", N, R, WEFT_WGMMA_N##N##_IN, "l"(a),    \
                       "l"(b), "r"(scaleD), "n"(0));                                                         \
      } else if constexpr (T == wgmma_type::e4m3) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_TEXT, "m64n" #N "k32.f32.e4m3.e4m3", N, R, WEFT_WGMMA_N##N##_IN, "l"(a),   \
                       "l"(b), "r"(scaleD), "n"(0));                                                         \
      } else {                                                                                               \
        WEFT_WGMMA_ONE(WEFT_WGMMA_TEXT, "m64n" #N "k32.f32.e5m2.e5m2", N, R, WEFT_WGMMA_N##N##_IN, "l"(a),   \
                       "l"(b), "r"(scaleD), "n"(0));                                                         \
      }                                                                                                      \
    }                                                                                                        \
    template <wgmma_type T, bool TransposeB>                                                                 \
    WEFT_SM90_FN static void run(float (&d)[R], const uint32_t (&a)[4], uint64_t b, uint32_t scaleD) {       \
      if constexpr (T == wgmma_type::f16) {                                                                  \
        WEFT_WGMMA_ONE(WEFT_WGMMA_RS_TEXT_T, "m64n" #N "k16.f32.f16.f16", N, R, WEFT_WGMMA_N##N##_RS_IN,     \
                       "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaleD),                      \
                       "n"(int(TransposeB)));                                                                \
      } else if constexpr (T == wgmma_type::bf16) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_RS_TEXT_T, "m64n" #N "k16.f32.bf16.bf16", N, R, WEFT_WGMMA_N##N##_RS_IN,   \
                       "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaleD),                      \
                       "n"(int(TransposeB)));                                                                \
      } else if constexpr (T == wgmma_type::tf32) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_RS_TEXT, "m64n" #N "k8.f32.tf32.tf32", N, R, WEFT_WGMMA_N##N##_RS_IN,      \
                       "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaleD), "n"(0));             \
      } else if constexpr (T == wgmma_type::e4m3) {                                                          \
        WEFT_WGMMA_ONE(WEFT_WGMMA_RS_TEXT, "m64n" #N "k32.f32.e4m3.e4m3", N, R, WEFT_WGMMA_N##N##_RS_IN,     \
                       "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaleD), "n"(0));             \
      } else {                                                                                               \
        WEFT_WGMMA_ONE(WEFT_WGMMA_RS_TEXT, "m64n" #N "k32.f32.e5m2.e5m2", N, R, WEFT_WGMMA_N##N##_RS_IN,     \
                       "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaleD), "n"(0));             \
      }                                                                                                      \
    }                                                                                                        \
  };

WEFT_WGMMA_DEFINE(8, 4)
WEFT_WGMMA_DEFINE(16, 8)
WEFT_WGMMA_DEFINE(32, 16)
WEFT_WGMMA_DEFINE(64, 32)
WEFT_WGMMA_DEFINE(128, 64)
WEFT_WGMMA_DEFINE(256, 128)

}  // namespace detail

// The asm-building macros are expanded: keep them out of the includer's namespace.
#undef WEFT_WGMMA_D4
#undef WEFT_WGMMA_D8
#undef WEFT_WGMMA_D16
#undef WEFT_WGMMA_D32
#undef WEFT_WGMMA_D64
#undef WEFT_WGMMA_D128
#undef WEFT_WGMMA_N8_REGS
#undef WEFT_WGMMA_N8_IN
#undef WEFT_WGMMA_N16_REGS
#undef WEFT_WGMMA_N16_IN
#undef WEFT_WGMMA_N32_REGS
#undef WEFT_WGMMA_N32_IN
#undef WEFT_WGMMA_N64_REGS
#undef WEFT_WGMMA_N64_IN
#undef WEFT_WGMMA_N128_REGS
#undef WEFT_WGMMA_N128_IN
#undef WEFT_WGMMA_N256_REGS
#undef WEFT_WGMMA_N256_IN
#undef WEFT_WGMMA_N8_RS_IN
#undef WEFT_WGMMA_N16_RS_IN
#undef WEFT_WGMMA_N32_RS_IN
#undef WEFT_WGMMA_N64_RS_IN
#undef WEFT_WGMMA_N128_RS_IN
#undef WEFT_WGMMA_N256_RS_IN
#undef WEFT_WGMMA_TEXT_T
#undef WEFT_WGMMA_TEXT
#undef WEFT_WGMMA_RS_TEXT_T
#undef WEFT_WGMMA_RS_TEXT
#undef WEFT_WGMMA_EXPAND
#undef WEFT_WGMMA_ONE
#undef WEFT_WGMMA_DEFINE

// D (m64nN, fp32, this thread's fragment) = A B + (accumulate ? D : 0), with A (64 x K) and B
// (K x N) read from shared memory through the descriptors: A K-major, B K-major or, with
// MnMajorB == true for 16-bit types, MN-major (smem_tile's k_major_descriptor /
// mn_major_descriptor). Asynchronous: see the protocol above. N is 8, 16, 32, 64, 128 or 256.
template <wgmma_type T, uint32_t N, bool MnMajorB = false>
WEFT_SM90_FN void wgmma(float (&d)[N / 2], uint64_t descriptorA, uint64_t descriptorB, bool accumulate) {
  static_assert(!MnMajorB || wgmma_element_bytes(T) == 2, "only 16-bit wgmma operands may be MN-major");
  detail::wgmma_op<N>::template run<T, MnMajorB>(d, descriptorA, descriptorB, accumulate ? 1u : 0u);
}

// wgmma with A (64 x K) in registers: `a` is this thread's A fragment (wgmma_a_row /
// wgmma_a_col in layout.h); B as above. The registers of `a` must stay unchanged until the wgmma
// has completed (wgmma_wait).
template <wgmma_type T, uint32_t N, bool MnMajorB = false>
WEFT_SM90_FN void wgmma(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t descriptorB, bool accumulate) {
  static_assert(!MnMajorB || wgmma_element_bytes(T) == 2, "only 16-bit wgmma operands may be MN-major");
  detail::wgmma_op<N>::template run<T, MnMajorB>(d, a, descriptorB, accumulate ? 1u : 0u);
}

// stmatrix m8n8 (.b16): stores Count (1, 2 or 4) 8 x 8 matrices of 16-bit elements from the warp's
// registers to shared memory. Register j of lane l holds row l / 4, columns 2 (l % 4) and
// 2 (l % 4) + 1 of matrix j (the low half first); lane l gives `row`, the address of row l % 8 of
// matrix l / 8 (lanes from 8 Count on are ignored). Trans stores each matrix transposed: the
// register's two elements go to rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4.
template <uint32_t Count, bool Trans = false>
WEFT_SM90_FN void stmatrix(void* row, const uint32_t (&r)[Count]) {
  static_assert(Count == 1 || Count == 2 || Count == 4, "stmatrix stores 1, 2 or 4 matrices");
  const uint32_t address = shared_address(row);
  if constexpr (Count == 1 && Trans) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(address), "r"(r[0])
                 : "memory");
  } else if constexpr (Count == 1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(address), "r"(r[0]) : "memory");
  } else if constexpr (Count == 2 && Trans) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(address), "r"(r[0]),
                 "r"(r[1])
                 : "memory");
  } else if constexpr (Count == 2) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(address), "r"(r[0]),
                 "r"(r[1])
                 : "memory");
  } else if constexpr (Trans) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
  } else {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
  }
}

}  // namespace weft::tiles::sm90
