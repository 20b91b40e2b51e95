// Loads of a tile loop issued ahead: the code generator's lowering of a range loop whose loads
// read kernel parameters the kernel never writes, at indices computed without effects from the
// loop variable and values the loop does not assign (sema::LoopPrefetch decides which):
//
//   auto l = prefetch_load<S, Stages, Offset>(array, index);   // one per load; index(v): its block index
//   prefetch_start(begin, end, l, ...);
//   for (v = begin; v < end; ++v) {
//     prefetch_next(v, l, ...);
//     ... l.read(v) ...                                          // == load_array<S>(array, 0, index(v)...)
//   }
//   prefetch_finish(l, ...);
//
// On sm_80+ each load owns Stages slots of a ring in the block's dynamic shared memory, at byte
// Offset of the ring, which starts at the first 1024-byte boundary (sema lays the loads out on
// such boundaries and asks for the bytes and that alignment, TypedProgram::tileSharedBytes). The
// tiles of steps begin .. begin + Stages - 2 are copied before the loop; at the top of step k the
// block waits for step k's copies, and one barrier later (every warp is then done with step
// k - 1's slot) starts step k + Stages - 1's into that slot, so a step's global loads overlap
// the previous steps' work. A slot holds its tile's rows (the last dimension along a row) in
// 16-byte chunks: rows of a multiple of 128 bytes (8 rows a multiple) as 128-byte column slabs
// with the 128-byte swizzle (sm90::smem_tile's layout, which wgmma's descriptors read), other
// rows XOR-swizzled as mma_pipeline's stages are (detail::swizzled_offset); see slot_offset. It
// is copied by cp.async (zero-filled outside the array) where the array's rows are 16-byte aligned and the
// tile's rows are whole chunks, else element by element by the block's threads; read(v) gives
// the tile of step v in the default layout, and view(v) the same tile where it is, which mma
// reads from the stage (mma_operands.h). Where the launch gave less dynamic shared memory
// than the ring needs (and on older GPUs and the emulated block) read(v) loads the tile then, as
// the loop as written does. The CPU target records each step's block index when the step is
// issued and loads it at read(v): the same values, as the array does not change in the loop,
// with the indices computed when the GPU computes them.
#pragma once

#include "weft/tiles/arrays.h"
#include "weft/tiles/mma_operands.h"
#include "weft/tiles/sm90/layout.h"

namespace weft::tiles {
namespace detail {

// The prefetched loads' ring starts at the first multiple of this many bytes of the dynamic
// shared memory (the 128-byte swizzle's period, whose address bits wgmma's descriptors read
// the swizzle from); sema's kStageAlignment is the same number.
inline constexpr uint32_t kLoopRingAlignment = 1024;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
// The shared address of the dynamic shared memory.
WEFT_TILE_FN uint32_t stage_ring_address() {
  return static_cast<uint32_t>(__cvta_generic_to_shared(stage_ring()));
}
// The bytes of the dynamic shared memory before the prefetched loads' ring (its first
// kLoopRingAlignment boundary).
WEFT_TILE_FN uint32_t loop_ring_pad() {
  return (kLoopRingAlignment - stage_ring_address() % kLoopRingAlignment) % kLoopRingAlignment;
}
#endif

// A tile of shape S as the rows of a slot: its last dimension along a row, the others (in
// row-major order) down the rows.
template <class S>
struct staged_rows {
  static constexpr uint32_t kRank = static_cast<uint32_t>(S::rank());
  static constexpr uint32_t kCols = static_cast<uint32_t>(S::static_extent(kRank - 1));
  static constexpr uint32_t kRows = static_cast<uint32_t>(static_size<S>()) / kCols;
};

}  // namespace detail

// One prefetched load of a loop: tiles of shape S of an array (a weft::Array of rank S's), at
// the block index index(v) (a block_index) for the loop value v; its Stages slots start at byte
// Offset of the ring. Made by prefetch_load, driven by prefetch_start / prefetch_next /
// prefetch_finish.
template <class S, uint32_t Stages, uint32_t Offset, class Span, class Index>
class prefetched_load {
 public:
  using T = typename Span::value_type;
  using value_type = tile<T, S>;
  static constexpr uint32_t kStages = Stages;
  static constexpr uint32_t kRank = detail::staged_rows<S>::kRank;
  static constexpr uint32_t kRows = detail::staged_rows<S>::kRows, kCols = detail::staged_rows<S>::kCols;
  static constexpr uint32_t kRowBytes = kCols * sizeof(T), kTileBytes = kRows * kRowBytes;
  // The ring bytes up to the end of this load's slots.
  static constexpr uint32_t kEnd = Offset + Stages * kTileBytes;
  // Whether the slots hold 128-byte column slabs (see slot_offset), and one slot's first byte
  // starts a swizzle period of the ring.
  static constexpr bool kSlabs = kRowBytes % 128 == 0 && kRows % 8 == 0;
  static constexpr bool kSlabAligned = kSlabs && Offset % detail::kLoopRingAlignment == 0;
  static_assert(Stages >= 2, "a prefetched load needs at least two stages");
  static_assert(Span::rank() == kRank, "a prefetched load takes one block index per dimension of its array");

  WEFT_TILE_FN prefetched_load(const Span& span, Index index) : span_(span), index_(index) {}

  // Sets the loop's first value and number of steps; `ring`: whether the slots are in the ring.
  WEFT_TILE_FN void start(int64_t begin, int64_t steps, bool ring) {
    begin_ = begin;
    steps_ = steps;
    ring_ = ring;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    bool async = kRowBytes % 16 == 0 && span_.stride(kRank - 1) == 1 && detail::aligned_to(span_.data_handle(), 16);
    for (uint32_t d = 0; d + 1 < kRank; ++d) async = async && (static_cast<uint64_t>(span_.stride(d)) * sizeof(T)) % 16 == 0;
    async_ = async;
#endif
  }

  // Whether the slots are in the ring (else read() loads).
  WEFT_TILE_FN bool ring() const { return ring_; }
  WEFT_TILE_FN int64_t begin() const { return begin_; }
  WEFT_TILE_FN int64_t steps() const { return steps_; }

  // Starts copying the tile of step `step` (if the loop has it) into its slot.
  WEFT_TILE_FN void issue(int64_t step) {
    if (step >= steps_) return;
    const block_index<static_cast<int>(kRank)> at = index_(begin_ + step);
#if defined(WEFT_TILES_SERIAL)
    issued_[step % Stages] = at;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    const uint32_t slot = slot_start(begin_ + step);
    if (async_) {
      copy_async(detail::stage_ring_address() + slot, at.at);
    } else {
      copy_elements(detail::stage_ring() + slot, at.at);
    }
#else
    static_cast<void>(at);
#endif
  }

  // The tile of the step of loop value `value` (issued, and waited for by prefetch_next).
  template <class K>
  WEFT_TILE_FN value_type read(K value) const {
#if defined(WEFT_TILES_SERIAL)
    return detail::load_padded<S>(span_, T(0), issued_[(static_cast<int64_t>(value) - begin_) % Stages].at);
#else
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    if (ring_) return from_slot(detail::stage_ring() + slot_start(static_cast<int64_t>(value)));
#endif
    return detail::load_padded<S>(span_, T(0), index_(value).at);
#endif
  }

  // The tile of the step of loop value `value` where it is, for mma to read it from its stage
  // (mma_operands.h); the same values as read(value).
  template <class K>
  WEFT_TILE_FN stage_view<prefetched_load, S, false> view(K value) const {
    return {this, static_cast<int64_t>(value)};
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  // The shared address of the slot of loop value `value` (in the ring: ring() holds).
  WEFT_TILE_FN uint32_t slot_address(int64_t value) const { return detail::stage_ring_address() + slot_start(value); }

  // The block index of loop value `value`, and element (row, col) of the tile there as staged
  // rows, read from the array (zero outside it): how a product that reads b from the stage reads
  // it where the slots are not in the ring (mma_operands.h).
  WEFT_TILE_FN block_index<static_cast<int>(kRank)> block(int64_t value) const { return index_(value); }
  WEFT_TILE_FN T element(const block_index<static_cast<int>(kRank)>& at, uint32_t row, uint32_t col) const {
    int64_t offset;
    const bool rowInside = row_offset(at.at, row, offset);
    const int64_t c = at.at[kRank - 1] * kCols + col;
    const bool inside = rowInside && c >= 0 && c < static_cast<int64_t>(span_.extent(kRank - 1));
    return inside ? span_.data_handle()[offset + c * static_cast<int64_t>(span_.stride(kRank - 1))] : T(0);
  }
#endif

  // The byte offset in a slot of byte `byte` of row `row`: with kSlabs, the rows' bytes
  // [128 s, 128 s + 128) form slab s (kRows lines of 128 bytes), and the 16-byte chunks of each
  // line are XORed with its row modulo 8; else mma_pipeline's swizzle of whole rows.
  WEFT_HD static constexpr uint32_t slot_offset(uint32_t row, uint32_t byte) {
    if constexpr (kSlabs) {
      return byte / 128 * (kRows * 128) + sm90::swizzle_offset(sm90::swizzle::b128, row * 128 + byte % 128);
    } else {
      return detail::swizzled_offset<kRowBytes>(row, byte);
    }
  }

 private:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  // The byte of the dynamic shared memory where the slot of loop value `value` starts.
  WEFT_TILE_FN uint32_t slot_start(int64_t value) const {
    return detail::loop_ring_pad() + Offset + static_cast<uint32_t>((value - begin_) % Stages) * kTileBytes;
  }

  static constexpr uint32_t kPerChunk = 16 / sizeof(T), kChunksPerRow = kRowBytes / 16;

  // The element offset of row `row` of the tile at block index `at`, and whether the row lies
  // in the array (its dimensions but the last).
  WEFT_TILE_FN bool row_offset(const int64_t* at, uint32_t row, int64_t& offset) const {
    bool inside = true;
    offset = 0;
    WEFT_UNROLL
    for (uint32_t d = 0; d + 1 < kRank; ++d) {
      const uint32_t extent = static_cast<uint32_t>(S::static_extent(d));
      const uint32_t within = (row / static_cast<uint32_t>(detail::shape_info<S>::stride(d) / kCols)) % extent;
      const int64_t g = at[d] * extent + within;
      inside = inside && g >= 0 && g < static_cast<int64_t>(span_.extent(d));
      offset += g * static_cast<int64_t>(span_.stride(d));
    }
    return inside;
  }

  // cp.async of the tile at block index `at` into the slot at shared address `slot`: each thread
  // every kBlockThreads-th 16-byte chunk, zero-filled past the array.
  WEFT_TILE_FN void copy_async(uint32_t slot, const int64_t* at) const {
    if constexpr (kRowBytes % 16 == 0) {
      constexpr uint32_t kChunks = kRows * kChunksPerRow;
      const T* data = span_.data_handle();
      const int64_t cols = static_cast<int64_t>(span_.extent(kRank - 1));
      const uint32_t t = detail::thread_rank();
      WEFT_UNROLL
      for (uint32_t c0 = 0; c0 < kChunks; c0 += kBlockThreads) {
        const uint32_t c = c0 + t;
        if (kChunks % kBlockThreads == 0 || c < kChunks) {
          const uint32_t row = c / kChunksPerRow, k = c % kChunksPerRow;
          int64_t offset;
          const bool rowInside = row_offset(at, row, offset);
          const int64_t col = at[kRank - 1] * kCols + k * kPerChunk, left = cols - col;
          const bool inside = rowInside && col >= 0 && left > 0;
          const uint32_t bytes = !inside ? 0u : left >= kPerChunk ? 16u : static_cast<uint32_t>(left * sizeof(T));
          detail::copy_async_16(slot + slot_offset(row, k * 16), inside ? data + offset + col : data, bytes);
        }
      }
    }
  }

  // The same copy element by element (arrays whose rows cp.async cannot address), now.
  WEFT_TILE_FN void copy_elements(unsigned char* slot, const int64_t* at) const {
    constexpr uint32_t kElements = kRows * kCols;
    const int64_t cols = static_cast<int64_t>(span_.extent(kRank - 1)), colStride = static_cast<int64_t>(span_.stride(kRank - 1));
    const uint32_t t = detail::thread_rank();
    WEFT_NO_UNROLL
    for (uint32_t e = t; e < kElements; e += kBlockThreads) {
      const uint32_t row = e / kCols, c = e % kCols;
      int64_t offset;
      const bool rowInside = row_offset(at, row, offset);
      const int64_t col = at[kRank - 1] * kCols + c;
      const bool inside = rowInside && col >= 0 && col < cols;
      *reinterpret_cast<T*>(slot + slot_offset(row, c * sizeof(T))) =
          inside ? span_.data_handle()[offset + col * colStride] : T(0);
    }
  }

  // The tile held in the slot at `slot`, in the default layout: each thread's vectors (at most
  // 16 bytes, within one swizzled chunk) read at once.
  WEFT_TILE_FN static value_type from_slot(const unsigned char* slot) {
    using L = typename value_type::layout_type;
    constexpr uint32_t kPiece = detail::min_of(detail::min_of(L::kVector, kCols), static_cast<uint32_t>(16 / sizeof(T)));
    const uint32_t t = detail::thread_rank();
    value_type out;
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; k += kPiece) {
      const uint32_t i = L::index(t, k);
      detail::load_vector<kPiece>(reinterpret_cast<const T*>(slot + slot_offset(i / kCols, (i % kCols) * sizeof(T))),
                                  &out.frag_[k]);
    }
    return out;
  }

  bool async_ = false;
#endif
  Span span_;
  Index index_;
  int64_t begin_ = 0, steps_ = 0;
  bool ring_ = false;
#if defined(WEFT_TILES_SERIAL)
  block_index<static_cast<int>(kRank)> issued_[Stages];
#endif
};

// The prefetched load of tiles of shape S of `array` at the block index `index(v)` (a
// block_index) of loop value v, with Stages slots at byte Offset of the ring.
template <class S, uint32_t Stages, uint32_t Offset, class Array, class Index>
WEFT_TILE_FN auto prefetch_load(const Array& array, Index index) {
  using Span = decltype(detail::array_span(array));
  return prefetched_load<S, Stages, Offset, Span, Index>(detail::array_span(array), index);
}

// Before the loop over [begin, end): chooses where the slots are (the ring where the launch gave
// the bytes of every load's slots) and starts the copies of the first Stages - 1 steps.
template <class K, class First, class... Loads>
WEFT_TILE_FN void prefetch_start(K begin, K end, First& first, Loads&... loads) {
  constexpr uint32_t kStages = First::kStages;
  static_assert(((Loads::kStages == kStages) && ...), "the prefetched loads of one loop have one number of stages");
  const int64_t steps = static_cast<int64_t>(end) > static_cast<int64_t>(begin) ? static_cast<int64_t>(end) - static_cast<int64_t>(begin) : 0;
#if defined(WEFT_TILES_SERIAL)
  const bool ring = true;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  uint32_t bytes = First::kEnd;
  ((bytes = detail::max_of(bytes, Loads::kEnd)), ...);
  const bool ring = detail::dynamic_shared_bytes() >= detail::loop_ring_pad() + bytes;
#else
  const bool ring = false;
#endif
  first.start(static_cast<int64_t>(begin), steps, ring);
  (loads.start(static_cast<int64_t>(begin), steps, ring), ...);
  if (!ring) return;
  detail::block_sync();  // the ring's earlier users are done, and the block's stores are visible
  WEFT_UNROLL
  for (uint32_t s = 0; s + 1 < kStages; ++s) {
    first.issue(s);
    (loads.issue(s), ...);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    detail::commit_async_group();  // empty groups too: the waits count groups
#endif
  }
}

// At the top of the step of loop value `value`: waits for its tiles, then starts the copies of
// step + Stages - 1 into the slots the previous step read.
template <class K, class First, class... Loads>
WEFT_TILE_FN void prefetch_next(K value, First& first, Loads&... loads) {
  if (!first.ring()) return;
  const int64_t ahead = static_cast<int64_t>(value) - first.begin() + First::kStages - 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  detail::wait_async_groups<static_cast<int>(First::kStages) - 2>();
#if defined(WEFT_TILES_WGMMA)
  sm90::fence_proxy_async();  // the copies are visible to wgmma's reads of the stages (mma_operands.h)
#endif
  detail::block_sync();  // this step's tiles are in; every warp is done with the previous step's
#endif
  first.issue(ahead);
  (loads.issue(ahead), ...);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  detail::commit_async_group();
#endif
}

// After the loop (or a break out of it): no copy is left in flight and the ring is free.
template <class First, class... Loads>
WEFT_TILE_FN void prefetch_finish(const First& first, const Loads&...) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  if (!first.ring()) return;
  detail::wait_async_groups<0>();
  detail::block_sync();
#else
  static_cast<void>(first);
#endif
}

}  // namespace weft::tiles
