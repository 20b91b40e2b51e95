#include "support/hash.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <sstream>
#include <vector>

namespace weft {

// Eight bytes per step (the headers of every cache key are ~400 KB: a byte-wise loop cost ~2 ms of
// each process's first launch); the tail is zero-padded, and add()'s length prefix keeps the
// padding from colliding with real zero bytes.
void ContentHash::mix(const unsigned char* data, size_t size) {
  auto step = [this](uint64_t word) {
    low_ = (low_ ^ word) * 0x100000001b3ull;
    low_ ^= low_ >> 32;
    high_ = ((high_ ^ word ^ (low_ >> 29)) * 0x9e3779b97f4a7c15ull) + 0x100000001b3ull;
    high_ ^= high_ >> 31;
  };
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    step(word);
  }
  if (i < size) {
    uint64_t word = 0;
    std::memcpy(&word, data + i, size - i);
    step(word);
  }
}

ContentHash& ContentHash::add(uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  mix(bytes, 8);
  return *this;
}

ContentHash& ContentHash::add(std::string_view bytes) {
  add(static_cast<uint64_t>(bytes.size()));
  mix(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return *this;
}

std::string ContentHash::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = digits[(high_ >> (4 * i)) & 15];
    out[31 - i] = digits[(low_ >> (4 * i)) & 15];
  }
  return out;
}

std::string hashDirectory(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
    if (it->is_regular_file(error)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  ContentHash hash;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream contents;
    contents << in.rdbuf();
    hash.add(file.lexically_relative(directory).generic_string()).add(contents.view());
  }
  return hash.hex();
}

}  // namespace weft
