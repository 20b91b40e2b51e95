// Constant data (issue 10, item 2): a global NumPy array read in device code is defined in the
// unit as an array of its elements' bit patterns (exact for every dtype, NaN and infinities
// included), and read through a weft::Array of its element type.
#include <cstdio>
#include <cstring>

#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

namespace {

// Constant memory is 64 KiB per module; the data of one unit takes at most this much of it, and
// goes to global memory beyond.
constexpr size_t kConstantMemoryBytes = 48 * 1024;

// The unsigned integer type of `bytes` bytes (1, 2, 4 or 8) that holds one word of the data.
const char* wordType(size_t bytes) {
  return bytes == 1 ? "uint8_t" : bytes == 2 ? "uint16_t" : bytes == 4 ? "uint32_t" : "uint64_t";
}

std::string dataName(size_t index) { return "w_constant_" + std::to_string(index); }

size_t wordBytes(const sema::ConstArray& array) {
  std::optional<types::ScalarKind> kind = types::scalarFromName(array.dtype);
  WEFT_CHECK(kind.has_value(), "constant data of an unknown dtype " + array.dtype);
  size_t item = static_cast<size_t>(types::byteSize(*kind));
  return item > 8 ? 8 : item;  // complex128: two words per element
}

}  // namespace

std::string CudaEmitter::constantArray(const sema::TypedExpr& e) {
  WEFT_CHECK(e.index >= 0 && static_cast<size_t>(e.index) < program_.constantArrays.size() && e.type->isArray(),
             "a constant array out of range");
  const sema::ConstArray& array = *program_.constantArrays[static_cast<size_t>(e.index)];
  std::string shape, strides;
  uint64_t stride = 1;
  std::vector<uint64_t> elementStrides(array.shape.size());
  for (size_t k = array.shape.size(); k-- > 0;) {
    elementStrides[k] = stride;
    stride *= static_cast<uint64_t>(array.shape[k]);
  }
  for (size_t d = 0; d < array.shape.size(); ++d) {
    shape += (d ? ", " : "") + std::to_string(array.shape[d]) + "ull";
    strides += (d ? ", " : "") + std::to_string(elementStrides[d]) + "ull";
  }
  std::string element = types::cxxName(e.type->scalar);
  return typeName(e.type) + "{reinterpret_cast<" + element + "*>(const_cast<" + wordType(wordBytes(array)) + "*>(" +
         dataName(static_cast<size_t>(e.index)) + ")), {" + shape + "}, {" + strides + "}}";
}

std::string CudaEmitter::constantData() const {
  std::string out;
  size_t constantBytes = 0;
  for (size_t i = 0; i < program_.constantArrays.size(); ++i) {
    const sema::ConstArray& array = *program_.constantArrays[i];
    size_t word = wordBytes(array);
    size_t words = array.bytes.size() / word;
    bool inConstantMemory = constantBytes + array.bytes.size() <= kConstantMemoryBytes;
    if (inConstantMemory) constantBytes += array.bytes.size();
    out += std::string(inConstantMemory ? "WEFT_CONSTANT_DATA " : "WEFT_GLOBAL_DATA ") + wordType(word) + " " +
           dataName(i) + "[" + std::to_string(words == 0 ? 1 : words) + "] = {";
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = 0;
      std::memcpy(&bits, array.bytes.data() + w * word, word);  // little-endian hosts and GPUs
      char text[24];
      std::snprintf(text, sizeof text, "0x%llxu", static_cast<unsigned long long>(bits));
      out += (w ? (w % 8 == 0 ? ",\n    " : ", ") : "") + std::string(word == 8 ? std::string(text) + "ll" : text);
    }
    if (words == 0) out += "0";
    out += "};\n";
  }
  return out;
}

}  // namespace weft::codegen
