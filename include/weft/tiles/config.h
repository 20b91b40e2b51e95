// weft::tiles configuration (docs/tiles-cpp.md "Threads and shared memory"): the number of
// threads of a tile block, the block-wide shared scratch buffer, the function qualifiers and the
// few thread-level primitives (rank, barrier, warp shuffles) every other tile header uses.
//
// One tile block is one CTA of kBlockThreads threads (1-D). A tile operation is collective:
// every thread of the CTA calls it with the same arguments. On the CPU target
// (WEFT_TARGET_HOST) a tile block is one thread, a tile's fragment is the whole tile and no
// barrier or scratch is needed.
#pragma once

#include "weft/device/config.h"
#include "weft/device/numeric.h"

#if defined(WEFT_TARGET_HOST)
#include "weft/device/intrinsics.h"
#endif

// Three ways to run a tile block:
// - the GPU: kBlockThreads CUDA threads;
// - WEFT_TILES_SERIAL, the CPU target (-DWEFT_HOST): one thread holding whole tiles;
// - WEFT_TILES_EMULATE_BLOCK on the host: kBlockThreads host threads run the GPU algorithms
//   (layouts, exchanges, shuffles, barriers) exactly as the GPU does, so that they are tested
//   where there is no GPU (weft/tiles/emulate.h; a test mode, slow).
#if defined(WEFT_TARGET_HOST) && !defined(WEFT_TILES_EMULATE_BLOCK)
#define WEFT_TILES_SERIAL 1
#endif
#if defined(WEFT_TILES_EMULATE_BLOCK) && !defined(WEFT_TARGET_HOST)
#error "WEFT_TILES_EMULATE_BLOCK runs tile blocks on the host: compile with -DWEFT_HOST"
#endif

// Threads of a tile block on the GPU (a power of 2, a multiple of the warp, at most 1024). The
// kernel must be launched with exactly this many threads (x only).
#if !defined(WEFT_TILE_THREADS)
#define WEFT_TILE_THREADS 128
#endif

// Bytes of the static shared scratch buffer through which tile operations exchange data
// between threads; a tile larger than it is exchanged in rounds.
#if !defined(WEFT_TILE_SCRATCH_BYTES)
#define WEFT_TILE_SCRATCH_BYTES 16384
#endif

#if defined(WEFT_TARGET_HOST)
// A collective tile function (device only on the GPU: it uses threadIdx and shared memory).
#define WEFT_TILE_FN inline
// A collective tile function for a rarely taken path, kept out of line on the GPU so that its
// registers do not count against its caller's.
#define WEFT_TILE_OUTLINED_FN inline
#else
#define WEFT_TILE_FN __device__ __forceinline__
#define WEFT_TILE_OUTLINED_FN __device__ __noinline__
#endif

// A fully unrolled loop over a fragment (fragments are registers on the GPU: every index must be
// a compile-time constant after unrolling). The CPU target leaves it to the optimizer.
#if defined(__CUDACC__) && !defined(WEFT_TARGET_HOST)
#define WEFT_UNROLL _Pragma("unroll")
#define WEFT_NO_UNROLL _Pragma("unroll 1")
#else
#define WEFT_UNROLL
#define WEFT_NO_UNROLL
#endif

namespace weft::tiles {

// size_t without <cstddef> (NVRTC has no standard headers).
using size_t = decltype(sizeof(0));

#if defined(WEFT_TILES_SERIAL)
// Threads of a tile block: one on the CPU target.
inline constexpr uint32_t kBlockThreads = 1;
#else
// Threads of a tile block: WEFT_TILE_THREADS.
inline constexpr uint32_t kBlockThreads = WEFT_TILE_THREADS;
#endif
static_assert(kBlockThreads == 1 || (kBlockThreads % 32 == 0 && kBlockThreads <= 1024 &&
                                     (kBlockThreads & (kBlockThreads - 1)) == 0),
              "WEFT_TILE_THREADS must be a power of 2 between 32 and 1024");

// Bytes of the shared scratch buffer.
inline constexpr uint32_t kScratchBytes = WEFT_TILE_SCRATCH_BYTES;
static_assert(kScratchBytes >= 1024 && (kScratchBytes & (kScratchBytes - 1)) == 0,
              "WEFT_TILE_SCRATCH_BYTES must be a power of 2 of at least 1024");

}  // namespace weft::tiles

#if defined(WEFT_TILES_EMULATE_BLOCK)
#include "weft/tiles/emulate.h"
#endif

namespace weft::tiles {
namespace detail {

// The calling thread's rank in the tile block.
WEFT_TILE_FN uint32_t thread_rank() {
#if defined(WEFT_TILES_SERIAL)
  return 0;
#elif defined(WEFT_TILES_EMULATE_BLOCK)
  return emulate::current().rank;
#else
  return threadIdx.x;
#endif
}

// A barrier of the tile block (nothing to wait for on the CPU target's single thread).
WEFT_TILE_FN void block_sync() {
#if defined(WEFT_TILES_EMULATE_BLOCK)
  emulate::arrive_and_wait(emulate::current().block->barrier);
#elif !defined(WEFT_TILES_SERIAL)
  __syncthreads();
#endif
}

#if !defined(WEFT_TILES_SERIAL)
// The block's shared scratch buffer: one static __shared__ array for every tile operation of a
// kernel (each use starts with a barrier, so consecutive uses never overlap).
WEFT_TILE_FN unsigned char* scratch() {
#if defined(WEFT_TILES_EMULATE_BLOCK)
  return emulate::current().block->scratch;
#else
  __shared__ __align__(16) unsigned char buffer[kScratchBytes];
  return buffer;
#endif
}
#endif

// The unsigned integer of the same size as T (1, 2, 4 or 8 bytes).
template <size_t N>
struct uint_of_size;
template <>
struct uint_of_size<1> {
  using type = unsigned char;
};
template <>
struct uint_of_size<2> {
  using type = unsigned short;
};
template <>
struct uint_of_size<4> {
  using type = unsigned int;
};
template <>
struct uint_of_size<8> {
  using type = unsigned long long;
};
template <class T>
using bits_t = typename uint_of_size<sizeof(T)>::type;

// std::bit_cast without <bit>: the compiler builtin that g++, nvcc and NVRTC all provide.
template <class To, class From>
WEFT_HD constexpr To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of one size");
  return __builtin_bit_cast(To, from);
}

#if !defined(WEFT_TILES_SERIAL)
// Any trivially copyable value as 32-bit words (a shuffle moves one word).
template <class T>
struct word_pack {
  static constexpr uint32_t kWords = (sizeof(T) + 3) / 4;
  unsigned w[kWords];
};
template <class T>
WEFT_TILE_FN word_pack<T> to_words(const T& value) {
  if constexpr (sizeof(T) % 4 == 0) {
    return bit_cast<word_pack<T>>(value);
  } else {
    return word_pack<T>{{static_cast<unsigned>(bit_cast<bits_t<T>>(value))}};
  }
}
template <class T>
WEFT_TILE_FN T from_words(const word_pack<T>& words) {
  if constexpr (sizeof(T) % 4 == 0) {
    return bit_cast<T>(words);
  } else {
    return bit_cast<T>(static_cast<bits_t<T>>(words.w[0]));
  }
}

// __shfl_xor_sync / __shfl_up_sync / __shfl_sync over the full warp, for any trivially
// copyable value (word by word).
template <class T>
WEFT_TILE_FN T shfl_xor(const T& value, uint32_t mask) {
  word_pack<T> words = to_words(value);
  WEFT_UNROLL
  for (uint32_t i = 0; i < word_pack<T>::kWords; ++i) {
#if defined(WEFT_TILES_EMULATE_BLOCK)
    words.w[i] = emulate::shuffle(words.w[i], (thread_rank() & 31u) ^ mask);
#else
    words.w[i] = __shfl_xor_sync(0xffffffffu, words.w[i], static_cast<int>(mask));
#endif
  }
  return from_words<T>(words);
}
template <class T>
WEFT_TILE_FN T shfl_up(const T& value, uint32_t delta) {
  word_pack<T> words = to_words(value);
  WEFT_UNROLL
  for (uint32_t i = 0; i < word_pack<T>::kWords; ++i) {
#if defined(WEFT_TILES_EMULATE_BLOCK)
    uint32_t lane = thread_rank() & 31u;
    words.w[i] = emulate::shuffle(words.w[i], lane >= delta ? lane - delta : lane);
#else
    words.w[i] = __shfl_up_sync(0xffffffffu, words.w[i], delta);
#endif
  }
  return from_words<T>(words);
}
template <class T>
WEFT_TILE_FN T shfl_idx(const T& value, uint32_t lane) {
  word_pack<T> words = to_words(value);
  WEFT_UNROLL
  for (uint32_t i = 0; i < word_pack<T>::kWords; ++i) {
#if defined(WEFT_TILES_EMULATE_BLOCK)
    words.w[i] = emulate::shuffle(words.w[i], lane & 31u);
#else
    words.w[i] = __shfl_sync(0xffffffffu, words.w[i], static_cast<int>(lane));
#endif
  }
  return from_words<T>(words);
}
#endif

}  // namespace detail
}  // namespace weft::tiles
