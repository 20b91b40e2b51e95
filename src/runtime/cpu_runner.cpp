// Blocks run in parallel, claimed in chunks by the workers of a pool (the launching thread is
// worker 0). Every simulated thread runs on a fiber (runtime/fiber.h): a guarded stack sized
// from the kernel's local arrays, entered with a context switch that makes no system call.
//
// A block's threads start lazily on *carriers*: a carrier is a stack whose loop runs the
// block's next unstarted thread, and when that thread returns, the next one, so a block whose
// threads never wait runs them one after another on one stack. A thread that waits (at a
// barrier, in a warp collective, polling memory) suspends its carrier, and the scheduler
// starts the next thread on another carrier. The scheduler makes rounds: it resumes each
// suspended carrier whose wait may be over, then starts the threads not yet started. After the
// first round every thread has run up to its first wait; when the last live thread reaches a
// barrier it releases it, so the next round runs them all to the next one: the GPU's
// __syncthreads. A thread that has returned counts as arrived at every later barrier (as
// threads that exited do on the GPU), so a kernel whose threads leave early never deadlocks.
//
// A warp collective is a rendezvous of the live lanes its mask names (each lane waits, suspended,
// until every one has deposited its value, then all of them read every participant's value).
// Atomic operations and fences count down ThreadContext::pollsLeft, and a thread that runs out
// yields: a spin-wait on a flag another thread sets lets that thread run. A round in which no
// thread of a block arrived anywhere, was released, started or finished, and none polled, is a
// deadlock (a collective some lane of its mask never reaches) and is reported instead of
// hanging. A block whose threads only poll waits for memory that another block may change:
// its worker then admits another block (up to a limit, as a GPU keeps a bounded number of
// blocks resident), so that a block can wait for one that has not started yet.
//
// Cancellation: the first failure (an exception from a kernel thread, a stack overflow, a
// deadlock) or the interrupt check cancels the grid. Loop back-edges call the checkpoint, which
// abandons the running thread of a cancelled grid; schedulers drop the rest of their blocks.
// The launching thread runs the interrupt check about every 20 ms, between rounds, from the
// checkpoints of the threads it runs (through its scheduler, never on a fiber's stack) and
// while it waits for the other workers.
#include "runtime/cpu_runner.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

#include "runtime/fiber.h"
#include "runtime/float_control.h"
#include "runtime/runtime.h"
#include "support/check.h"

namespace weft::runtime {
namespace {

// A thread's stack besides its local arrays: frames, spills and the C library's calls.
constexpr size_t kBaseStackBytes = 256 * 1024;
// The guard region stops any frame up to the local arrays plus this much.
constexpr size_t kGuardMarginBytes = 64 * 1024;
// The local arrays the CPU target gives a thread at most (sema limits a chain of calls to the
// GPU's 512 KiB; the CPU's bound adds up every call site, which can be more).
constexpr uint64_t kMaxLocalArrayBytes = uint64_t{64} << 20;
// Atomic operations and fences between two yields of a thread.
constexpr uint32_t kPollPeriod = 64;
constexpr auto kInterruptPeriod = std::chrono::milliseconds(20);
constexpr int64_t kInterruptPeriodNanoseconds = std::chrono::nanoseconds(kInterruptPeriod).count();
// Stacks larger than a grid needs by more than this are unmapped rather than reused.
constexpr size_t kSpareStackBytes = 1 << 20;
// Blocks one worker keeps in flight when they wait for other blocks.
constexpr size_t kMaxBlocksPerWorker = 64;

// A clock cheap enough to read at every round: the interrupt check needs milliseconds, not
// nanoseconds (CLOCK_MONOTONIC_COARSE ticks every few milliseconds).
int64_t coarseNanoseconds() {
  timespec now;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

host::Dim3 unflatten(uint64_t index, host::Dim3 extent) {
  return host::Dim3{static_cast<uint32_t>(index % extent.x), static_cast<uint32_t>(index / extent.x % extent.y),
                    static_cast<uint32_t>(index / (uint64_t{extent.x} * extent.y))};
}

std::string describe(host::Dim3 value) {
  return "(" + std::to_string(value.x) + ", " + std::to_string(value.y) + ", " + std::to_string(value.z) +
         ")";
}

}  // namespace

// The grid every worker takes part in.
struct Grid {
  const GridLaunch* launch = nullptr;
  uint32_t threadsPerBlock = 0;
  size_t stackBytes = 0;
  size_t guardBytes = 0;
  size_t quota = 0;  // stacks per worker
  uint64_t chunk = 1;
  const InterruptCheck* check = nullptr;  // run on the launching thread only
  int64_t lastCheck = 0;                  // coarseNanoseconds() of the launch's start or its last check
  bool interrupted = false;               // the launching thread's
  std::atomic<bool> cancelled{false};
  uint64_t total = 0;
  std::atomic<uint64_t> next{0};  // the first block no worker has claimed
  std::mutex mutex;               // guards `failure`
  std::exception_ptr failure;

  // Records the first failure and cancels the grid.
  void fail(std::exception_ptr error) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::move(error);
    }
    cancelled.store(true, std::memory_order_relaxed);
  }
  // Claims the blocks [first, last), at most `count`; false when none is left.
  bool claim(uint64_t count, uint64_t& first, uint64_t& last) {
    if (next.load(std::memory_order_relaxed) >= total || cancelled.load(std::memory_order_relaxed))
      return false;
    first = next.fetch_add(count, std::memory_order_relaxed);
    if (first >= total) return false;
    last = std::min(total, first + count);
    return true;
  }
  // On the launching thread: whether the interrupt check is due.
  bool checkDue() const {
    return check && *check && coarseNanoseconds() - lastCheck >= kInterruptPeriodNanoseconds;
  }
  // On the launching thread: runs the interrupt check when it is due.
  void poll() {
    if (!checkDue()) return;
    lastCheck = coarseNanoseconds();
    bool stop;
    try {
      stop = (*check)();
    } catch (...) {
      stop = true;  // the check could not say: stopping is the safe answer
    }
    if (stop) {
      interrupted = true;
      cancelled.store(true, std::memory_order_relaxed);
    }
  }
};

// A worker's schedulers: blocks in flight, their carriers and the stacks they reuse.
class BlockWorker {
 public:
  BlockWorker() = default;
  BlockWorker(const BlockWorker&) = delete;
  BlockWorker& operator=(const BlockWorker&) = delete;
  // Makes the calling OS thread the one that runs this worker's fibers; throws CudaError when
  // it cannot get an alternate signal stack.
  void bindThread();
  // The calling thread runs this worker's fibers no more.
  void unbindThread();
  // Between grids: drops stacks of the wrong size for a grid (see the definition), then all
  // but `keep`.
  void trimStacks(size_t keep, size_t stackBytes, size_t guardBytes);
  // The stacks this worker has mapped.
  size_t stackCount() const { return carriers_.size(); }
  // Runs blocks of `grid` until none is left or the grid is cancelled; `caller`: this is the
  // thread that called BlockRunner::run (it runs the interrupt check).
  void run(Grid& grid, bool caller);
  // Why this worker cannot take part in grids (no alternate signal stack), or null.
  std::exception_ptr unusable;

 private:
  // Why a carrier is not running.
  enum class State : uint8_t {
    Running,
    Barrier,    // at syncthreads, until the barrier's generation ends
    Warp,       // in a warp collective or activemask
    Polled,     // let others run while it polls memory
    Service,    // the launching thread's checkpoint asks for the interrupt check, then resumes
    Finished,   // no thread of its block is left to start: the carrier is free
    Failed,     // its thread raised an exception (recorded in the grid)
    Abandoned,  // the grid was cancelled at a checkpoint
  };
  struct Block;
  struct Carrier {
    std::unique_ptr<fiber::Stack> stack;
    fiber::Context context = nullptr;
    Block* block = nullptr;
    uint32_t thread = 0;             // the thread it runs
    State state = State::Abandoned;  // a new carrier has no context yet
    uint64_t barrierGeneration = 0;  // State::Barrier: the barrier it waits at
  };
  // A lane waiting in a warp collective (on its fiber's stack while it waits).
  struct WarpWaiter {
    uint32_t need;     // the lanes it waits for (its mask and itself)
    uint64_t value;    // what it contributes
    uint64_t* values;  // where the participants' values go
    uint32_t lanes = 0;
    bool done = false;
    bool converged = false;  // activemask: the lanes that arrive while the others are blocked
    uint64_t site = 0;       // activemask: its call site
  };
  // A block in flight.
  struct Block {
    ~Block() { std::free(shared); }
    void releaseBarrier();
    // Thread `thread` returned.
    void finish(uint32_t thread);
    // The lanes of warp `warp` that exist and have not returned.
    uint32_t liveLanes(size_t warp) const;
    // Completes `waiter`'s collective if every live lane it needs is waiting.
    void tryCompleteWarp(size_t warp, const WarpWaiter& waiter);

    BlockWorker* worker = nullptr;
    uint32_t count = 0;        // threads
    uint32_t nextToStart = 0;  // threads [0, nextToStart) have started
    uint32_t alive = 0;        // threads that have not returned
    uint32_t barrierArrived = 0;
    uint64_t barrierGeneration = 0;   // bumped by each release
    uint64_t progress = 0;            // bumped by every start, arrival, release and return
    bool polled = false;              // some thread polled memory in this round
    bool stopped = false;             // failed or cancelled: none of its fibers runs again
    host::ThreadContext prototype{};  // what every thread's context starts as, but threadIdx
    std::vector<uint8_t> finished;
    std::vector<uint8_t> atBarrier;  // per thread: waiting at the barrier (not yet released)
    // syncthreads_count: the votes cast before the barrier of generation g, in [g % 2]. A vote
    // is read between that barrier and the next, so each total is reset when it comes round.
    std::array<int32_t, 2> voteTotals{};
    std::vector<std::array<WarpWaiter*, 32>> warps;
    std::vector<Carrier*> suspended;  // carriers holding a suspended thread, for this round
    std::vector<Carrier*> kept;       // the same, for the next round
    unsigned char* shared = nullptr;
    size_t sharedCapacity = 0;
  };

  static Block& blockOf(host::ThreadContext* self) { return *static_cast<Block*>(self->runner); }
  static void barrier(host::ThreadContext* self);
  static int32_t barrierCount(host::ThreadContext* self, int32_t predicate);
  static uint32_t warpExchange(host::ThreadContext* self, uint32_t mask, uint64_t value, uint64_t* values);
  static uint32_t activeMask(host::ThreadContext* self, uint64_t site);
  static uint32_t warpRendezvous(host::ThreadContext* self, WarpWaiter& waiter);
  static void yieldThread(host::ThreadContext* self);
  static void checkpoint(host::ThreadContext* self);
  // A carrier's loop (fiber::Stack::start's entry).
  [[noreturn]] static void carrierMain(void* carrier);
  // Runs the block's threads that have not started, one after another, until none is left.
  static void runThreads(Carrier& carrier, Block& block, BlockWorker& worker, const GridLaunch& launch);
  // Suspends the running carrier: straight to the next carrier of the round when the scheduler
  // would only resume it (the carrier waits, or returned), else to the scheduler.
  void suspend(Carrier& carrier, State state);
  // The next carrier of the round that may go on: a suspended one whose wait may be over, or a
  // new one for a thread not started yet (mapping a stack only when `mayMap`); null at the end
  // of the round.
  Carrier* nextRunnable(bool mayMap);

  // Claims a block and puts it in flight; null when the grid has none left.
  Block* admit(uint64_t claimCount);
  void startBlock(Block& block, uint64_t index);
  // One pass over the block: resumes its suspended threads that may go on, starts the rest.
  void round(Block& block);
  // Runs `carrier`, and the carriers it switches to, until one switches back to the scheduler
  // (serving the interrupt check on the way); returns that one.
  Carrier& resume(Carrier& carrier);
  // Handles why `carrier` switched back to the scheduler.
  void settle(Block& block, Carrier& carrier);
  void retire(Block& block);
  Carrier* acquireCarrier(Block& block);
  void releaseCarrier(Carrier* carrier);
  void prepareShared(Block& block, size_t bytes);

  Grid* grid_ = nullptr;
  bool caller_ = false;
  fiber::Context scheduler_ = nullptr;
  Carrier* running_ = nullptr;
  Block* roundBlock_ = nullptr;                     // the block of the round in progress
  size_t roundNext_ = 0;                            // its next suspended carrier to consider
  const fiber::Stack* runningStack_ = nullptr;      // read by the fault handler
  bool overflowed_ = false;                         // set by the fault handler
  fiber::Watch* watch_ = nullptr;                   // the bound thread's
  std::vector<std::unique_ptr<Carrier>> carriers_;  // every carrier, each with its stack
  size_t stackBytes_ = 0;                           // the size of their stacks
  size_t guardBytes_ = 0;                           // and of their guard regions
  std::vector<Carrier*> freeCarriers_;
  size_t carriersInUse_ = 0;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<Block*> freeBlocks_;
  std::vector<Block*> active_;
  uint64_t claimedNext_ = 0;  // claimed blocks not started yet: [claimedNext_, claimedEnd_)
  uint64_t claimedEnd_ = 0;
};

// ---- the threads' side: runner functions a kernel calls through its ThreadContext ----

void BlockWorker::suspend(Carrier& carrier, State state) {
  carrier.state = state;
  Carrier* next = nullptr;
  switch (state) {
    case State::Barrier:
    case State::Warp:
    case State::Polled:
      roundBlock_->kept.push_back(&carrier);
      next = nextRunnable(false);
      break;
    case State::Finished:
      // No thread of the block is left to start, so nextRunnable cannot hand this carrier out.
      releaseCarrier(&carrier);
      next = nextRunnable(false);
      break;
    case State::Running:
    case State::Service:
    case State::Failed:
    case State::Abandoned: break;
  }
  if (next == nullptr) {
    fiber::switchTo(&carrier.context, scheduler_);
    return;
  }
  running_ = next;
  runningStack_ = next->stack.get();
  next->state = State::Running;
  fiber::switchTo(&carrier.context, next->context);
}

BlockWorker::Carrier* BlockWorker::nextRunnable(bool mayMap) {
  Block& block = *roundBlock_;
  if (block.stopped) return nullptr;
  while (roundNext_ < block.suspended.size()) {
    Carrier* carrier = block.suspended[roundNext_++];
    if (carrier->state == State::Barrier && carrier->barrierGeneration == block.barrierGeneration) {
      block.kept.push_back(carrier);  // not released yet: no need to switch to it
      continue;
    }
    return carrier;
  }
  if (block.nextToStart < block.count && (mayMap || !freeCarriers_.empty())) return acquireCarrier(block);
  return nullptr;
}

void BlockWorker::Block::releaseBarrier() {
  std::fill(atBarrier.begin(), atBarrier.end(), 0);
  barrierArrived = 0;
  ++barrierGeneration;
  voteTotals[barrierGeneration % 2] = 0;
  ++progress;
}

void BlockWorker::Block::finish(uint32_t thread) {
  finished[thread] = 1;
  --alive;
  ++progress;
  // A returned thread counts as arrived at the barrier the others wait at.
  if (alive > 0 && barrierArrived == alive) releaseBarrier();
}

void BlockWorker::barrier(host::ThreadContext* self) {
  Block& block = blockOf(self);
  ++block.progress;
  if (++block.barrierArrived == block.alive) {
    block.releaseBarrier();
    return;
  }
  BlockWorker& worker = *block.worker;
  Carrier& carrier = *worker.running_;
  block.atBarrier[carrier.thread] = 1;
  carrier.barrierGeneration = block.barrierGeneration;
  worker.suspend(carrier, State::Barrier);
}

int32_t BlockWorker::barrierCount(host::ThreadContext* self, int32_t predicate) {
  Block& block = blockOf(self);
  size_t slot = block.barrierGeneration % 2;
  block.voteTotals[slot] += predicate != 0 ? 1 : 0;
  barrier(self);
  int32_t count = block.voteTotals[slot];
  // A second barrier keeps the total until every thread has read it.
  barrier(self);
  return count;
}

uint32_t BlockWorker::Block::liveLanes(size_t warp) const {
  uint32_t lanes = 0;
  for (size_t lane = 0; lane < 32 && warp * 32 + lane < count; ++lane) {
    if (!finished[warp * 32 + lane]) lanes |= 1u << lane;
  }
  return lanes;
}

void BlockWorker::Block::tryCompleteWarp(size_t warp, const WarpWaiter& waiter) {
  std::array<WarpWaiter*, 32>& slots = warps[warp];
  uint32_t live = liveLanes(warp);
  uint32_t need = waiter.need & live;
  if (waiter.converged) {
    // activemask: every live lane is here, or blocked at a barrier or in another collective.
    need = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(live >> lane & 1u)) continue;
      if (slots[lane] != nullptr && slots[lane]->converged && slots[lane]->site == waiter.site) {
        need |= 1u << lane;
      } else if (slots[lane] == nullptr && !atBarrier[warp * 32 + lane]) {
        return;  // runnable (or not started): it may still arrive
      }
    }
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    // A lane in activemask is not in this collective (and the reverse).
    if ((need >> lane & 1u) &&
        (slots[lane] == nullptr || slots[lane]->converged != waiter.converged || slots[lane]->site != waiter.site)) {
      return;
    }
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(need >> lane & 1u)) continue;
    WarpWaiter& participant = *slots[lane];
    for (uint32_t other = 0; other < 32; ++other) participant.values[other] = (need >> other & 1u) ? slots[other]->value : 0;
    participant.lanes = need;
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(need >> lane & 1u)) continue;
    slots[lane]->done = true;
    slots[lane] = nullptr;
  }
  ++progress;
}

uint32_t BlockWorker::warpRendezvous(host::ThreadContext* self, WarpWaiter& waiter) {
  Block& block = blockOf(self);
  BlockWorker& worker = *block.worker;
  Carrier& carrier = *worker.running_;
  size_t warp = carrier.thread / 32;
  block.warps[warp][carrier.thread % 32] = &waiter;
  ++block.progress;
  for (;;) {
    block.tryCompleteWarp(warp, waiter);
    if (waiter.done) return waiter.lanes;
    worker.suspend(carrier, State::Warp);
  }
}

uint32_t BlockWorker::warpExchange(host::ThreadContext* self, uint32_t mask, uint64_t value,
                                   uint64_t* values) {
  uint32_t lane = blockOf(self).worker->running_->thread % 32;
  WarpWaiter waiter{mask | 1u << lane, value, values};
  return warpRendezvous(self, waiter);
}

uint32_t BlockWorker::activeMask(host::ThreadContext* self, uint64_t site) {
  uint32_t lane = blockOf(self).worker->running_->thread % 32;
  uint64_t values[32];
  WarpWaiter waiter{1u << lane, 0, values};
  waiter.converged = true;
  waiter.site = site;
  return warpRendezvous(self, waiter);
}

void BlockWorker::yieldThread(host::ThreadContext* self) {
  Block& block = blockOf(self);
  self->pollsLeft = kPollPeriod;
  block.polled = true;
  block.worker->suspend(*block.worker->running_, State::Polled);
}

void BlockWorker::checkpoint(host::ThreadContext* self) {
  BlockWorker& worker = *blockOf(self).worker;
  if (worker.grid_->cancelled.load(std::memory_order_relaxed)) {
    worker.suspend(*worker.running_, State::Abandoned);  // never resumed
  } else if (worker.caller_ && worker.grid_->checkDue()) {
    worker.suspend(*worker.running_, State::Service);
  }
}

void BlockWorker::carrierMain(void* argument) {
  Carrier& carrier = *static_cast<Carrier*>(argument);
  // A carrier whose threads all returned waits at the end of this loop to serve another block.
  for (;;) {
    Block& block = *carrier.block;
    BlockWorker& worker = *block.worker;
    const GridLaunch& launch = *worker.grid_->launch;
    // The kernel's floating-point control, not that of the OS thread that runs it (nor the one
    // an earlier grid left on this carrier): each context switch keeps a fiber's own.
    setFloatControl(kernelFloatControl(launch.flushSubnormals));
    runThreads(carrier, block, worker, launch);
    worker.suspend(carrier, State::Finished);
  }
}

void BlockWorker::runThreads(Carrier& carrier, Block& block, BlockWorker& worker, const GridLaunch& launch) {
  while (block.nextToStart < block.count) {
    uint32_t thread = block.nextToStart++;
    carrier.thread = thread;
    // The thread's context lives in this frame while it runs or waits: threads that run one
    // after another on a carrier reuse one hot slot.
    host::ThreadContext context = block.prototype;
    context.threadIdx = unflatten(thread, launch.block);
    ++block.progress;
    bool failed = false;
    try {
      launch.entry(&context, launch.arguments);
    } catch (...) {
      worker.grid_->fail(std::current_exception());
      failed = true;
    }
    // Suspended outside the handler: this fiber never resumes, and a handler left open would
    // stay on the OS thread's list of caught exceptions.
    if (failed) worker.suspend(carrier, State::Failed);
    block.finish(thread);
  }
}

// ---- the scheduler's side ----

void BlockWorker::bindThread() {
  watch_ = &fiber::prepareThread();
  watch_->start(&runningStack_, &scheduler_, &overflowed_);
}

void BlockWorker::unbindThread() {
  if (watch_) watch_->stop();
}

void BlockWorker::trimStacks(size_t keep, size_t stackBytes, size_t guardBytes) {
  // Every carrier is free between grids, and all have stacks of one size. Stacks too small go,
  // and so do stacks more than kSpareStackBytes too large: the pages their threads touched stay
  // in memory while the pool keeps them.
  bool unfit =
      stackBytes > stackBytes_ || guardBytes > guardBytes_ || stackBytes_ > stackBytes + kSpareStackBytes;
  if (unfit && !carriers_.empty()) carriers_.clear();
  if (carriers_.empty()) {
    stackBytes_ = stackBytes;
    guardBytes_ = guardBytes;
  }
  if (carriers_.size() > keep) carriers_.resize(keep);
  if (freeCarriers_.size() != carriers_.size()) {
    freeCarriers_.clear();
    for (const std::unique_ptr<Carrier>& carrier : carriers_) freeCarriers_.push_back(carrier.get());
  }
}

BlockWorker::Carrier* BlockWorker::acquireCarrier(Block& block) {
  Carrier* carrier;
  if (!freeCarriers_.empty()) {
    carrier = freeCarriers_.back();
    freeCarriers_.pop_back();
  } else {
    WEFT_CHECK(carriers_.size() < grid_->quota, "the CPU runner admitted more blocks than its stacks allow");
    auto owned = std::make_unique<Carrier>();
    owned->stack = std::make_unique<fiber::Stack>(stackBytes_, guardBytes_);
    carrier = owned.get();
    carriers_.push_back(std::move(owned));
  }
  ++carriersInUse_;
  carrier->block = &block;
  // A carrier that finished waits at the end of its loop; one abandoned mid-thread starts over.
  if (carrier->state != State::Finished)
    carrier->context = carrier->stack->start(&BlockWorker::carrierMain, carrier);
  carrier->state = State::Running;
  return carrier;
}

void BlockWorker::releaseCarrier(Carrier* carrier) {
  freeCarriers_.push_back(carrier);
  --carriersInUse_;
}

void BlockWorker::prepareShared(Block& block, size_t bytes) {
  if (bytes > block.sharedCapacity) {
    std::free(block.shared);
    // 256-byte alignment covers every element type a shared_array may hold and the largest
    // align= weft accepts.
    size_t rounded = (bytes + 255) / 256 * 256;
    block.shared = static_cast<unsigned char*>(std::aligned_alloc(256, rounded));
    if (!block.shared) {
      block.sharedCapacity = 0;
      throw CudaError("CPU target: cannot allocate " + std::to_string(bytes) + " bytes of shared memory", 2);
    }
    block.sharedCapacity = rounded;
  }
  if (bytes) std::memset(block.shared, 0, bytes);
}

void BlockWorker::startBlock(Block& block, uint64_t index) {
  const GridLaunch& launch = *grid_->launch;
  prepareShared(block, launch.sharedBytes);
  block.worker = this;
  block.count = grid_->threadsPerBlock;
  block.nextToStart = 0;
  block.alive = block.count;
  block.barrierArrived = 0;
  block.polled = false;
  // Every field is set (threadIdx when a thread starts): no zeroing pass first.
  host::ThreadContext& prototype = block.prototype;
  prototype.blockIdx = unflatten(index, launch.grid);
  prototype.blockDim = launch.block;
  prototype.gridDim = launch.grid;
  prototype.sharedMemory = block.shared;
  prototype.runner = &block;
  prototype.dynamicSharedBytes = launch.dynamicSharedBytes;
  prototype.barrier = &BlockWorker::barrier;
  prototype.barrierCount = &BlockWorker::barrierCount;
  prototype.warpExchange = &BlockWorker::warpExchange;
  prototype.warpActiveMask = &BlockWorker::activeMask;
  prototype.yieldThread = &BlockWorker::yieldThread;
  prototype.checkpoint = &BlockWorker::checkpoint;
  prototype.pollsLeft = kPollPeriod;
  block.finished.assign(block.count, 0);
  // A block that ran to its end left no thread at a barrier or in a collective.
  if (block.atBarrier.size() != block.count || block.stopped) {
    block.atBarrier.assign(block.count, 0);
    block.warps.assign((block.count + 31) / 32, {});
  }
  block.stopped = false;
  block.voteTotals = {};
  block.suspended.clear();
}

BlockWorker::Block* BlockWorker::admit(uint64_t claimCount) {
  if (claimedNext_ == claimedEnd_ && !grid_->claim(claimCount, claimedNext_, claimedEnd_)) return nullptr;
  Block* block;
  if (!freeBlocks_.empty()) {
    block = freeBlocks_.back();
    freeBlocks_.pop_back();
  } else {
    blocks_.push_back(std::make_unique<Block>());
    block = blocks_.back().get();
  }
  active_.push_back(block);
  startBlock(*block, claimedNext_++);
  return block;
}

void BlockWorker::retire(Block& block) {
  for (Carrier* carrier : block.suspended) releaseCarrier(carrier);
  block.suspended.clear();
  freeBlocks_.push_back(&block);
}

BlockWorker::Carrier& BlockWorker::resume(Carrier& carrier) {
  Carrier* current = &carrier;
  for (;;) {
    running_ = current;
    runningStack_ = current->stack.get();
    current->state = State::Running;
    fiber::switchTo(&scheduler_, current->context);
    current = running_;  // the last of the carriers that switched to each other
    running_ = nullptr;
    runningStack_ = nullptr;
    if (current->state != State::Service || overflowed_) return *current;
    grid_->poll();
    if (grid_->cancelled.load(std::memory_order_relaxed)) {
      current->state = State::Abandoned;
      return *current;
    }
  }
}

void BlockWorker::settle(Block& block, Carrier& carrier) {
  if (overflowed_) {
    overflowed_ = false;
    const GridLaunch& launch = *grid_->launch;
    grid_->fail(std::make_exception_ptr(
        CudaError("kernel '" + std::string(launch.kernelName) + "' on the CPU target: thread " +
                      describe(unflatten(carrier.thread, launch.block)) + " of block " +
                      describe(block.prototype.blockIdx) + " overflowed its " +
                      std::to_string(carrier.stack->usable()) +
                      "-byte stack (deep or unbounded recursion?); the launch was stopped before it could "
                      "corrupt memory",
                  2)));
    block.stopped = true;
    block.kept.push_back(&carrier);  // retire releases it
    return;
  }
  switch (carrier.state) {
    case State::Finished:  // released itself
    case State::Barrier:   // kept itself
    case State::Warp:
    case State::Polled: return;
    case State::Failed:
    case State::Abandoned:
      block.stopped = true;
      block.kept.push_back(&carrier);  // retire releases it
      return;
    case State::Running:
    case State::Service: break;
  }
  WEFT_CHECK(false, "a fiber of the CPU runner switched back without saying why");
}

void BlockWorker::round(Block& block) {
  block.polled = false;
  block.kept.clear();
  roundBlock_ = &block;
  roundNext_ = 0;
  while (Carrier* carrier = nextRunnable(true)) settle(block, resume(*carrier));
  // A stopped block's carriers that the round did not reach wait for retire too.
  block.kept.insert(block.kept.end(), block.suspended.begin() + static_cast<std::ptrdiff_t>(roundNext_),
                    block.suspended.end());
  std::swap(block.suspended, block.kept);
  roundBlock_ = nullptr;
}

void BlockWorker::run(Grid& grid, bool caller) {
  grid_ = &grid;
  caller_ = caller;
  claimedNext_ = claimedEnd_ = 0;
  try {
    if (unusable) std::rethrow_exception(unusable);
    while (!grid.cancelled.load(std::memory_order_relaxed)) {
      if (active_.empty() && !admit(grid.chunk)) break;
      bool progressed = false;
      bool polled = false;
      for (size_t i = 0; i < active_.size();) {
        Block& block = *active_[i];
        uint64_t before = block.progress;
        round(block);
        bool stalled = block.progress == before && !block.polled;
        if (stalled && !block.stopped) {
          grid.fail(std::make_exception_ptr(CudaError(
              "kernel '" + std::string(grid.launch->kernelName) +
                  "' on the CPU target: the threads of block " + describe(block.prototype.blockIdx) +
                  " wait for each other forever: a warp collective names lanes (in its mask) that never "
                  "reach it, or "
                  "some threads wait at syncthreads while others wait in a warp collective",
              2)));
          block.stopped = true;
        }
        if (block.stopped || block.alive == 0) {
          retire(block);
          active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
          progressed = true;
          continue;
        }
        progressed |= block.progress != before;
        polled |= block.polled;
        ++i;
      }
      if (caller_) grid.poll();
      // Every block waits for memory: for another worker's block, or for one not started yet.
      bool admitted = false;
      if (!progressed && polled && active_.size() < kMaxBlocksPerWorker &&
          carriersInUse_ + grid.threadsPerBlock <= grid.quota) {
        admitted = admit(1) != nullptr;
      }
      if (!progressed && !admitted) std::this_thread::yield();
    }
  } catch (...) {
    grid.fail(std::current_exception());
  }
  for (Block* block : active_) retire(*block);
  active_.clear();
  grid_ = nullptr;
}

// ---- the pool ----

BlockRunner::BlockRunner() : owner_(::getpid()) {
  size_t count = std::max(1u, std::thread::hardware_concurrency());
  for (size_t i = 0; i < count; ++i) workers_.push_back(std::make_unique<BlockWorker>());
  for (size_t i = 1; i < count; ++i) threads_.emplace_back([this, i] { workerLoop(i); });
}

BlockRunner::~BlockRunner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    // In a forked child the threads do not exist: their handles are only released.
    if (::getpid() == owner_) thread.join();
    else thread.detach();
  }
}

void BlockRunner::setInterruptCheck(InterruptCheck check) {
  std::lock_guard<std::mutex> serial(runMutex_);
  interruptCheck_ = std::move(check);
}

void BlockRunner::workerLoop(size_t index) {
  BlockWorker& worker = *workers_[index];
  try {
    worker.bindThread();
  } catch (...) {
    worker.unusable = std::current_exception();
  }
  uint64_t seen = 0;
  for (;;) {
    Grid* grid;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) break;
      seen = generation_;
      if (index >= activeWorkers_) continue;
      grid = grid_;
    }
    worker.run(*grid, false);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busyWorkers_ == 0) done_.notify_all();
  }
  worker.unbindThread();
}

void BlockRunner::run(const GridLaunch& launch) {
  std::lock_guard<std::mutex> serial(runMutex_);
  if (launch.localArrayBytes > kMaxLocalArrayBytes)
    throw CudaError(
        "kernel '" + std::string(launch.kernelName) + "' needs " + std::to_string(launch.localArrayBytes) +
            " bytes of local arrays per thread on the CPU target, which gives a thread at most " +
            std::to_string(kMaxLocalArrayBytes) + "; use smaller local arrays (or a global array argument)",
        2);
  Grid grid;
  grid.launch = &launch;
  grid.threadsPerBlock = launch.block.x * launch.block.y * launch.block.z;
  grid.total = uint64_t{launch.grid.x} * launch.grid.y * launch.grid.z;
  grid.stackBytes = kBaseStackBytes + launch.localArrayBytes;
  grid.guardBytes = kGuardMarginBytes + launch.localArrayBytes;
  grid.check = &interruptCheck_;
  grid.lastCheck = coarseNanoseconds();
  // Each worker may need a stack per thread of a block, and the process only has so many
  // mappings: large blocks run on fewer workers where the budget says so.
  size_t budget = fiber::stackBudget();
  bool helpers = grid.total > 1 && !threads_.empty() && ::getpid() == owner_;
  size_t active = 1;
  if (helpers) {
    active = std::min<size_t>(workers_.size(), std::max<size_t>(1, budget / grid.threadsPerBlock));
    active = static_cast<size_t>(std::min<uint64_t>(active, grid.total));
  }
  // The stacks of the workers that sit this grid out count too; they go when the others need
  // a block's worth each.
  size_t idleHeld = 0;
  for (size_t i = active; i < workers_.size(); ++i) idleHeld += workers_[i]->stackCount();
  if (budget < idleHeld + uint64_t{grid.threadsPerBlock} * active) {
    for (size_t i = active; i < workers_.size(); ++i) workers_[i]->trimStacks(0, 0, 0);
    idleHeld = 0;
  }
  grid.quota = active == 1 ? budget - idleHeld : (budget - idleHeld) / active;
  for (size_t i = 0; i < active; ++i) workers_[i]->trimStacks(grid.quota, grid.stackBytes, grid.guardBytes);
  // Chunks of several blocks keep the claims rare; several chunks per worker balance the load.
  grid.chunk = grid.total <= active * 8 ? 1 : grid.total / (active * 8);
  BlockWorker& own = *workers_[0];
  own.bindThread();
  if (active > 1) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      grid_ = &grid;
      activeWorkers_ = active;
      busyWorkers_ = active - 1;
      ++generation_;
    }
    wake_.notify_all();
  }
  own.run(grid, true);
  if (active > 1) {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (done_.wait_for(lock, kInterruptPeriod, [&] { return busyWorkers_ == 0; })) break;
      }
      grid.poll();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    grid_ = nullptr;
  }
  own.unbindThread();
  if (grid.interrupted)
    throw Interrupted("kernel '" + std::string(launch.kernelName) + "' was interrupted on the CPU target");
  if (grid.failure) std::rethrow_exception(grid.failure);
}

}  // namespace weft::runtime
