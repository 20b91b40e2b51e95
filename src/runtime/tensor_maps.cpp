// TMA tensor maps (tensor_maps.h): describing an array argument as cuTensorMapEncodeTiled takes
// it, the bounded cache of encoded maps, and a launch's extra parameters.
#include "runtime/tensor_maps.h"

#include <algorithm>
#include <cstring>

#include "support/check.h"

namespace weft::runtime {
namespace {

// CUtensorMapDataType numbers (cuda.h).
enum TensorMapDataType : int {
  kUInt8 = 0,
  kUInt16 = 1,
  kUInt32 = 2,
  kInt32 = 3,
  kUInt64 = 4,
  kInt64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kBFloat16 = 9,
};

constexpr int kInterleave16 = 1, kInterleave32 = 2;
constexpr int kLargestSwizzle = 3;      // CU_TENSOR_MAP_SWIZZLE_128B
constexpr int kLargestL2Promotion = 3;  // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
constexpr int kNanFill = 1;             // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
constexpr int kMaxRank = 5;

// The TMA data type of `kind`'s elements and their bytes; nullopt for those TMA cannot copy. Raw
// bits are enough for a copy: 8-bit floats are bytes, complex64 a 64-bit word.
std::optional<std::pair<int, uint64_t>> dataType(types::ScalarKind kind) {
  using types::ScalarKind;
  switch (kind) {
    case ScalarKind::Bool:
    case ScalarKind::Int8:
    case ScalarKind::UInt8:
    case ScalarKind::Float8E4M3:
    case ScalarKind::Float8E5M2: return std::pair{kUInt8, uint64_t{1}};
    case ScalarKind::Int16:
    case ScalarKind::UInt16: return std::pair{kUInt16, uint64_t{2}};
    case ScalarKind::Int32: return std::pair{kInt32, uint64_t{4}};
    case ScalarKind::UInt32: return std::pair{kUInt32, uint64_t{4}};
    case ScalarKind::Int64: return std::pair{kInt64, uint64_t{8}};
    case ScalarKind::UInt64:
    case ScalarKind::Complex64: return std::pair{kUInt64, uint64_t{8}};
    case ScalarKind::Float16: return std::pair{kFloat16, uint64_t{2}};
    case ScalarKind::BFloat16: return std::pair{kBFloat16, uint64_t{2}};
    case ScalarKind::Float32: return std::pair{kFloat32, uint64_t{4}};
    case ScalarKind::Float64: return std::pair{kFloat64, uint64_t{8}};
    case ScalarKind::Complex128:
    case ScalarKind::TFloat32: return std::nullopt;  // tile-only: no array has tf32 elements
  }
  return std::nullopt;
}

bool isFloatType(int dataType) {
  return dataType == kFloat16 || dataType == kFloat32 || dataType == kFloat64 || dataType == kBFloat16;
}

}  // namespace

size_t TensorMapKeyHash::operator()(const TensorMapKey& key) const {
  // Runs on every launch of a kernel with maps: a multiply-xorshift combine, no allocation.
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  auto mix = [&](uint64_t value) {
    hash ^= value + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
    hash *= 0xff51afd7ed558ccdull;
  };
  mix(key.address);
  for (uint64_t value : key.dims) mix(value);
  for (uint64_t value : key.strides) mix(value);
  for (size_t d = 0; d < key.box.size(); ++d) mix(uint64_t{key.box[d]} << 32 | key.elementStrides[d]);
  for (int value :
       {key.dataType, static_cast<int>(key.rank), key.interleave, key.swizzle, key.l2Promotion, key.oobFill})
    mix(static_cast<uint64_t>(value));
  return static_cast<size_t>(hash);
}

std::optional<TensorMapKey> describeTensorMap(const ArrayValue& array,
                                              const codegen::EmittedUnit::TensorMap& request,
                                              std::string& problem) {
  auto fail = [&](std::string why) {
    problem = std::move(why);
    return std::nullopt;
  };
  WEFT_CHECK(request.box.size() == static_cast<size_t>(array.ndim),
             "a tensor map's box has " + std::to_string(request.box.size()) + " dimensions for an array of " +
                 std::to_string(array.ndim));
  WEFT_CHECK(request.elementStrides.empty() || request.elementStrides.size() == request.box.size(),
             "a tensor map's element strides and box differ in rank");
  if (array.elementStruct) return fail("its elements are structs, which TMA cannot copy");
  std::optional<std::pair<int, uint64_t>> type = dataType(array.dtype);
  if (!type) return fail("TMA has no data type for its elements");
  const auto [dataTypeNumber, elementBytes] = *type;
  const int rank = array.ndim;
  if (rank < 1 || rank > kMaxRank)
    return fail("it has " + std::to_string(rank) + " dimensions; TMA takes 1 to " + std::to_string(kMaxRank));
  TensorMapKey key;
  key.address = reinterpret_cast<uintptr_t>(array.data);
  key.dataType = dataTypeNumber;
  key.rank = static_cast<uint32_t>(rank);
  key.interleave = request.interleave;
  key.swizzle = request.swizzle;
  key.l2Promotion = request.l2Promotion;
  key.oobFill = request.oobFill;
  const uint64_t alignment = key.interleave == kInterleave32 ? 32 : 16;
  if (key.address % alignment != 0)
    return fail("its data pointer is not " + std::to_string(alignment) + "-byte aligned");
  // The map's dimension 0 is the array's last (contiguous) one.
  for (int d = 0; d < rank; ++d) {
    const int axis = rank - 1 - d;
    const int64_t extent = array.shape[static_cast<size_t>(axis)],
                  stride = array.strides[static_cast<size_t>(axis)];
    if (extent < 1 || extent > (int64_t{1} << 32))
      return fail("dimension " + std::to_string(axis) + " has " + std::to_string(extent) +
                  " elements; TMA takes 1 to 2**32");
    key.dims[static_cast<size_t>(d)] = static_cast<uint64_t>(extent);
    const uint32_t box = request.box[static_cast<size_t>(axis)];
    const uint32_t step =
        request.elementStrides.empty() ? 1 : request.elementStrides[static_cast<size_t>(axis)];
    if (box < 1 || box > 256)
      return fail("its box has " + std::to_string(box) + " elements along dimension " + std::to_string(axis) +
                  "; TMA takes 1 to 256");
    if (step < 1 || step > 8)
      return fail("its element stride along dimension " + std::to_string(axis) + " is " +
                  std::to_string(step) + "; TMA takes 1 to 8");
    key.box[static_cast<size_t>(d)] = box;
    key.elementStrides[static_cast<size_t>(d)] = step;
    if (d == 0) {
      if (stride != 1 && extent > 1)
        return fail("its last dimension is not contiguous (stride " + std::to_string(stride) + " elements)");
      continue;
    }
    if (stride < 0) return fail("dimension " + std::to_string(axis) + " has a negative stride");
    const uint64_t bytes = static_cast<uint64_t>(stride) * elementBytes;
    if (bytes % alignment != 0 || bytes >= (uint64_t{1} << 40))
      return fail("the stride of dimension " + std::to_string(axis) + " is " + std::to_string(bytes) +
                  " bytes, not a multiple of " + std::to_string(alignment) + " below 2**40");
    key.strides[static_cast<size_t>(d - 1)] = bytes;
  }
  if (key.interleave > kInterleave32 || key.swizzle > kLargestSwizzle ||
      key.l2Promotion > kLargestL2Promotion || key.oobFill > kNanFill)
    return fail("its interleave, swizzle, L2 promotion or fill is not one weft encodes");
  const uint64_t innerBytes = uint64_t{key.box[0]} * elementBytes;
  if (key.interleave == 0) {
    if (innerBytes % 16 != 0)
      return fail("its box's last dimension has " + std::to_string(innerBytes) +
                  " bytes, not a multiple of 16");
    const uint64_t span = key.swizzle == 0 ? innerBytes : uint64_t{16} << key.swizzle;
    if (innerBytes > span)
      return fail("its box's last dimension has " + std::to_string(innerBytes) + " bytes, more than the " +
                  std::to_string(span) + "-byte swizzle span");
  } else {
    if (rank < 3) return fail("an interleaved layout needs at least 3 dimensions");
    if (key.interleave == kInterleave32 && key.swizzle != 1)
      return fail("a 32-byte interleave needs the 32-byte swizzle");
  }
  if (key.oobFill == kNanFill && !isFloatType(key.dataType))
    return fail("the NaN fill needs floating-point elements");
  return key;
}

bool TensorMapCache::lookup(const TensorMapKey& key, CUtensorMap& map, std::string& problem) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = index_.find(key); found != index_.end()) {
    entries_.splice(entries_.begin(), entries_, found->second);
    map = found->second->second;
    return true;
  }
  CUtensorMap encoded{};
  const CUresult result =
      encode_(&encoded, key.dataType, key.rank, reinterpret_cast<void*>(key.address), key.dims.data(),
              key.strides.data(), key.box.data(), key.elementStrides.data(), key.interleave, key.swizzle,
              key.l2Promotion, key.oobFill);
  if (result != 0) {
    problem = "cuTensorMapEncodeTiled refused it (CUresult " + std::to_string(result) + ")";
    return false;
  }
  entries_.emplace_front(key, encoded);
  index_.emplace(key, entries_.begin());
  if (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
  map = encoded;
  return true;
}

size_t TensorMapCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

TensorMapParameters encodeTensorMaps(TensorMapCache& cache,
                                     const std::vector<codegen::EmittedUnit::TensorMap>& requests,
                                     const ParameterLayout& layout,
                                     const std::vector<ArgumentValue>& arguments) {
  WEFT_CHECK(requests.size() <= 32, "a kernel asks for more than 32 tensor maps");
  TensorMapParameters result;
  result.maps.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const ArgumentValue& argument =
        arguments.at(layout.argumentOf(static_cast<size_t>(requests[i].parameter)));
    WEFT_CHECK(argument.kind == ArgumentValue::Kind::Array, "a tensor map's parameter is not an array");
    std::string problem;
    std::optional<TensorMapKey> key = describeTensorMap(argument.array, requests[i], problem);
    if (key && cache.lookup(*key, result.maps[i], problem)) {
      result.mask |= uint32_t{1} << i;
    } else {
      result.maps[i] = CUtensorMap{};
      result.problems.push_back("tensor map " + std::to_string(i) + ": " + problem);
    }
  }
  return result;
}

}  // namespace weft::runtime
