// sm_90a tensor memory accelerator (TMA) copies (docs/tiles.md, "Hopper building blocks (C++)"):
// tiled loads of a box of a tensor from global into shared memory, completing on an mbarrier with
// transaction bytes, optionally multicast to several CTAs of the cluster; tiled stores from
// shared to global memory in bulk groups; descriptor prefetch. `map` is the address of a
// CUtensorMap (a `const __grid_constant__ CUtensorMap` kernel parameter, or
// global/constant memory) made on the host (weft/tiles/sm90/tensor_map.h). Coordinates are
// elements, innermost dimension first (as the tensor map lists them), and may lie partly or
// wholly outside the tensor: loads fill what is outside with zeros, stores skip it. One thread
// issues each copy.
#pragma once

#include "weft/tiles/sm90/tensor_map_type.h"

namespace weft::tiles::sm90 {

// Fetches the tensor map at `map` into the TMA unit's descriptor cache.
WEFT_SM90_FN void tma_prefetch_descriptor(const void* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Loads the box at coordinates (x, y) / (x, y, z) of the 2-D / 3-D tensor map into shared memory
// at `dst` and counts its bytes on `bar`, whose phase must expect them (mbarrier_arrive_expect_tx).
// TMA needs `dst` 128-byte aligned; a swizzled box lands in smem_tile's layout only from a multiple
// of swizzle_alignment(mode) (256, 512 or 1024 bytes).
WEFT_SM90_FN void tma_load(void* dst, const void* map, uint64_t* bar, int32_t x, int32_t y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
      "[%2];" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(shared_address(bar)), "r"(x), "r"(y)
      : "memory");
}
WEFT_SM90_FN void tma_load(void* dst, const void* map, uint64_t* bar, int32_t x, int32_t y, int32_t z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(shared_address(bar)), "r"(x), "r"(y), "r"(z)
      : "memory");
}

// tma_load whose box lands at `dst`'s offset in the shared memory of every cluster CTA whose bit
// is set in `ctaMask`, each counting the bytes on the mbarrier at `bar`'s offset in its own
// shared memory.
WEFT_SM90_FN void tma_load_multicast(void* dst, const void* map, uint64_t* bar, uint16_t ctaMask, int32_t x,
                                     int32_t y) {
  WEFT_SM90A_ASM(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5}], [%2], %3;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(shared_address(bar)), "h"(ctaMask), "r"(x), "r"(y)
      : "memory");
}

// Stores the box at `src` in shared memory to coordinates (x, y) / (x, y, z) of the tensor map
// (elements outside the tensor are not written). Make the threads' writes to `src` visible first
// (fence_proxy_async, then a barrier); the store joins the thread's current bulk group.
// Unlike a load, a store needs every coordinate >= 0 and x times the element size a multiple of
// 16 bytes: on the H100 any other store stops the kernel with an illegal instruction (boxes that
// cross the right or bottom edge, or lie wholly past them, are fine).
WEFT_SM90_FN void tma_store(const void* map, const void* src, int32_t x, int32_t y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(shared_address(src)), "r"(x), "r"(y)
               : "memory");
}
WEFT_SM90_FN void tma_store(const void* map, const void* src, int32_t x, int32_t y, int32_t z) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(shared_address(src)), "r"(x), "r"(y), "r"(z)
               : "memory");
}

// Closes the thread's current bulk group of TMA stores.
WEFT_SM90_FN void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most Pending of the thread's committed store groups are still reading their
// shared-memory sources (the sources of the others may be overwritten).
template <int Pending>
WEFT_SM90_FN void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

// Waits until at most Pending of the thread's committed store groups are incomplete (the others'
// writes to global memory are done and visible to the thread).
template <int Pending>
WEFT_SM90_FN void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}

}  // namespace weft::tiles::sm90
