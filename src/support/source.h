// Source files and positions shared by every stage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

// A position in a source file: file id (index into SourceManager), 1-based line,
// 0-based column in UTF-8 bytes (as CPython's col_offset), and the length in bytes
// of the construct on that line (0 when unknown).
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t length = 0;
};

// The text of one Python source file and the offsets of its lines.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  // The file's name as shown in diagnostics and #line directives.
  const std::string& name() const { return name_; }
  // The whole text.
  const std::string& text() const { return text_; }
  // The text of 1-based line `line`, without its newline; empty when out of range.
  std::string_view line(uint32_t line) const;
  // Number of lines.
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

// The source files of one compilation; a SourceLoc's file id indexes it. A file is immutable and
// may be shared with other compilations and with the functions and classes defined in it, so
// that a file of thousands of functions is held once, not once per function.
class SourceManager {
 public:
  // Adds a file and returns its id.
  uint32_t add(std::string name, std::string text);
  // Adds a shared file (not copied) and returns its id; the id it already has when added before.
  uint32_t add(std::shared_ptr<const SourceFile> file);
  // The file with id `id`.
  const SourceFile& file(uint32_t id) const { return *files_.at(id); }
  // Number of files.
  uint32_t size() const { return static_cast<uint32_t>(files_.size()); }

 private:
  std::vector<std::shared_ptr<const SourceFile>> files_;
};

}  // namespace weft
