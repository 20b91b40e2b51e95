// Diagnostics are values collected by an engine; nothing below the driver prints.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "support/source.h"

namespace weft {

enum class Severity { Error, Warning, Note };

// The word a diagnostic of `severity` is printed with: "error", "warning", "note".
std::string_view severityName(Severity severity);

// A kind of diagnostic: a stable name (printed as `[Name]`) and a message format whose
// `{0}`, `{1}`, ... are replaced by the arguments. Each stage declares its kinds in its own
// `*_diagnostics.def` list with WEFT_DIAGNOSTIC(Name, "format").
struct DiagnosticKind {
  std::string_view name;
  std::string_view format;
};

// A note attached to a diagnostic, e.g. "inferred int32 from the assignment at line 12".
struct DiagnosticNote {
  SourceLoc loc;  // line == 0 when the note has no position
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string_view kind;  // DiagnosticKind::name
  std::string message;
  std::vector<DiagnosticNote> notes;
};

// Diagnostics detached from the SourceManager of their compilation, so that they outlive it:
// the runtime keeps a compilation's, and the Python binding turns them into Python values.
struct DiagnosticReport {
  std::vector<Diagnostic> diagnostics;  // in the order they were reported
  std::vector<std::string> rendered;    // rendered[i]: diagnostics[i] as Diagnostics::render prints it
  std::vector<std::string> fileNames;   // the file names, by SourceLoc::file
  // The name of the file `loc` points into; null for a location without a position.
  const std::string* fileName(SourceLoc loc) const;
  // Every diagnostic rendered, in order (Diagnostics::render()).
  std::string text() const;
};

// Replaces `{N}` in `format` by args[N]; `{{` and `}}` are literal braces.
std::string formatMessage(std::string_view format, std::initializer_list<std::string_view> args);

// Collects the diagnostics of one compilation.
class Diagnostics {
 public:
  explicit Diagnostics(const SourceManager& sources) : sources_(&sources) {}
  // Reports an error of `kind` at `loc`; returns it so that notes can be added.
  Diagnostic& error(const DiagnosticKind& kind, SourceLoc loc,
                    std::initializer_list<std::string_view> args = {});
  // Reports a warning of `kind` at `loc`.
  Diagnostic& warning(const DiagnosticKind& kind, SourceLoc loc,
                      std::initializer_list<std::string_view> args = {});
  // True when an error was reported.
  bool hasErrors() const { return errorCount_ > 0; }
  // All diagnostics in the order they were reported.
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  // Renders every diagnostic as `file:line:col: error: message [Kind]`, the source line and
  // a caret under the column, then its notes.
  std::string render() const;
  // Renders one diagnostic as render() does.
  std::string render(const Diagnostic& diagnostic) const;
  const SourceManager& sources() const { return *sources_; }
  // A copy of every diagnostic, rendered, with the names of the files they point into.
  DiagnosticReport detach() const;

 private:
  Diagnostic& report(Severity severity, const DiagnosticKind& kind, SourceLoc loc,
                     std::initializer_list<std::string_view> args);
  const SourceManager* sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t errorCount_ = 0;
};

}  // namespace weft
