#include "runtime/argument_packing.h"

#include <cstring>
#include <limits>

#include "support/check.h"
#include "types/layout.h"
#include "weft/device/fp16.h"
#include "weft/tiles/span_facts.h"

namespace weft::runtime {
namespace {

using types::ScalarKind;
using weft::detail::BFloat16Format;
using weft::detail::Float16Format;
using weft::detail::Float8E4M3Format;
using weft::detail::Float8E5M2Format;

size_t alignmentOf(const types::Type* type) { return static_cast<size_t>(types::layoutOf(type).align); }

size_t sizeOf(const types::Type* type) { return static_cast<size_t>(types::layoutOf(type).size); }

std::string describeArgument(const ArgumentValue& argument) {
  if (argument.kind == ArgumentValue::Kind::Array && argument.array.elementStruct)
    return "array(" + argument.array.elementStruct->name + ", " + std::to_string(argument.array.ndim) + "d)";
  if (argument.kind == ArgumentValue::Kind::Array)
    return std::string("array(") + types::pythonName(argument.array.dtype) + ", " +
           std::to_string(argument.array.ndim) + "d)";
  if (argument.kind == ArgumentValue::Kind::Aggregate && argument.vector)
    return types::pythonName(argument.scalar) + std::string("x") + std::to_string(argument.members.size());
  if (argument.kind == ArgumentValue::Kind::Aggregate)
    return argument.structSource ? "struct " + argument.structSource->name
                                 : "a tuple of " + std::to_string(argument.members.size());
  if (argument.kind == ArgumentValue::Kind::None) return "None";
  return types::pythonName(argument.scalar);
}

template <typename T>
void store(unsigned char* destination, T value) {
  std::memcpy(destination, &value, sizeof value);
}

// Whether the integer argument (its kind says how to read intValue's bits) fits `target`.
bool integerFits(const ArgumentValue& argument, ScalarKind target) {
  bool sourceUnsigned = types::isUnsigned(argument.scalar);
  int64_t value = argument.intValue;
  int bits = types::byteSize(target) * 8;
  if (types::isUnsigned(target)) {
    if (!sourceUnsigned && value < 0) return false;
    return bits == 64 || static_cast<uint64_t>(value) <= (uint64_t{1} << bits) - 1;
  }
  if (sourceUnsigned && static_cast<uint64_t>(value) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return false;
  if (bits == 64) return true;
  int64_t limit = int64_t{1} << (bits - 1);
  return value >= -limit && value < limit;
}

// The value of a bool or integer argument as a double.
double realValue(const ArgumentValue& argument) {
  if (types::isFloating(argument.scalar) || types::isComplex(argument.scalar)) return argument.floatValue;
  if (types::isUnsigned(argument.scalar)) return static_cast<double>(static_cast<uint64_t>(argument.intValue));
  return static_cast<double>(argument.intValue);
}

}  // namespace

uint16_t halfBitsFromFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0));
  int halfExponent = static_cast<int>(exponent) - 127 + 15;
  if (halfExponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t half;
  uint32_t remainder;
  uint32_t halfway;
  if (halfExponent <= 0) {
    // A subnormal half (or zero): the significand with its implicit bit, shifted into place.
    if (halfExponent < -10) return static_cast<uint16_t>(sign);
    uint32_t significand = mantissa | 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - halfExponent);
    half = significand >> shift;
    remainder = significand & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    half = (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
    remainder = mantissa & 0x1fffu;
    halfway = 0x1000u;
  }
  // Round to nearest even; a carry out of the significand correctly bumps the exponent.
  if (remainder > halfway || (remainder == halfway && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

ParameterLayout::ParameterLayout(std::string kernelName, const FrontEndResult& frontEnd)
    : kernelName_(std::move(kernelName)) {
  const std::vector<const types::Type*>& parameterTypes = frontEnd.parameterTypes;
  for (size_t i = 0; i < parameterTypes.size(); ++i) {
    const types::Type* type = parameterTypes[i];
    WEFT_CHECK(type && (type->isScalar() || type->isArray() || type->isStruct() || type->isVector() ||
                        type->kind == types::TypeKind::Tuple || type->kind == types::TypeKind::None),
               "kernel '" + kernelName_ +
                   "' has a parameter that is not a scalar, array, vector, tuple, struct or None");
    size_t alignment = alignmentOf(type);
    bytes_ = (bytes_ + alignment - 1) / alignment * alignment;
    std::string name = i < frontEnd.parameterNames.size() ? frontEnd.parameterNames[i] : "#" + std::to_string(i + 1);
    slots_.push_back(makeSlot(type, std::move(name), bytes_));
    bytes_ += sizeOf(type);
  }
  bytes_ = (bytes_ + 15) / 16 * 16;
  argumentToParam_ = frontEnd.argumentToParam;
  if (argumentToParam_.empty())
    for (size_t i = 0; i < slots_.size(); ++i) argumentToParam_.push_back(static_cast<int>(i));
  size_t mapped = 0;
  for (int param : argumentToParam_) {
    WEFT_CHECK(param < static_cast<int>(slots_.size()), "argumentToParam names a parameter that does not exist");
    if (param >= 0) ++mapped;
  }
  WEFT_CHECK(mapped == slots_.size(), "argumentToParam does not cover every parameter of '" + kernelName_ + "'");
}

ParameterLayout::Slot ParameterLayout::makeSlot(const types::Type* type, std::string name, size_t offset) {
  Slot slot;
  slot.isArray = type->isArray();
  slot.isNone = type->kind == types::TypeKind::None;
  slot.scalar = type->scalar;
  slot.ndim = type->ndim;
  slot.facts = type->isArray() ? type->facts : 0;
  slot.typeName = types::toString(type);
  slot.name = std::move(name);
  slot.offset = offset;
  if (type->isArray() && type->element != nullptr) {
    WEFT_CHECK(type->element->isStruct(), "an array parameter of " + types::toString(type->element) + " elements");
    slot.structIdentity = type->element->identity;
  }
  if (type->isVector()) {
    // Its components one after the other: a tuple of that many numbers packs into it too.
    slot.isAggregate = true;
    size_t bytes = static_cast<size_t>(types::byteSize(type->scalar));
    for (int i = 0; i < type->size; ++i) {
      Slot& component = slot.members.emplace_back();
      component.scalar = type->scalar;
      component.typeName = types::pythonName(type->scalar);
      component.name = slot.name + "[" + std::to_string(i) + "]";
      component.offset = bytes * static_cast<size_t>(i);
    }
  }
  if (type->isStruct() || type->kind == types::TypeKind::Tuple) {
    slot.isAggregate = true;
    slot.structIdentity = type->isStruct() ? type->identity : 0;
    types::Layout layout = types::layoutOf(type);
    slot.bytes = static_cast<size_t>(layout.size);
    slot.isRecord = type->isRecord();
    for (size_t i = 0; i < type->elements.size() && !slot.isRecord; ++i) {
      std::string member = type->isStruct() ? slot.name + "." + type->fieldNames[i] : slot.name + "[" + std::to_string(i) + "]";
      slot.members.push_back(makeSlot(type->elements[i], std::move(member), static_cast<size_t>(layout.offsets[i])));
    }
  }
  return slot;
}

void ParameterLayout::packValue(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const {
  if (slot.isNone) {
    if (argument.kind != ArgumentValue::Kind::None)
      fail(LaunchError::Kind::Type, slot, "expected None, got " + describeArgument(argument));
    store<void*>(destination, nullptr);
  } else if (slot.isAggregate) packAggregate(slot, argument, destination);
  else if (slot.isArray) packArray(slot, argument, destination);
  else packScalar(slot, argument, destination);
}

void ParameterLayout::packAggregate(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const {
  bool isStruct = slot.structIdentity != 0;
  bool whole = argument.array.data != nullptr;
  bool matches = argument.kind == ArgumentValue::Kind::Aggregate &&
                 (whole ? static_cast<size_t>(argument.array.itemSize) == slot.bytes
                        : argument.members.size() == slot.members.size() && !slot.isRecord) &&
                 (isStruct ? argument.structSource && argument.structSource->identity == slot.structIdentity
                           : !argument.structSource);
  if (!matches) {
    // A class is itself, not its name: another module's copy of it (importlib.reload) is not it.
    bool namesake = isStruct && argument.structSource && argument.structSource->name == slot.typeName;
    fail(LaunchError::Kind::Type, slot,
         "expected " + slot.typeName + ", got " +
             (namesake ? "another struct class named " + slot.typeName : describeArgument(argument)));
  }
  if (whole) {
    // A NumPy record (numpy.void): its bytes are the struct's machine representation.
    std::memcpy(destination, argument.array.data, slot.bytes);
    return;
  }
  for (size_t i = 0; i < slot.members.size(); ++i)
    packValue(slot.members[i], argument.members[i], destination + slot.members[i].offset);
}

unsigned arrayFacts(const ArrayValue& array) {
  if (array.elementStruct) return 0;
  return tiles::facts_of(reinterpret_cast<uintptr_t>(array.data), static_cast<unsigned>(types::byteSize(array.dtype)),
                         array.ndim, array.shape.data(), array.strides.data());
}

std::string describeFacts(unsigned facts) {
  static constexpr std::pair<unsigned, const char*> kNames[] = {
      {tiles::aligned_data, "16-byte aligned data"},
      {tiles::unit_inner_stride, "unit inner stride"},
      {tiles::aligned_strides, "outer strides of whole 16 bytes"},
      {tiles::aligned_extent, "an inner extent of whole 16 bytes"}};
  std::string text;
  for (auto [fact, name] : kNames)
    if (facts & fact) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

void ParameterLayout::fail(LaunchError::Kind kind, const Slot& slot, const std::string& detail) const {
  throw LaunchError(kind, "kernel '" + kernelName_ + "', parameter '" + slot.name + "': " + detail);
}

void ParameterLayout::packScalar(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const {
  ScalarKind target = slot.scalar;
  const char* targetName = types::pythonName(target);
  if (argument.kind != ArgumentValue::Kind::Scalar)
    fail(LaunchError::Kind::Type, slot,
         std::string("expected a ") + targetName + " scalar, got " + describeArgument(argument));
  ScalarKind source = argument.scalar;
  bool sourceIntegral = types::isBool(source) || types::isInteger(source);
  auto mismatch = [&]() {
    fail(LaunchError::Kind::Type, slot,
         std::string("expected ") + targetName + ", got " + types::pythonName(source) +
             (types::isComplex(source) ? "; a complex value cannot become a real parameter"
                                       : "; convert the value first"));
  };
  if (types::isBool(target)) {
    if (!types::isBool(source)) mismatch();
    store<uint8_t>(destination, argument.intValue != 0 ? 1 : 0);
  } else if (types::isInteger(target)) {
    if (!sourceIntegral) mismatch();
    if (!integerFits(argument, target))
      fail(LaunchError::Kind::Value, slot,
           (types::isUnsigned(source) ? std::to_string(static_cast<uint64_t>(argument.intValue))
                                      : std::to_string(argument.intValue)) +
               " does not fit in " + targetName);
    uint64_t bits = static_cast<uint64_t>(argument.intValue);
    // Little endian: the low bytes of the 64-bit value are the narrower integer.
    std::memcpy(destination, &bits, static_cast<size_t>(types::byteSize(target)));
  } else if (types::isFloating(target)) {
    if (types::isComplex(source)) mismatch();
    double value = realValue(argument);
    // Narrow floats round once from the double, as the device's conversions do.
    if (target == ScalarKind::Float16) store<uint16_t>(destination, static_cast<uint16_t>(Float16Format::encode(value)));
    else if (target == ScalarKind::BFloat16) store<uint16_t>(destination, static_cast<uint16_t>(BFloat16Format::encode(value)));
    else if (target == ScalarKind::Float8E4M3) store<uint8_t>(destination, static_cast<uint8_t>(Float8E4M3Format::encode(value)));
    else if (target == ScalarKind::Float8E5M2) store<uint8_t>(destination, static_cast<uint8_t>(Float8E5M2Format::encode(value)));
    else if (target == ScalarKind::Float32) store<float>(destination, static_cast<float>(value));
    else store<double>(destination, value);
  } else {
    double imaginary = types::isComplex(source) ? argument.imagValue : 0.0;
    double real = realValue(argument);
    if (target == ScalarKind::Complex64) {
      store<float>(destination, static_cast<float>(real));
      store<float>(destination + sizeof(float), static_cast<float>(imaginary));
    } else {
      store<double>(destination, real);
      store<double>(destination + sizeof(double), imaginary);
    }
  }
}

void ParameterLayout::packArray(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const {
  bool elementMatches = slot.structIdentity != 0
                            ? argument.array.elementStruct && argument.array.elementStruct->identity == slot.structIdentity
                            : !argument.array.elementStruct && argument.array.dtype == slot.scalar;
  if (argument.kind != ArgumentValue::Kind::Array || !elementMatches || argument.array.ndim != slot.ndim)
    fail(LaunchError::Kind::Type, slot, "expected " + slot.typeName + ", got " + describeArgument(argument));
  const ArrayValue& array = argument.array;
  // Code compiled for launch facts would misread an array without them (docs/tiles.md); a slot
  // without facts (every SIMT kernel's) computes none on its launch path.
  if (const unsigned missing = slot.facts != 0 ? slot.facts & ~arrayFacts(array) : 0; missing != 0)
    fail(LaunchError::Kind::Type, slot,
         "its type declares " + describeFacts(slot.facts) + " (a tile kernel's T[..., ::1]), but the array has no " +
             describeFacts(missing) + "; pass such an array (numpy.ascontiguousarray, a width of whole 16-byte "
             "vectors) or declare the parameter T[:, :]");
  store<void*>(destination, array.data);
  unsigned char* shape = destination + sizeof(void*);
  unsigned char* strides = shape + sizeof(uint64_t) * static_cast<size_t>(array.ndim);
  for (int d = 0; d < array.ndim; ++d) {
    if (array.shape[d] < 0)
      fail(LaunchError::Kind::Value, slot, "dimension " + std::to_string(d) + " has negative extent " +
                                               std::to_string(array.shape[d]));
    store<uint64_t>(shape + sizeof(uint64_t) * static_cast<size_t>(d), static_cast<uint64_t>(array.shape[d]));
    // Negative strides keep their two's complement bits; the device descriptor reads them back.
    store<uint64_t>(strides + sizeof(uint64_t) * static_cast<size_t>(d), static_cast<uint64_t>(array.strides[d]));
  }
}

void ParameterLayout::pack(const std::vector<ArgumentValue>& arguments, unsigned char* storage,
                           void** pointers) const {
  if (arguments.size() != argumentToParam_.size())
    throw LaunchError(LaunchError::Kind::Type, "kernel '" + kernelName_ + "' takes " +
                                                   std::to_string(argumentToParam_.size()) + " arguments, got " +
                                                   std::to_string(arguments.size()));
  for (size_t i = 0; i < arguments.size(); ++i) {
    int param = argumentToParam_[i];
    if (param < 0) continue;
    const Slot& slot = slots_[static_cast<size_t>(param)];
    unsigned char* destination = storage + slot.offset;
    packValue(slot, arguments[i], destination);
    pointers[param] = destination;
  }
}

size_t ParameterLayout::argumentOf(size_t param) const {
  for (size_t i = 0; i < argumentToParam_.size(); ++i)
    if (argumentToParam_[i] == static_cast<int>(param)) return i;
  WEFT_CHECK(false, "parameter " + std::to_string(param) + " of '" + kernelName_ + "' has no argument");
  return 0;
}

PackedArguments::PackedArguments(const ParameterLayout& layout, const std::vector<ArgumentValue>& arguments) {
  unsigned char* storage = inlineStorage_;
  pointers_ = inlinePointers_;
  if (layout.bytes() > kInlineBytes) {
    // operator new aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 on the supported ABIs).
    heapStorage_.resize(layout.bytes());
    storage = heapStorage_.data();
  }
  if (layout.count() > kInlineParameters) {
    heapPointers_.resize(layout.count());
    pointers_ = heapPointers_.data();
  }
  layout.pack(arguments, storage, pointers_);
}

}  // namespace weft::runtime
