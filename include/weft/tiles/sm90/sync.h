// sm_90a synchronization building blocks (docs/tiles.md, "Hopper building blocks (C++)"):
// shared-memory addresses, the async-proxy fence, mbarriers (arrive counts, transaction bytes,
// phase parity) and a ring of full/empty barrier pairs, thread-block clusters, elect.sync and
// setmaxnreg. Per-thread or per-warp primitives, not collective tile operations; include
// <weft/tiles/sm90.h>, not this file.
#pragma once

namespace weft::tiles::sm90 {

// The 32-bit shared-state-space address of a generic pointer into the CTA's shared memory.
WEFT_SM90_FN uint32_t shared_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// Orders this thread's generic-proxy writes to shared memory before later async-proxy accesses
// (a TMA store or a wgmma reading what the threads wrote).
WEFT_SM90_FN void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- mbarrier ------------------------------------------------------------------------------------

// Initializes the shared mbarrier `bar` to expect `count` arrivals per phase (one thread).
WEFT_SM90_FN void mbarrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}

// Makes this thread's mbarrier initializations visible to the cluster's other CTAs and to the
// async proxy (TMA); call after the inits, before the barrier that publishes them.
WEFT_SM90_FN void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival on `bar` (release at CTA scope).
WEFT_SM90_FN void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

// One arrival on the mbarrier at `bar`'s offset in the shared memory of cluster CTA `cta`: how a
// consumer frees a stage that other CTAs multicast into, once its reads of the stage have
// completed (wgmma_wait). The arrival releases at CTA scope, as mbarrier_arrive does: a
// cluster-scope release compiles to a GPU-wide memory barrier (MEMBAR.ALL.GPU) before every
// arrival, in the consumer's K loop. It does not publish the thread's writes to the other CTA's
// threads; cluster_sync does.
WEFT_SM90_FN void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(shared_address(bar)), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

// One arrival on `bar` that also raises the phase's expected transaction count by `bytes`: the
// phase completes when every arrival is in and that many bytes of async copies (TMA
// complete_tx) have landed.
WEFT_SM90_FN void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}

// Raises the current phase's expected transaction count by `bytes` without arriving.
WEFT_SM90_FN void mbarrier_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
}

// Whether the phase of parity `parity` (0 or 1) of `bar` has completed (acquire at CTA scope);
// the hardware may suspend the thread for a while before answering false.
WEFT_SM90_FN bool mbarrier_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits until the phase of parity `parity` of `bar` has completed.
WEFT_SM90_FN void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

// A position in a ring of Stages stages: the stage, and the parity of the barrier phase that
// marks it full (flips each time the ring wraps).
template <uint32_t Stages>
struct ring_position {
  uint32_t stage = 0;
  uint32_t phase = 0;
  // Moves to the next stage.
  WEFT_SM90_FN void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

// The barriers of a producer/consumer ring of Stages shared-memory stages (place it in shared
// memory): full[s] completes when the producer's copies into stage s have landed, empty[s] when
// every consumer has released it. Producer and consumers each walk the ring with their own
// ring_position:
//   producer: acquire(p); issue copies completing on full_barrier(p); (or commit(p, bytes) then
//             copies) p.advance();
//   consumer: wait(p); use stage p.stage; release(p); p.advance();
template <uint32_t Stages>
struct mbarrier_ring {
  static_assert(Stages >= 1, "a ring has at least one stage");
  uint64_t full[Stages];
  uint64_t empty[Stages];

  // Initializes every barrier (one thread, before a barrier that publishes them): full expects
  // `producers` arrivals (each with its transaction bytes), empty `consumers` arrivals.
  WEFT_SM90_FN void init(uint32_t producers, uint32_t consumers) {
    for (uint32_t s = 0; s < Stages; ++s) {
      mbarrier_init(&full[s], producers);
      mbarrier_init(&empty[s], consumers);
    }
    fence_mbarrier_init();
  }
  // Producer: waits until stage p.stage is free (at once on the ring's first lap).
  WEFT_SM90_FN void acquire(const ring_position<Stages>& p) { mbarrier_wait(&empty[p.stage], p.phase ^ 1u); }
  // Producer: arrives on the stage's full barrier expecting `bytes` bytes of async copies.
  WEFT_SM90_FN void commit(const ring_position<Stages>& p, uint32_t bytes) {
    mbarrier_arrive_expect_tx(&full[p.stage], bytes);
  }
  // The full barrier TMA copies into stage p.stage complete on.
  WEFT_SM90_FN uint64_t* full_barrier(const ring_position<Stages>& p) { return &full[p.stage]; }
  // Consumer: waits until stage p.stage is full.
  WEFT_SM90_FN void wait(const ring_position<Stages>& p) { mbarrier_wait(&full[p.stage], p.phase); }
  // Consumer: releases stage p.stage to the producer (one arrival).
  WEFT_SM90_FN void release(const ring_position<Stages>& p) { mbarrier_arrive(&empty[p.stage]); }
};

// ---- Clusters, election, registers ---------------------------------------------------------------

// The CTA's rank in its cluster.
WEFT_SM90_FN uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The number of CTAs in the cluster.
WEFT_SM90_FN uint32_t cluster_nctarank() {
  uint32_t count;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(count));
  return count;
}

// Arrives on the cluster barrier (release): every thread of every CTA of the cluster.
WEFT_SM90_FN void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

// Waits for the cluster barrier's current phase (acquire).
WEFT_SM90_FN void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// cluster_arrive then cluster_wait.
WEFT_SM90_FN void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// The generic address of the object at `pointer`'s shared-memory offset in cluster CTA `cta`
// (distributed shared memory: ordinary loads and stores reach the other CTA).
template <class T>
WEFT_SM90_FN T* map_to_cta(T* pointer, uint32_t cta) {
  uint64_t mapped;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(mapped) : "l"(reinterpret_cast<uint64_t>(pointer)), "r"(cta));
  return reinterpret_cast<T*>(mapped);
}

// Whether this lane is the one elect.sync picks among the warp's active lanes (the whole warp
// must call it); exactly one lane gets true.
WEFT_SM90_FN bool elect_one() {
  uint32_t elected;
  asm volatile("{\n.reg .pred p;\nelect.sync _|p, %1;\nselp.u32 %0, 1, 0, p;\n}"
               : "=r"(elected)
               : "r"(0xffffffffu));
  return elected != 0;
}

// setmaxnreg: the calling warpgroup's per-thread register limit becomes Registers (a multiple of
// 8 in [24, 256]); inc waits for registers other warpgroups released with dec. Every warp of
// the warpgroup calls it; the kernel must be launched with a register count it can grant
// (__launch_bounds__ or -maxrregcount).
template <uint32_t Registers>
WEFT_SM90_FN void setmaxnreg_inc() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
  WEFT_SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
}
// See setmaxnreg_inc: lowers the limit, releasing registers to the SM's pool.
template <uint32_t Registers>
WEFT_SM90_FN void setmaxnreg_dec() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
  WEFT_SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
}

}  // namespace weft::tiles::sm90
