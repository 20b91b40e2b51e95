#include "support/diagnostics.h"

namespace weft {

std::string formatMessage(std::string_view format, std::initializer_list<std::string_view> args) {
  std::string out;
  out.reserve(format.size() + 16);
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      size_t close = format.find('}', i);
      if (close != std::string_view::npos) {
        size_t index = 0;
        bool numeric = close > i + 1;
        for (size_t j = i + 1; j < close; ++j) {
          if (format[j] < '0' || format[j] > '9') numeric = false;
          else index = index * 10 + static_cast<size_t>(format[j] - '0');
        }
        if (numeric && index < args.size()) {
          out += *(args.begin() + index);
          i = close;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

Diagnostic& Diagnostics::report(Severity severity, const DiagnosticKind& kind, SourceLoc loc,
                                std::initializer_list<std::string_view> args) {
  if (severity == Severity::Error) ++errorCount_;
  diagnostics_.push_back(Diagnostic{severity, loc, kind.name, formatMessage(kind.format, args), {}});
  return diagnostics_.back();
}

Diagnostic& Diagnostics::error(const DiagnosticKind& kind, SourceLoc loc,
                               std::initializer_list<std::string_view> args) {
  return report(Severity::Error, kind, loc, args);
}

Diagnostic& Diagnostics::warning(const DiagnosticKind& kind, SourceLoc loc,
                                 std::initializer_list<std::string_view> args) {
  return report(Severity::Warning, kind, loc, args);
}

std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

namespace {

void renderLocated(const SourceManager& sources, SourceLoc loc, Severity severity,
                   std::string_view message, std::string_view kind, std::string& out) {
  bool located = loc.line != 0 && loc.file < sources.size();
  if (located) {
    const SourceFile& file = sources.file(loc.file);
    out += file.name() + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column + 1) + ": ";
  }
  out += severityName(severity);
  out += ": ";
  out += message;
  if (!kind.empty()) {
    out += " [";
    out += kind;
    out += "]";
  }
  out += "\n";
  if (!located) return;
  std::string_view text = sources.file(loc.file).line(loc.line);
  if (text.empty()) return;
  out += "    ";
  out += text;
  out += "\n    ";
  for (uint32_t i = 0; i < loc.column && i < text.size(); ++i) out += text[i] == '\t' ? '\t' : ' ';
  out += '^';
  for (uint32_t i = 1; i < loc.length && loc.column + i < text.size(); ++i) out += '~';
  out += "\n";
}

}  // namespace

std::string Diagnostics::render(const Diagnostic& diagnostic) const {
  std::string out;
  renderLocated(*sources_, diagnostic.loc, diagnostic.severity, diagnostic.message, diagnostic.kind, out);
  for (const DiagnosticNote& note : diagnostic.notes) {
    renderLocated(*sources_, note.loc, Severity::Note, note.message, {}, out);
  }
  return out;
}

std::string Diagnostics::render() const {
  std::string out;
  for (const Diagnostic& diagnostic : diagnostics_) out += render(diagnostic);
  return out;
}

DiagnosticReport Diagnostics::detach() const {
  DiagnosticReport report;
  report.diagnostics = diagnostics_;
  for (const Diagnostic& diagnostic : diagnostics_) report.rendered.push_back(render(diagnostic));
  for (uint32_t file = 0; file < sources_->size(); ++file) report.fileNames.push_back(sources_->file(file).name());
  return report;
}

const std::string* DiagnosticReport::fileName(SourceLoc loc) const {
  return loc.line != 0 && loc.file < fileNames.size() ? &fileNames[loc.file] : nullptr;
}

std::string DiagnosticReport::text() const {
  std::string out;
  for (const std::string& text : rendered) out += text;
  return out;
}

}  // namespace weft
