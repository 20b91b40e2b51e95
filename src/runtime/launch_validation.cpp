#include <string>

#include "runtime/loaded_kernels.h"

namespace weft::runtime {
namespace {

std::string dims(const std::array<uint32_t, 3>& value) {
  return "(" + std::to_string(value[0]) + ", " + std::to_string(value[1]) + ", " + std::to_string(value[2]) + ")";
}

}  // namespace

void validateLaunch(const std::string& kernelName, const LaunchConfig& config, const DeviceLimits& limits,
                    uint32_t maxThreads, uint64_t staticShared) {
  auto fail = [&](const std::string& message) {
    throw LaunchError(LaunchError::Kind::Value, "kernel '" + kernelName + "': " + message);
  };
  static constexpr const char* kAxes[3] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    if (config.grid[axis] == 0)
      fail("grid " + dims(config.grid) + " has no blocks along " + kAxes[axis] + "; each dimension must be at least 1");
    if (config.block[axis] == 0)
      fail("block " + dims(config.block) + " has no threads along " + kAxes[axis] +
           "; each dimension must be at least 1");
    if (config.grid[axis] > limits.maxGrid[axis])
      fail("grid " + dims(config.grid) + " is too large: the device allows at most " +
           std::to_string(limits.maxGrid[axis]) + " blocks along " + kAxes[axis]);
    if (config.block[axis] > limits.maxBlock[axis])
      fail("block " + dims(config.block) + " is too large: the device allows at most " +
           std::to_string(limits.maxBlock[axis]) + " threads along " + kAxes[axis]);
  }
  uint64_t threads = uint64_t{config.block[0]} * config.block[1] * config.block[2];
  if (threads > limits.maxThreadsPerBlock)
    fail("block " + dims(config.block) + " has " + std::to_string(threads) + " threads; the device allows at most " +
         std::to_string(limits.maxThreadsPerBlock) + " per block");
  if (threads > maxThreads)
    fail("block " + dims(config.block) + " has " + std::to_string(threads) + " threads; this kernel can run at most " +
         std::to_string(maxThreads) + " per block (its register use limits it); use smaller blocks");
  if (config.sharedBytes == 0 && staticShared > limits.maxSharedPerBlock)
    fail("its shared_arrays take " + std::to_string(staticShared) + " bytes of shared memory; the device allows at most " +
         std::to_string(limits.maxSharedPerBlock) + " bytes per block; use smaller shared arrays");
  if (config.cluster != std::array<uint32_t, 3>{0, 0, 0}) {
    if (!limits.clusters)
      fail("cluster " + dims(config.cluster) +
           ": the device has no thread block clusters (they need compute capability 9.0)");
    for (int axis = 0; axis < 3; ++axis) {
      if (config.cluster[axis] == 0)
        fail("cluster " + dims(config.cluster) + " has no blocks along " + kAxes[axis] +
             "; each dimension must be at least 1");
      if (config.grid[axis] % config.cluster[axis] != 0)
        fail("cluster " + dims(config.cluster) + " does not divide grid " + dims(config.grid) + " along " +
             kAxes[axis]);
    }
    uint64_t blocks = uint64_t{config.cluster[0]} * config.cluster[1] * config.cluster[2];
    if (blocks > kMaxClusterBlocks)
      fail("cluster " + dims(config.cluster) + " has " + std::to_string(blocks) + " blocks; at most " +
           std::to_string(kMaxClusterBlocks) + " are allowed");
  }
  if (config.sharedBytes + staticShared > limits.maxSharedPerBlock)
    fail(std::to_string(config.sharedBytes) + " bytes of dynamic shared memory requested" +
         (staticShared ? " (plus " + std::to_string(staticShared) + " bytes of shared_arrays)" : std::string()) +
         "; the device allows at most " + std::to_string(limits.maxSharedPerBlock) + " bytes per block");
}

}  // namespace weft::runtime
