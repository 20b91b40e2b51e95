// Blocks run in parallel, one per worker at a time. Within a block that never calls a
// barrier, the threads run one after another to completion on the worker's own stack. A block
// whose kernel uses barriers runs each thread as a fiber (ucontext, on its own mmap'ed stack):
// the worker's scheduler resumes the unfinished fibers round-robin, and a fiber that reaches
// the barrier switches back to it. After one round every unfinished fiber is waiting at the
// barrier, so the next round releases them all: this is the GPU's __syncthreads. A fiber that
// has returned counts as arrived at every later barrier (as threads that exited do on the
// GPU), so a kernel whose threads leave early never deadlocks.
//
// The barrier counts arrivals and releases a generation, so fibers may also switch for other
// reasons: a warp collective is a rendezvous of the lanes its mask names (each lane waits,
// switching, until every live lane of the mask has deposited its value, then all of them
// read every participant's value), and AtomicRef.wait lets the other fibers run while it
// polls. A round of the scheduler in which no fiber arrived anywhere, was released or
// finished (and none polled memory another block may change) is a deadlock: a collective
// that some lane of its mask never reaches; it is reported instead of hanging.
#include "runtime/cpu_runner.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "runtime/runtime.h"
#include "support/check.h"

namespace weft::runtime {
namespace {

constexpr size_t kFiberStackBytes = 256 * 1024;

host::Dim3 unflatten(uint64_t index, host::Dim3 extent) {
  return host::Dim3{static_cast<uint32_t>(index % extent.x), static_cast<uint32_t>(index / extent.x % extent.y),
                    static_cast<uint32_t>(index / (uint64_t{extent.x} * extent.y))};
}

}  // namespace

// The per-worker state that blocks reuse: shared memory, thread contexts, fibers.
class BlockWorker {
 public:
  BlockWorker() = default;
  ~BlockWorker();
  BlockWorker(const BlockWorker&) = delete;
  BlockWorker& operator=(const BlockWorker&) = delete;
  // Runs block `blockIndex` (row-major over the grid, x fastest) to completion.
  void runBlock(const GridLaunch& launch, uint64_t blockIndex);

 private:
  struct Fiber {
    ucontext_t context;
    void* stack = nullptr;  // the mapping, a guard page at its low end
    bool finished = false;
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
  // A syncthreads_count vote: the barrier generation it was cast in, and the predicate.
  struct Vote {
    uint64_t generation = ~uint64_t{0};
    int32_t predicate = 0;
  };
  static void sequentialBarrier(host::ThreadContext* self);
  static int32_t sequentialBarrierCount(host::ThreadContext* self, int32_t predicate);
  static uint32_t sequentialWarpExchange(host::ThreadContext* self, uint32_t mask, uint64_t value, uint64_t* values);
  static uint32_t sequentialActiveMask(host::ThreadContext* self, uint64_t site);
  static void sequentialYield(host::ThreadContext* self);
  static void fiberBarrier(host::ThreadContext* self);
  static int32_t fiberBarrierCount(host::ThreadContext* self, int32_t predicate);
  static uint32_t fiberWarpExchange(host::ThreadContext* self, uint32_t mask, uint64_t value, uint64_t* values);
  static uint32_t fiberActiveMask(host::ThreadContext* self, uint64_t site);
  static void fiberYield(host::ThreadContext* self);
  static void fiberMain(unsigned int low, unsigned int high);
  void prepareShared(size_t bytes);
  void prepareFibers(size_t count);
  void runFibers(const GridLaunch& launch, size_t threadCount);
  // Switches from the running fiber to the scheduler.
  void suspend();
  void releaseBarrier();
  // The lanes of warp `warp` whose fibers exist and have not returned.
  uint32_t liveLanes(size_t warp) const;
  // Completes `waiter`'s collective if every live lane it needs is waiting.
  void tryCompleteWarp(size_t warp, const WarpWaiter& waiter);

  unsigned char* shared_ = nullptr;
  size_t sharedCapacity_ = 0;
  std::vector<host::ThreadContext> threads_;
  std::vector<std::unique_ptr<Fiber>> fibers_;  // stable addresses: a ucontext_t points into itself
  ucontext_t scheduler_;
  size_t current_ = 0;
  size_t threadCount_ = 0;
  size_t alive_ = 0;               // fibers that have not returned
  size_t barrierArrived_ = 0;      // fibers waiting at the barrier
  uint64_t barrierGeneration_ = 0;  // bumped by each release
  uint64_t progress_ = 0;           // bumped by every arrival, release and return
  bool polled_ = false;             // some fiber polled memory in this round
  std::vector<Vote> votes_;
  std::vector<uint8_t> atBarrier_;  // per thread: waiting at the barrier (not yet released)
  std::vector<std::array<WarpWaiter*, 32>> warps_;
  const GridLaunch* launch_ = nullptr;
  std::exception_ptr failure_;
  size_t pageBytes_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
};

BlockWorker::~BlockWorker() {
  std::free(shared_);
  for (const std::unique_ptr<Fiber>& fiber : fibers_) ::munmap(fiber->stack, kFiberStackBytes + pageBytes_);
}

void BlockWorker::sequentialBarrier(host::ThreadContext*) {
  // The front end said the kernel uses no barrier, so the block runs without fibers; a call
  // here is a weft bug. The exception unwinds the kernel's frames (on this worker's stack).
  WEFT_CHECK(false, "a kernel compiled without barriers called syncthreads on the CPU target");
}

int32_t BlockWorker::sequentialBarrierCount(host::ThreadContext*, int32_t) {
  WEFT_CHECK(false, "a kernel compiled without barriers called syncthreads_count on the CPU target");
  return 0;
}

uint32_t BlockWorker::sequentialWarpExchange(host::ThreadContext*, uint32_t, uint64_t, uint64_t*) {
  WEFT_CHECK(false, "a kernel compiled without warp collectives called one on the CPU target");
  return 0;
}

uint32_t BlockWorker::sequentialActiveMask(host::ThreadContext*, uint64_t) {
  WEFT_CHECK(false, "a kernel compiled without warp collectives called activemask on the CPU target");
  return 0;
}

void BlockWorker::sequentialYield(host::ThreadContext*) {
  WEFT_CHECK(false, "a kernel compiled without atomic waits called AtomicRef.wait on the CPU target");
}

void BlockWorker::suspend() { ::swapcontext(&fibers_[current_]->context, &scheduler_); }

void BlockWorker::releaseBarrier() {
  std::fill(atBarrier_.begin(), atBarrier_.end(), 0);
  barrierArrived_ = 0;
  ++barrierGeneration_;
  ++progress_;
}

void BlockWorker::fiberBarrier(host::ThreadContext* self) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  uint64_t generation = worker->barrierGeneration_;
  ++worker->progress_;
  if (++worker->barrierArrived_ == worker->alive_) {
    worker->releaseBarrier();
    return;
  }
  worker->atBarrier_[static_cast<size_t>(self - worker->threads_.data())] = 1;
  while (worker->barrierGeneration_ == generation) worker->suspend();
}

int32_t BlockWorker::fiberBarrierCount(host::ThreadContext* self, int32_t predicate) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  size_t index = static_cast<size_t>(self - worker->threads_.data());
  uint64_t generation = worker->barrierGeneration_;
  worker->votes_[index] = Vote{generation, predicate != 0 ? 1 : 0};
  fiberBarrier(self);
  int32_t count = 0;
  for (const Vote& vote : worker->votes_) count += vote.generation == generation ? vote.predicate : 0;
  // A second barrier keeps the votes until every thread has counted them.
  fiberBarrier(self);
  return count;
}

uint32_t BlockWorker::liveLanes(size_t warp) const {
  uint32_t lanes = 0;
  for (size_t lane = 0; lane < 32 && warp * 32 + lane < threadCount_; ++lane) {
    if (!fibers_[warp * 32 + lane]->finished) lanes |= 1u << lane;
  }
  return lanes;
}

void BlockWorker::tryCompleteWarp(size_t warp, const WarpWaiter& waiter) {
  std::array<WarpWaiter*, 32>& slots = warps_[warp];
  uint32_t need = waiter.need & liveLanes(warp);
  if (waiter.converged) {
    // activemask: every live lane is here, or blocked at a barrier or in another collective.
    need = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(liveLanes(warp) >> lane & 1u)) continue;
      if (slots[lane] != nullptr && slots[lane]->converged && slots[lane]->site == waiter.site) {
        need |= 1u << lane;
      } else if (slots[lane] == nullptr && !atBarrier_[warp * 32 + lane]) {
        return;  // runnable: it may still arrive
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
  ++progress_;
}

uint32_t BlockWorker::fiberWarpExchange(host::ThreadContext* self, uint32_t mask, uint64_t value, uint64_t* values) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  size_t index = static_cast<size_t>(self - worker->threads_.data());
  size_t warp = index / 32;
  uint32_t lane = static_cast<uint32_t>(index % 32);
  WarpWaiter waiter{mask | 1u << lane, value, values};
  worker->warps_[warp][lane] = &waiter;
  ++worker->progress_;
  for (;;) {
    worker->tryCompleteWarp(warp, waiter);
    if (waiter.done) return waiter.lanes;
    worker->suspend();
  }
}

uint32_t BlockWorker::fiberActiveMask(host::ThreadContext* self, uint64_t site) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  size_t index = static_cast<size_t>(self - worker->threads_.data());
  size_t warp = index / 32;
  uint32_t lane = static_cast<uint32_t>(index % 32);
  uint64_t values[32];
  WarpWaiter waiter{1u << lane, 0, values};
  waiter.converged = true;
  waiter.site = site;
  worker->warps_[warp][lane] = &waiter;
  ++worker->progress_;
  for (;;) {
    worker->tryCompleteWarp(warp, waiter);
    if (waiter.done) return waiter.lanes;
    worker->suspend();
  }
}

void BlockWorker::fiberYield(host::ThreadContext* self) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  worker->polled_ = true;
  worker->suspend();
}

void BlockWorker::fiberMain(unsigned int low, unsigned int high) {
  // makecontext passes int arguments only: the worker's address comes in two halves.
  auto* worker = reinterpret_cast<BlockWorker*>((static_cast<uintptr_t>(high) << 32) | low);
  size_t index = worker->current_;
  try {
    worker->launch_->entry(&worker->threads_[index], worker->launch_->arguments);
  } catch (...) {
    // Exceptions cannot cross the fiber's first frame; the worker rethrows after the block.
    if (!worker->failure_) worker->failure_ = std::current_exception();
  }
  worker->fibers_[index]->finished = true;
  // A returned thread counts as arrived at the barrier the others wait at.
  --worker->alive_;
  ++worker->progress_;
  if (worker->alive_ > 0 && worker->barrierArrived_ == worker->alive_) worker->releaseBarrier();
  // Returning resumes uc_link, the scheduler.
}

void BlockWorker::prepareShared(size_t bytes) {
  if (bytes > sharedCapacity_) {
    std::free(shared_);
    // 256-byte alignment covers every element type a shared_array may hold and the largest
    // align= weft accepts.
    size_t rounded = (bytes + 255) / 256 * 256;
    shared_ = static_cast<unsigned char*>(std::aligned_alloc(256, rounded));
    if (!shared_) {
      sharedCapacity_ = 0;
      throw CudaError("CPU target: cannot allocate " + std::to_string(bytes) + " bytes of shared memory", 2);
    }
    sharedCapacity_ = rounded;
  }
  if (bytes) std::memset(shared_, 0, bytes);
}

void BlockWorker::prepareFibers(size_t count) {
  while (fibers_.size() < count) {
    auto fiber = std::make_unique<Fiber>();
    size_t mapping = kFiberStackBytes + pageBytes_;
    void* stack = ::mmap(nullptr, mapping, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                         -1, 0);
    if (stack == MAP_FAILED)
      throw CudaError("CPU target: cannot map a stack for thread " + std::to_string(fibers_.size()) + " of a block", 2);
    // A guard page turns a stack overflow into a fault instead of silent corruption.
    ::mprotect(stack, pageBytes_, PROT_NONE);
    fiber->stack = stack;
    fibers_.push_back(std::move(fiber));
  }
}

void BlockWorker::runFibers(const GridLaunch& launch, size_t threadCount) {
  prepareFibers(threadCount);
  launch_ = &launch;
  failure_ = nullptr;
  uintptr_t self = reinterpret_cast<uintptr_t>(this);
  for (size_t i = 0; i < threadCount; ++i) {
    Fiber& fiber = *fibers_[i];
    fiber.finished = false;
    ::getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = static_cast<unsigned char*>(fiber.stack) + pageBytes_;
    fiber.context.uc_stack.ss_size = kFiberStackBytes;
    fiber.context.uc_link = &scheduler_;
    ::makecontext(&fiber.context, reinterpret_cast<void (*)()>(&BlockWorker::fiberMain), 2,
                  static_cast<unsigned int>(self & 0xffffffffu), static_cast<unsigned int>(self >> 32));
  }
  threadCount_ = threadCount;
  alive_ = threadCount;
  barrierArrived_ = 0;
  votes_.assign(threadCount, Vote{});
  atBarrier_.assign(threadCount, 0);
  warps_.assign((threadCount + 31) / 32, {});
  size_t remaining = threadCount;
  while (remaining > 0) {
    uint64_t progress = progress_;
    polled_ = false;
    for (size_t i = 0; i < threadCount; ++i) {
      if (fibers_[i]->finished) continue;
      current_ = i;
      ::swapcontext(&scheduler_, &fibers_[i]->context);
      if (fibers_[i]->finished) --remaining;
    }
    if (remaining == 0 || progress_ != progress) continue;
    if (polled_) {
      // Waiting for memory that another block (another worker) changes.
      std::this_thread::yield();
      continue;
    }
    launch_ = nullptr;
    failure_ = nullptr;
    throw CudaError("CPU target: the threads of a block wait for each other forever: a warp collective names lanes "
                    "(in its mask) that never reach it, or some threads wait at syncthreads while others wait in a "
                    "warp collective",
                    2);
  }
  launch_ = nullptr;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void BlockWorker::runBlock(const GridLaunch& launch, uint64_t blockIndex) {
  prepareShared(launch.sharedBytes);
  size_t threadCount = size_t{launch.block.x} * launch.block.y * launch.block.z;
  host::ThreadContext prototype{};
  prototype.blockIdx = unflatten(blockIndex, launch.grid);
  prototype.blockDim = launch.block;
  prototype.gridDim = launch.grid;
  prototype.sharedMemory = shared_;
  prototype.runner = this;
  prototype.dynamicSharedBytes = launch.dynamicSharedBytes;
  if (!launch.usesBarrier) {
    prototype.barrier = &BlockWorker::sequentialBarrier;
    prototype.barrierCount = &BlockWorker::sequentialBarrierCount;
    prototype.warpExchange = &BlockWorker::sequentialWarpExchange;
    prototype.warpActiveMask = &BlockWorker::sequentialActiveMask;
    prototype.yieldThread = &BlockWorker::sequentialYield;
    for (size_t t = 0; t < threadCount; ++t) {
      host::ThreadContext context = prototype;
      context.threadIdx = unflatten(t, launch.block);
      launch.entry(&context, launch.arguments);
    }
    return;
  }
  prototype.barrier = &BlockWorker::fiberBarrier;
  prototype.barrierCount = &BlockWorker::fiberBarrierCount;
  prototype.warpExchange = &BlockWorker::fiberWarpExchange;
  prototype.warpActiveMask = &BlockWorker::fiberActiveMask;
  prototype.yieldThread = &BlockWorker::fiberYield;
  threads_.assign(threadCount, prototype);
  for (size_t t = 0; t < threadCount; ++t) threads_[t].threadIdx = unflatten(t, launch.block);
  runFibers(launch, threadCount);
}

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

void BlockRunner::runBlocks(BlockWorker& worker) {
  for (;;) {
    uint64_t first, last;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure_ || nextBlock_ >= totalBlocks_) return;
      first = nextBlock_;
      last = std::min(totalBlocks_, first + chunk_);
      nextBlock_ = last;
    }
    try {
      for (uint64_t block = first; block < last; ++block) worker.runBlock(*launch_, block);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      return;
    }
  }
}

void BlockRunner::workerLoop(size_t index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    runBlocks(*workers_[index]);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busyWorkers_ == 0) done_.notify_all();
  }
}

void BlockRunner::run(const GridLaunch& launch) {
  std::lock_guard<std::mutex> serial(runMutex_);
  uint64_t total = uint64_t{launch.grid.x} * launch.grid.y * launch.grid.z;
  // A single block needs no helpers: waking them would cost more than it saves.
  bool helpers = total > 1 && !threads_.empty() && ::getpid() == owner_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    launch_ = &launch;
    nextBlock_ = 0;
    totalBlocks_ = total;
    // Chunks of several blocks keep the lock cold; several chunks per worker balance the load.
    chunk_ = std::max<uint64_t>(1, total / (workers_.size() * 8));
    failure_ = nullptr;
    if (helpers) {
      busyWorkers_ = threads_.size();
      ++generation_;
    }
  }
  if (helpers) wake_.notify_all();
  runBlocks(*workers_[0]);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busyWorkers_ == 0; });
  launch_ = nullptr;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

}  // namespace weft::runtime
