// TMA tensor maps for the Hopper path: a kernel's EmittedUnit::tensorMaps become extra kernel
// parameters (each a `const __grid_constant__ CUtensorMap`, then one mask word), encoded at each
// launch from the actual array arguments through cuTensorMapEncodeTiled and cached. Private to
// the runtime; docs/architecture.md ("Tensor maps") describes the kernel's side.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/argument_packing.h"
#include "runtime/driver.h"
#include "runtime/runtime.h"

namespace weft::runtime {

// Everything cuTensorMapEncodeTiled takes, in its terms: dimension 0 is the innermost
// (contiguous) one, `strides` are the byte strides of dimensions 1 .. rank-1.
struct TensorMapKey {
  uintptr_t address = 0;
  int dataType = 0;  // CUtensorMapDataType
  uint32_t rank = 0;
  std::array<uint64_t, 5> dims{};
  std::array<uint64_t, 4> strides{};
  std::array<uint32_t, 5> box{};
  std::array<uint32_t, 5> elementStrides{};
  int interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
  bool operator==(const TensorMapKey&) const = default;
};

struct TensorMapKeyHash {
  size_t operator()(const TensorMapKey& key) const;
};

// The key that describes `array` as `request` asks, or nullopt with `problem` saying why TMA
// cannot address it (a stride not a multiple of 16 bytes, a base not 16-byte aligned, more than
// 5 dimensions, a non-contiguous last dimension, an element type without a TMA data type, a box
// the hardware does not take, ...): the launch then tells the kernel to take its fallback path.
std::optional<TensorMapKey> describeTensorMap(const ArrayValue& array,
                                              const codegen::EmittedUnit::TensorMap& request,
                                              std::string& problem);

// cuTensorMapEncodeTiled's type (the driver table's entry, or a fake in tests).
using TensorMapEncoder = decltype(DriverTable::cuTensorMapEncodeTiled);

// Encoded maps by key, at most `capacity` of them (the least recently used goes first).
// Thread safe.
class TensorMapCache {
 public:
  explicit TensorMapCache(TensorMapEncoder encode, size_t capacity = 256)
      : encode_(encode), capacity_(capacity) {}
  // Writes the map for `key` into `map` (from the cache, else encoded and cached) and returns
  // true; false with `problem` set when the driver refuses it (nothing is cached then).
  bool lookup(const TensorMapKey& key, CUtensorMap& map, std::string& problem);
  // The number of cached maps.
  size_t size() const;

 private:
  using Entry = std::pair<TensorMapKey, CUtensorMap>;
  TensorMapEncoder encode_;
  size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<TensorMapKey, std::list<Entry>::iterator, TensorMapKeyHash> index_;
};

// The extra parameters of one launch: a map per request (all zero where it could not be
// encoded) and the mask whose bit i says map i is valid; `problems` say why the others are not.
struct TensorMapParameters {
  std::vector<CUtensorMap> maps;
  uint32_t mask = 0;
  std::vector<std::string> problems;
};

// Encodes the maps `requests` ask for from the array arguments of their parameters. At most 32
// requests (the mask's bits).
TensorMapParameters encodeTensorMaps(TensorMapCache& cache,
                                     const std::vector<codegen::EmittedUnit::TensorMap>& requests,
                                     const ParameterLayout& layout,
                                     const std::vector<ArgumentValue>& arguments);

}  // namespace weft::runtime
