#include "support/source.h"

namespace weft {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) lineStarts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

uint32_t SourceManager::add(std::string name, std::string text) {
  return add(std::make_shared<const SourceFile>(std::move(name), std::move(text)));
}

uint32_t SourceManager::add(std::shared_ptr<const SourceFile> file) {
  // A compilation holds a few files: the search costs less than an index would.
  for (uint32_t id = 0; id < files_.size(); ++id)
    if (files_[id] == file) return id;
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

}  // namespace weft
