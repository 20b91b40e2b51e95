// The content-addressed disk cache. Each entry is one file `<key>.bin`:
//   magic (8 bytes) | payload length (8 bytes, little endian) | checksum (32 hex digits) | payload
// Writers write a temporary file in the same directory and rename it over the entry, so a
// reader sees either no entry or a complete one, whatever other processes do at the time; the
// checksum catches files damaged in any other way (a crash mid-write on a filesystem without
// ordered renames, a disk error, a user's edit).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/backend.h"
#include "support/check.h"
#include "support/hash.h"

namespace weft::backend {
namespace {

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'C', 'A', '0', '1'};
constexpr size_t kChecksumSize = 32;
constexpr size_t kHeaderSize = sizeof kMagic + 8 + kChecksumSize;

std::string checksum(const std::string& bytes, size_t offset) {
  return ContentHash().add(std::string_view(bytes).substr(offset)).hex();
}

// Creates `directory` and its parents; false when that is impossible.
bool makeDirectories(const std::string& directory) {
  for (size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
    std::string prefix = directory.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

bool readWholeFile(const std::string& path, std::string& bytes) {
  int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return false;
  char buffer[65536];
  bool ok = true;
  for (;;) {
    ssize_t count = ::read(descriptor, buffer, sizeof buffer);
    if (count > 0) bytes.append(buffer, static_cast<size_t>(count));
    else if (count == 0) break;
    else if (errno != EINTR) {
      ok = false;
      break;
    }
  }
  ::close(descriptor);
  return ok;
}

bool writeWholeFile(int descriptor, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t count = ::write(descriptor, bytes.data() + written, bytes.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    written += static_cast<size_t>(count);
  }
  return true;
}

// Keys are made by the caller from a hash; a key that could name another file is a weft bug.
void checkKey(const std::string& key) {
  bool valid = !key.empty() && key[0] != '.';
  for (char c : key) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
  WEFT_CHECK(valid, "disk cache key '" + key + "' is not a plain file name");
}

}  // namespace

DiskCache DiskCache::fromEnvironment() {
  const char* switchValue = std::getenv("WEFT_CACHE");
  bool enabled = !(switchValue && std::string(switchValue) == "0");
  std::string directory;
  if (const char* value = std::getenv("WEFT_CACHE_DIR"); value && *value) directory = value;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) directory = std::string(xdg) + "/weft";
  else if (const char* home = std::getenv("HOME"); home && *home) directory = std::string(home) + "/.cache/weft";
  if (directory.empty()) enabled = false;
  return DiskCache(std::move(directory), enabled);
}

std::optional<std::string> DiskCache::load(const std::string& key) const {
  if (!enabled_) return std::nullopt;
  checkKey(key);
  std::string path = pathFor(key, ".bin");
  std::string bytes;
  if (!readWholeFile(path, bytes)) return std::nullopt;
  uint64_t length = 0;
  bool valid = bytes.size() >= kHeaderSize && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
  if (valid) {
    for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    valid = length == bytes.size() - kHeaderSize &&
            bytes.compare(16, kChecksumSize, checksum(bytes, kHeaderSize)) == 0;
  }
  if (!valid) {
    // Removing it lets the caller's rebuild store a good entry; a concurrent writer's rename
    // may already have replaced it, in which case this unlink only costs that writer its entry.
    ::unlink(path.c_str());
    return std::nullopt;
  }
  return bytes.substr(kHeaderSize);
}

void DiskCache::store(const std::string& key, const std::string& bytes) const {
  if (!enabled_) return;
  checkKey(key);
  // The cache is an optimization: a directory that cannot be written only costs recompiles.
  if (!createDirectory()) return;
  std::string entry(kMagic, sizeof kMagic);
  uint64_t length = bytes.size();
  for (int i = 0; i < 8; ++i) entry.push_back(static_cast<char>(length >> (8 * i)));
  entry += ContentHash().add(bytes).hex();
  entry += bytes;
  std::string temporary = pathFor(key, ".XXXXXX");
  int descriptor = ::mkstemp(temporary.data());
  if (descriptor < 0) return;
  bool written = writeWholeFile(descriptor, entry);
  ::close(descriptor);
  if (!written || ::rename(temporary.c_str(), pathFor(key, ".bin").c_str()) != 0) ::unlink(temporary.c_str());
}

bool DiskCache::createDirectory() const { return enabled_ && makeDirectories(directory_); }

std::string DiskCache::pathFor(const std::string& key, const std::string& suffix) const {
  return directory_ + "/" + key + suffix;
}

}  // namespace weft::backend
