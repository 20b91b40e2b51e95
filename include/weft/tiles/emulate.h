// WEFT_TILES_EMULATE_BLOCK (host only, a test mode): a tile block is run by kBlockThreads
// emulated threads that execute the GPU algorithms of the tile headers (layouts, shared-memory
// exchanges, warp shuffles, barriers), so that they are tested on machines without a GPU. The
// threads are fibers (ucontext) of the calling OS thread, switched at barriers and shuffles, so
// emulation is deterministic; host_launch runs the blocks of a grid one after another. Slow:
// for tests, never for the CPU target.
#pragma once

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>

#include <memory>
#include <tuple>
#include <utility>
#include <vector>

namespace weft::tiles::emulate {

// A barrier of `expected` fibers: the last to arrive starts the next generation. `finished`
// counts the fibers it waits for that have returned (they never arrive).
struct Barrier {
  uint32_t expected;
  uint32_t arrived = 0;
  uint64_t generation = 0;
  uint32_t finished = 0;
};

struct Block;

// One emulated thread: its rank, its block, its fiber and the context the kernel sees.
struct Thread {
  uint32_t rank = 0;
  Block* block = nullptr;
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  host::ThreadContext hostContext{};
  bool finished = false;
};

// One running tile block: its barrier, its scratch buffer, per warp a barrier and the slots
// through which a shuffle exchanges one word per lane.
struct Block {
  Barrier barrier{kBlockThreads};
  alignas(128) unsigned char scratch[kScratchBytes];
  Barrier warps[kBlockThreads / 32];
  unsigned slots[kBlockThreads];
  ucontext_t scheduler{};
  std::vector<Thread> threads = std::vector<Thread>(kBlockThreads);
  Block() {
    for (Barrier& warp : warps) warp.expected = 32;
  }
};

// The emulated thread now running.
inline Thread* current_thread = nullptr;
inline Thread& current() {
  return *current_thread;
}

// Lets the other fibers of the block run.
inline void yield() {
  Thread& self = current();
  swapcontext(&self.context, &self.block->scheduler);
}

// Waits until every fiber counted by `barrier` has arrived.
inline void arrive_and_wait(Barrier& barrier) {
  uint64_t generation = barrier.generation;
  if (++barrier.arrived == barrier.expected) {
    barrier.arrived = 0;
    ++barrier.generation;
    return;
  }
  while (barrier.generation == generation) {
    // A returned fiber never arrives: the block's threads diverged around a collective tile
    // operation, which deadlocks (or corrupts data) on the GPU.
    if (barrier.finished != 0) {
      std::fprintf(stderr, "weft tiles emulation: thread %u waits at a barrier that a returned thread never reaches "
                   "(a tile operation not called by every thread of the block)\n", current().rank);
      std::abort();
    }
    yield();
  }
}

// Every lane of the caller's warp contributes `value`; returns lane `source`'s.
inline unsigned shuffle(unsigned value, uint32_t source) {
  Thread& self = current();
  Block& block = *self.block;
  uint32_t warp = self.rank / 32;
  block.slots[self.rank] = value;
  arrive_and_wait(block.warps[warp]);
  unsigned result = block.slots[warp * 32 + source];
  arrive_and_wait(block.warps[warp]);
  return result;
}

// Runs kernel(args...) as tile block `index` of `grid`: kBlockThreads fibers, resumed in turn
// until all have returned.
template <class Kernel, class... Args>
void run_block(host::Dim3 index, host::Dim3 grid, Kernel kernel, Args... args) {
  constexpr size_t kStackBytes = size_t(1) << 20;
  auto block = std::make_unique<Block>();
  struct Start {
    Kernel kernel;
    void (*call)(Start*);
    decltype(std::make_tuple(args...)) arguments;
  };
  auto start = std::make_unique<Start>(Start{kernel, nullptr, std::make_tuple(args...)});
  static thread_local Start* running = nullptr;
  running = start.get();
  auto entry = [] {
    Start* s = running;
    std::apply([s](auto... a) { s->kernel(a...); }, s->arguments);
    current().finished = true;
    ++current().block->barrier.finished;
    ++current().block->warps[current().rank / 32].finished;
    swapcontext(&current().context, &current().block->scheduler);
  };
  for (uint32_t rank = 0; rank < kBlockThreads; ++rank) {
    Thread& thread = block->threads[rank];
    thread.rank = rank;
    thread.block = block.get();
    thread.stack.reset(new char[kStackBytes]);
    thread.hostContext.threadIdx = host::Dim3{rank, 0, 0};
    thread.hostContext.blockIdx = index;
    thread.hostContext.blockDim = host::Dim3{kBlockThreads, 1, 1};
    thread.hostContext.gridDim = grid;
    getcontext(&thread.context);
    thread.context.uc_stack.ss_sp = thread.stack.get();
    thread.context.uc_stack.ss_size = kStackBytes;
    thread.context.uc_link = &block->scheduler;
    makecontext(&thread.context, +entry, 0);
  }
  host::ThreadContext* saved = host::current;
  for (bool active = true; active;) {
    active = false;
    for (Thread& thread : block->threads) {
      if (thread.finished) continue;
      active = true;
      current_thread = &thread;
      host::current = &thread.hostContext;
      swapcontext(&block->scheduler, &thread.context);
    }
  }
  current_thread = nullptr;
  host::current = saved;
}

}  // namespace weft::tiles::emulate
