// Blocks run in parallel, one per worker at a time. Within a block that never calls a
// barrier, the threads run one after another to completion on the worker's own stack. A block
// whose kernel uses barriers runs each thread as a fiber (ucontext, on its own mmap'ed stack):
// the worker's scheduler resumes the unfinished fibers round-robin, and a fiber that reaches
// the barrier switches back to it. After one round every unfinished fiber is waiting at the
// barrier, so the next round releases them all: this is the GPU's __syncthreads. A fiber that
// has returned counts as arrived at every later barrier (as threads that exited do on the
// GPU), so a kernel whose threads leave early never deadlocks.
#include "runtime/cpu_runner.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
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
  static void sequentialBarrier(host::ThreadContext* self);
  static void fiberBarrier(host::ThreadContext* self);
  static void fiberMain(unsigned int low, unsigned int high);
  void prepareShared(size_t bytes);
  void prepareFibers(size_t count);
  void runFibers(const GridLaunch& launch, size_t threadCount);

  unsigned char* shared_ = nullptr;
  size_t sharedCapacity_ = 0;
  std::vector<host::ThreadContext> threads_;
  std::vector<std::unique_ptr<Fiber>> fibers_;  // stable addresses: a ucontext_t points into itself
  ucontext_t scheduler_;
  size_t current_ = 0;
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

void BlockWorker::fiberBarrier(host::ThreadContext* self) {
  auto* worker = static_cast<BlockWorker*>(self->runner);
  ::swapcontext(&worker->fibers_[worker->current_]->context, &worker->scheduler_);
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
  // Returning resumes uc_link, the scheduler.
}

void BlockWorker::prepareShared(size_t bytes) {
  if (bytes > sharedCapacity_) {
    std::free(shared_);
    // 64-byte alignment covers every element type a shared_array may hold.
    size_t rounded = (bytes + 63) / 64 * 64;
    shared_ = static_cast<unsigned char*>(std::aligned_alloc(64, rounded));
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
  size_t remaining = threadCount;
  while (remaining > 0) {
    for (size_t i = 0; i < threadCount; ++i) {
      if (fibers_[i]->finished) continue;
      current_ = i;
      ::swapcontext(&scheduler_, &fibers_[i]->context);
      if (fibers_[i]->finished) --remaining;
    }
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
  if (!launch.usesBarrier) {
    prototype.barrier = &BlockWorker::sequentialBarrier;
    for (size_t t = 0; t < threadCount; ++t) {
      host::ThreadContext context = prototype;
      context.threadIdx = unflatten(t, launch.block);
      launch.entry(&context, launch.arguments);
    }
    return;
  }
  prototype.barrier = &BlockWorker::fiberBarrier;
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
