#include "support/hash.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
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

namespace {

// Appends every regular file under the open directory `directory` (which it closes), with the
// path relative to the walk's root and its status; POSIX calls, as std::filesystem's iterator
// costs twice as much here.
void listFiles(int directory, const std::string& prefix, std::vector<std::pair<std::string, struct stat>>& out) {
  DIR* stream = ::fdopendir(directory);
  if (stream == nullptr) {
    ::close(directory);
    return;
  }
  while (const dirent* entry = ::readdir(stream)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat status {};
    if (::fstatat(directory, entry->d_name, &status, 0) != 0) continue;
    std::string path = prefix + std::string(name);
    if (S_ISDIR(status.st_mode)) {
      int inner = ::openat(directory, entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (inner >= 0) listFiles(inner, path + "/", out);
    } else if (S_ISREG(status.st_mode)) {
      out.emplace_back(std::move(path), status);
    }
  }
  ::closedir(stream);
}

}  // namespace

std::string directoryFingerprint(const std::string& directory) {
  std::vector<std::pair<std::string, struct stat>> files;
  int root = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root >= 0) listFiles(root, "", files);
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ContentHash hash;
  hash.add("fingerprint");
  for (const auto& [path, status] : files) {
    hash.add(path).add(static_cast<uint64_t>(status.st_size));
    hash.add(static_cast<uint64_t>(status.st_dev)).add(static_cast<uint64_t>(status.st_ino));
    hash.add(static_cast<uint64_t>(status.st_mtim.tv_sec)).add(static_cast<uint64_t>(status.st_mtim.tv_nsec));
    hash.add(static_cast<uint64_t>(status.st_ctim.tv_sec)).add(static_cast<uint64_t>(status.st_ctim.tv_nsec));
  }
  return hash.hex();
}

}  // namespace weft
