// The CPU block runner: runs a kernel compiled for the host over a grid, blocks in parallel
// on a pool of threads, the threads of a block as fibers switched at barriers. Private to
// the runtime.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
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
  // False: the threads of a block run one after another, no fibers (the kernel calls no
  // barrier, warp collective or atomic wait).
  bool usesBarrier = false;
};

class BlockWorker;

// A persistent pool of worker threads (hardware_concurrency in all, the caller included).
// One grid runs at a time; run() is thread safe and blocks until the grid is done.
class BlockRunner {
 public:
  BlockRunner();
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;
  // Runs every block of the grid; rethrows the first exception a kernel thread raised.
  void run(const GridLaunch& launch);

 private:
  void workerLoop(size_t index);
  void runBlocks(BlockWorker& worker);
  std::mutex runMutex_;  // serializes grids
  std::mutex mutex_;     // guards the fields below
  std::condition_variable wake_;
  std::condition_variable done_;
  const GridLaunch* launch_ = nullptr;
  uint64_t generation_ = 0;
  size_t busyWorkers_ = 0;
  bool stopping_ = false;
  uint64_t nextBlock_ = 0;  // guarded by mutex_: blocks are handed out in chunks
  uint64_t totalBlocks_ = 0;
  uint64_t chunk_ = 1;
  std::exception_ptr failure_;
  std::vector<std::unique_ptr<BlockWorker>> workers_;  // [0] is the calling thread's
  std::vector<std::thread> threads_;
  // A forked child has none of the parent's threads: it runs every block on the caller.
  pid_t owner_;
};

}  // namespace weft::runtime
