// Content hashing for cache keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weft {

// Incremental 128-bit FNV-1a-style hasher; hex() gives 32 lowercase hex digits.
class ContentHash {
 public:
  // Adds bytes; a length prefix keeps ("ab","c") distinct from ("a","bc").
  ContentHash& add(std::string_view bytes);
  ContentHash& add(uint64_t value);
  std::string hex() const;

 private:
  uint64_t low_ = 0xcbf29ce484222325ull;
  uint64_t high_ = 0x84222325cbf29ce4ull;
  void mix(const unsigned char* data, size_t size);
};

// A hash of every regular file under `directory`, at any depth: relative paths and contents, in
// sorted order (a missing directory hashes as empty).
std::string hashDirectory(const std::string& directory);

// A hash of what the file system says about every regular file under `directory`, without
// reading them: relative paths, sizes, device and inode numbers, modification and change times.
// A file whose contents change gets another fingerprint (a write sets its change time, which no
// user can set back; a replaced file has another inode), and a fingerprint costs a fifth of
// hashDirectory() on weft's headers.
std::string directoryFingerprint(const std::string& directory);

}  // namespace weft
