// The CPU block runner: runs a kernel compiled for the host over a grid, blocks in parallel
// on a pool of threads, the threads of a block as fibers on guarded stacks. Private to the
// runtime.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include <weft/device/host_context.h>

namespace weft::runtime {

// One grid to run.
struct GridLaunch {
  host::KernelEntry entry = nullptr;
  void** arguments = nullptr;
  host::Dim3 grid{1, 1, 1};
  host::Dim3 block{1, 1, 1};
  size_t sharedBytes = 0;    // static (the unit's) plus dynamic (the launch's)
  size_t dynamicSharedBytes = 0;  // the launch's `shared`
  // The bytes of local arrays one thread may hold at once (sema's bound over the kernel and
  // everything it calls): each thread's stack and its guard region grow by this much.
  uint64_t localArrayBytes = 0;
  std::string_view kernelName;  // for messages
  // fastmath=True: the kernel's threads flush subnormals to zero (kernelFloatControl).
  bool flushSubnormals = false;
};

class BlockWorker;
struct Grid;

// Called about every 20 ms on the thread that called BlockRunner::run while the grid runs;
// true stops the grid (run() then throws Interrupted).
using InterruptCheck = std::function<bool()>;

// A persistent pool of worker threads (hardware_concurrency in all, the caller included).
// One grid runs at a time; run() is thread safe and blocks until the grid is done.
class BlockRunner {
 public:
  BlockRunner();
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;
  // Runs every block of the grid. The first failure (an exception a kernel thread raised, a
  // stack overflow, threads that wait for each other forever) cancels the rest of the grid and
  // is rethrown here; an interrupt check that returned true throws Interrupted.
  void run(const GridLaunch& launch);
  // Sets the check run() polls (empty: none). Not while a grid runs.
  void setInterruptCheck(InterruptCheck check);

 private:
  void workerLoop(size_t index);
  std::mutex runMutex_;  // serializes grids
  std::mutex mutex_;     // guards the fields below
  std::condition_variable wake_;
  std::condition_variable done_;
  Grid* grid_ = nullptr;
  uint64_t generation_ = 0;
  size_t activeWorkers_ = 0;  // the workers [0, activeWorkers_) take part in the grid
  size_t busyWorkers_ = 0;
  bool stopping_ = false;
  InterruptCheck interruptCheck_;                      // guarded by runMutex_
  std::vector<std::unique_ptr<BlockWorker>> workers_;  // [0] is the calling thread's
  std::vector<std::thread> threads_;
  // A forked child has none of the parent's threads: it runs every block on the caller.
  pid_t owner_;
};

}  // namespace weft::runtime
