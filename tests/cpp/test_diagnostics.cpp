// Diagnostics: the detached report the runtime keeps and the Python binding converts.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "support/diagnostics.h"

namespace weft {
namespace {

constexpr DiagnosticKind kTestKind{"TestKind", "'{0}' went wrong"};

TEST(SourceManager, SharesAFileWithoutCopyingItAndGivesItOneId) {
  auto shared = std::make_shared<const SourceFile>("shared.py", "a = 1\nb = 2\n");
  SourceManager sources;
  uint32_t own = sources.add("own.py", "c = 3\n");
  uint32_t first = sources.add(shared);
  EXPECT_NE(first, own);
  EXPECT_EQ(sources.add(shared), first);
  EXPECT_EQ(&sources.file(first), shared.get());
  EXPECT_EQ(sources.file(first).line(2), "b = 2");
  EXPECT_EQ(sources.size(), 2u);
  // A file added by name and text is a new one, even with the same name and text.
  EXPECT_NE(sources.add("shared.py", "a = 1\nb = 2\n"), first);
}

TEST(Diagnostics, DetachedReportOutlivesItsSources) {
  std::optional<DiagnosticReport> report;
  std::string rendered;
  {
    SourceManager sources;
    sources.add("first.py", "a = 1\n");
    uint32_t file = sources.add("kernel.py", "x = 1\ny = x + z\n");
    Diagnostics diagnostics(sources);
    Diagnostic& error = diagnostics.error(kTestKind, SourceLoc{file, 2, 8, 1}, {"z"});
    error.notes.push_back({SourceLoc{file, 1, 0, 1}, "x is defined here"});
    error.notes.push_back({SourceLoc{}, "a note without a position"});
    diagnostics.error(kTestKind, SourceLoc{}, {"nothing"});
    rendered = diagnostics.render();
    report = diagnostics.detach();
  }
  ASSERT_EQ(report->diagnostics.size(), 2u);
  ASSERT_EQ(report->rendered.size(), 2u);
  EXPECT_EQ(report->text(), rendered);
  EXPECT_EQ(report->rendered[0].rfind("kernel.py:2:9: error: 'z' went wrong [TestKind]\n", 0), 0u) << rendered;
  const Diagnostic& first = report->diagnostics[0];
  EXPECT_EQ(first.kind, "TestKind");
  EXPECT_EQ(first.message, "'z' went wrong");
  ASSERT_NE(report->fileName(first.loc), nullptr);
  EXPECT_EQ(*report->fileName(first.loc), "kernel.py");
  ASSERT_EQ(first.notes.size(), 2u);
  EXPECT_EQ(*report->fileName(first.notes[0].loc), "kernel.py");
  EXPECT_EQ(report->fileName(first.notes[1].loc), nullptr);
  EXPECT_EQ(report->fileName(report->diagnostics[1].loc), nullptr);
  EXPECT_EQ(report->rendered[1], "error: 'nothing' went wrong [TestKind]\n");
  EXPECT_EQ(severityName(Severity::Warning), "warning");
}

}  // namespace
}  // namespace weft
