// Parsed modules shared across programs: every kernel and specialization of one file parses
// its text once per process (issue 9: re-parsing was half of a warm first call's front end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "support/diagnostics.h"
#include "syntax/ast.h"

namespace weft::syntax {

// A bounded, thread-safe cache of parsed modules, keyed by what a parse depends on: the file's
// text and its id in the SourceManager (every node's location holds the id). Only clean parses
// are kept: a parse that reports anything runs again, so its diagnostics are reported each time.
// The modules it hands out are shared: users must not change them.
class ParseCache {
 public:
  // Keeps the most recently used modules whose texts total at most `maxTextBytes`.
  explicit ParseCache(size_t maxTextBytes = kDefaultMaxTextBytes);
  ParseCache(const ParseCache&) = delete;
  ParseCache& operator=(const ParseCache&) = delete;
  // The module of file `fileId` of `diagnostics.sources()`, parsed now or earlier.
  std::shared_ptr<const Module> parse(uint32_t fileId, Diagnostics& diagnostics);
  // How many parse() calls found their module cached (for tests and measurements).
  size_t hits() const;

  // 8 MiB of source: hundreds of typical modules; a module's AST is tens of times its text.
  static constexpr size_t kDefaultMaxTextBytes = size_t{8} << 20;

 private:
  struct Entry {
    uint32_t fileId = 0;
    std::string text;
    std::shared_ptr<const Module> module;
  };
  using Entries = std::list<Entry>;  // most recently used first
  mutable std::mutex mutex_;
  size_t maxTextBytes_;
  size_t textBytes_ = 0;
  size_t hits_ = 0;
  Entries entries_;
  std::unordered_multimap<size_t, Entries::iterator> byKey_;
};

// parse() through `cache`, or a fresh parse when `cache` is null.
std::shared_ptr<const Module> parseShared(uint32_t fileId, Diagnostics& diagnostics, ParseCache* cache);

}  // namespace weft::syntax
