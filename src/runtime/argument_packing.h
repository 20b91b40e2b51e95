// Packing launch arguments into the kernel's C++ parameter ABI. Private to the runtime; the
// GPU path hands the packed values to cuLaunchKernel, the CPU path to the host entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace weft::runtime {

// Converts a float to IEEE 754 binary16 bits, rounding to nearest even (float16 parameters).
uint16_t halfBitsFromFloat(float value);

// Where each parameter of a kernel lives in a packed parameter buffer. A scalar is stored as
// its C++ type (bool: 1 byte; float16: IEEE half bits; complex64: {float re, im} aligned to
// 8; complex128: {double re, im} aligned to 16). An array of ndim N is the device descriptor
// of include/weft/device/array.h: { T* data; uint64_t shape[N]; uint64_t strides[N]; } with
// strides counted in elements. Tuples and structs are their standard-layout C++ structs
// (types/layout.h), packed member by member.
class ParameterLayout {
 public:
  ParameterLayout(std::string kernelName, const FrontEndResult& frontEnd);
  // Bytes of the packed buffer (its alignment must be 16).
  size_t bytes() const { return bytes_; }
  // Number of kernel parameters (pointers written by pack()).
  size_t count() const { return slots_.size(); }
  const std::string& kernelName() const { return kernelName_; }
  // Validates `arguments` against the parameters and writes them into `storage` (bytes()
  // long, 16-aligned); pointers[i] receives the address of parameter i. Throws LaunchError
  // (Type for a wrong kind, dtype or ndim, or a wrong count; Value for an out-of-range value).
  void pack(const std::vector<ArgumentValue>& arguments, unsigned char* storage, void** pointers) const;
  // The argument that packs into parameter `param` (a launch's index into its arguments).
  size_t argumentOf(size_t param) const;
  // Offset of parameter `index` in the buffer (for tests).
  size_t offset(size_t index) const { return slots_[index].offset; }

 private:
  // A copy of what packing needs from the parameter's type: kernels may outlive the
  // TypeContext that interned it.
  struct Slot {
    bool isArray = false;
    bool isNone = false;       // NoneType: a null void*
    types::ScalarKind scalar = types::ScalarKind::Bool;  // array: the element type
    int ndim = 0;
    std::string typeName;      // for messages
    std::string name;
    size_t offset = 0;         // a member: from the start of its aggregate
    bool isAggregate = false;  // a tuple or struct: `members`, laid out as types::layoutOf says
    std::vector<Slot> members;
    size_t bytes = 0;              // an aggregate's size: a NumPy record argument is copied whole
    bool isRecord = false;         // a NumPy record's type: only a record argument (bytes) fits
    uint64_t structIdentity = 0;   // a struct, or an array's struct elements: the class (0: none)
    unsigned facts = 0;            // an array: the launch facts its code assumes (checked)
  };
  static Slot makeSlot(const types::Type* type, std::string name, size_t offset);
  void packValue(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const;
  void packAggregate(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const;
  void packScalar(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const;
  void packArray(const Slot& slot, const ArgumentValue& argument, unsigned char* destination) const;
  [[noreturn]] void fail(LaunchError::Kind kind, const Slot& slot, const std::string& detail) const;
  std::string kernelName_;
  std::vector<Slot> slots_;
  std::vector<int> argumentToParam_;  // -1: a ConstExpr argument baked into the program
  size_t bytes_ = 0;
};

// Packs into a buffer on the stack when it fits (the common case: the launch path allocates
// nothing), else on the heap.
class PackedArguments {
 public:
  PackedArguments(const ParameterLayout& layout, const std::vector<ArgumentValue>& arguments);
  void** pointers() { return pointers_; }

 private:
  static constexpr size_t kInlineBytes = 1024;
  static constexpr size_t kInlineParameters = 64;
  alignas(16) unsigned char inlineStorage_[kInlineBytes];
  void* inlinePointers_[kInlineParameters];
  std::vector<unsigned char> heapStorage_;
  std::vector<void*> heapPointers_;
  void** pointers_;
};

}  // namespace weft::runtime
