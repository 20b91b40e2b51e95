#include "syntax/parse_cache.h"

#include <functional>
#include <string_view>

#include "syntax/syntax.h"

namespace weft::syntax {
namespace {

size_t keyOf(uint32_t fileId, std::string_view text) {
  return std::hash<std::string_view>{}(text) ^ (size_t{fileId} * 0x9e3779b97f4a7c15ull);
}

}  // namespace

ParseCache::ParseCache(size_t maxTextBytes) : maxTextBytes_(maxTextBytes) {}

std::shared_ptr<const Module> ParseCache::parse(uint32_t fileId, Diagnostics& diagnostics) {
  const std::string& text = diagnostics.sources().file(fileId).text();
  size_t key = keyOf(fileId, text);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = byKey_.equal_range(key);
    for (auto it = first; it != last; ++it) {
      Entries::iterator entry = it->second;
      if (entry->fileId != fileId || entry->text != text) continue;
      entries_.splice(entries_.begin(), entries_, entry);
      ++hits_;
      return entry->module;
    }
  }
  // Parsed without the lock: two threads may parse one text at once, and then both keep theirs
  // (each is a correct parse) while the cache keeps the first.
  size_t reported = diagnostics.all().size();
  std::shared_ptr<const Module> module = syntax::parse(fileId, diagnostics);
  if (diagnostics.all().size() != reported || module == nullptr || text.size() > maxTextBytes_) return module;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [first, last] = byKey_.equal_range(key);
  for (auto it = first; it != last; ++it)
    if (it->second->fileId == fileId && it->second->text == text) return module;
  entries_.push_front(Entry{fileId, text, module});
  byKey_.emplace(key, entries_.begin());
  textBytes_ += text.size();
  while (textBytes_ > maxTextBytes_) {
    Entries::iterator oldest = std::prev(entries_.end());
    auto [from, to] = byKey_.equal_range(keyOf(oldest->fileId, oldest->text));
    for (auto it = from; it != to; ++it) {
      if (it->second != oldest) continue;
      byKey_.erase(it);
      break;
    }
    textBytes_ -= oldest->text.size();
    entries_.erase(oldest);
  }
  return module;
}

size_t ParseCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

std::shared_ptr<const Module> parseShared(uint32_t fileId, Diagnostics& diagnostics, ParseCache* cache) {
  if (cache != nullptr) return cache->parse(fileId, diagnostics);
  return syntax::parse(fileId, diagnostics);
}

}  // namespace weft::syntax
