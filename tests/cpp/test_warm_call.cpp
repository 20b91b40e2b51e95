// The caches of a warm first call (issue 9): the per-process parse cache and the hash of weft's
// headers that every disk cache key includes.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/runtime.h"
#include "runtime_test_support.h"
#include "sema/static_environment.h"
#include "support/hash.h"
#include "syntax/parse_cache.h"
#include "syntax/syntax.h"

namespace weft {
namespace {

using test::TemporaryDirectory;

// A module of `functions` random functions, different for every seed.
std::string randomModule(uint32_t seed, int functions) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> constant(0, 1000);
  std::string text = "import weft\n\n";
  for (int f = 0; f < functions; ++f) {
    text += "@weft.kernel\ndef k" + std::to_string(f) + "(a, b):\n";
    text += "    i = weft.tid(1)\n    if i < a.size:\n";
    text += "        a[i] = b[i] * " + std::to_string(constant(generator)) + " + (lambda x: x - " +
            std::to_string(constant(generator)) + ")(i)\n\n";
  }
  return text;
}

std::string freshDump(const std::string& text) {
  SourceManager sources;
  Diagnostics diagnostics(sources);
  std::unique_ptr<syntax::Module> module = syntax::parse(sources.add("m.py", text), diagnostics);
  return module ? syntax::dumpAst(*module, true) : "";
}

// Parses `text` as file 0 of a fresh SourceManager through `cache`.
std::shared_ptr<const syntax::Module> parseThrough(syntax::ParseCache& cache, const std::string& text,
                                                   size_t* reported = nullptr) {
  SourceManager sources;
  Diagnostics diagnostics(sources);
  std::shared_ptr<const syntax::Module> module = cache.parse(sources.add("m.py", text), diagnostics);
  if (reported) *reported = diagnostics.all().size();
  return module;
}

TEST(ParseCache, GivesTheModuleAFreshParseGives) {
  syntax::ParseCache cache;
  std::string text = randomModule(1, 20);
  std::shared_ptr<const syntax::Module> first = parseThrough(cache, text);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache.hits(), 0u);
  std::shared_ptr<const syntax::Module> second = parseThrough(cache, text);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(first, second);  // one module, shared
  EXPECT_EQ(syntax::dumpAst(*second, true), freshDump(text));
}

TEST(ParseCache, AChangedTextOrFileIdMisses) {
  syntax::ParseCache cache;
  std::string text = randomModule(2, 5);
  std::shared_ptr<const syntax::Module> original = parseThrough(cache, text);
  std::string edited = text;
  edited[edited.find("* ") + 2] = edited[edited.find("* ") + 2] == '1' ? '2' : '1';  // same length
  std::shared_ptr<const syntax::Module> changed = parseThrough(cache, edited);
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_NE(original, changed);
  EXPECT_EQ(syntax::dumpAst(*changed, true), freshDump(edited));
  // The same text as another file of its SourceManager: every location names the file's id.
  SourceManager sources;
  Diagnostics diagnostics(sources);
  sources.add("other.py", "x = 1\n");
  std::shared_ptr<const syntax::Module> second = cache.parse(sources.add("m.py", text), diagnostics);
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(second->file, 1u);
  EXPECT_EQ(original->file, 0u);
}

TEST(ParseCache, ASyntaxErrorIsReportedEveryTime) {
  syntax::ParseCache cache;
  for (int i = 0; i < 2; ++i) {
    size_t reported = 0;
    parseThrough(cache, "def f(:\n    pass\n", &reported);
    EXPECT_EQ(reported, 1u) << "parse " << i;
  }
  EXPECT_EQ(cache.hits(), 0u);
}

TEST(ParseCache, KeepsTheMostRecentlyUsedWithinItsBound) {
  std::string a = randomModule(3, 4), b = randomModule(4, 4), c = randomModule(5, 4);
  syntax::ParseCache cache(a.size() + b.size() + c.size() - 1);  // room for two of the three
  parseThrough(cache, a);
  parseThrough(cache, b);
  parseThrough(cache, a);  // a is now the most recently used
  EXPECT_EQ(cache.hits(), 1u);
  parseThrough(cache, c);  // evicts b
  parseThrough(cache, a);
  parseThrough(cache, c);
  EXPECT_EQ(cache.hits(), 3u);
  parseThrough(cache, b);
  EXPECT_EQ(cache.hits(), 3u);
  // A text larger than the whole bound is parsed, not kept.
  syntax::ParseCache tiny(16);
  parseThrough(tiny, a);
  EXPECT_NE(parseThrough(tiny, a), nullptr);
  EXPECT_EQ(tiny.hits(), 0u);
}

TEST(ParseCache, ThreadsShareItSafely) {
  syntax::ParseCache cache(size_t{1} << 16);  // small enough that threads also evict
  std::vector<std::string> texts, dumps;
  for (uint32_t seed = 0; seed < 12; ++seed) {
    texts.push_back(randomModule(100 + seed, 8));
    dumps.push_back(freshDump(texts.back()));
  }
  std::vector<int> wrong(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 generator(t);
      for (int i = 0; i < 200; ++i) {
        size_t which = generator() % texts.size();
        std::shared_ptr<const syntax::Module> module = parseThrough(cache, texts[which]);
        if (!module || syntax::dumpAst(*module, true) != dumps[which]) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_GT(cache.hits(), 0u);
}

// Every specialization and kernel of one file parses it once: the Compiler's front end and
// describeParameters share the Compiler's cache, and its units are a fresh Compiler's.
TEST(ParseCache, TheFrontEndParsesAFileOnce) {
  std::string text = randomModule(7, 3);
  SourceManager moduleSources;
  Diagnostics moduleDiagnostics(moduleSources);
  uint32_t file = moduleSources.add("m.py", text);
  std::unique_ptr<syntax::Module> module = syntax::parse(file, moduleDiagnostics);
  ASSERT_NE(module, nullptr);
  std::shared_ptr<sema::Environment> environment = sema::makeStaticEnvironment(*module, moduleSources.file(file));
  auto request = [&](const std::string& kernel, types::ScalarKind kind, runtime::Compiler& compiler) {
    sema::CheckRequest check;
    const types::Type* array = compiler.types().array(kind, 1);
    check.entries.push_back({sema::staticFunction(*environment, kernel), {{array, {}}, {array, {}}}});
    return check;
  };
  runtime::Compiler compiler(runtime::includeDir());
  {
    SourceManager sources;
    Diagnostics diagnostics(sources);
    ASSERT_TRUE(sema::describeParameters(*sema::staticFunction(*environment, "k0"), compiler.types(), sources,
                                         diagnostics, &compiler.parses()));
  }
  EXPECT_EQ(compiler.parses().hits(), 0u);
  std::vector<std::string> units;
  for (const auto& [kernel, kind] : {std::pair{"k0", types::ScalarKind::Float32}, {"k0", types::ScalarKind::Int64},
                                     {"k2", types::ScalarKind::Float64}}) {
    runtime::FrontEndResult result = compiler.compileFrontEnd(request(kernel, kind, compiler), {});
    ASSERT_TRUE(result.ok) << result.diagnostics.text();
    units.push_back(result.unit.source);
  }
  EXPECT_EQ(compiler.parses().hits(), 3u);
  size_t i = 0;
  for (const auto& [kernel, kind] : {std::pair{"k0", types::ScalarKind::Float32}, {"k0", types::ScalarKind::Int64},
                                     {"k2", types::ScalarKind::Float64}}) {
    runtime::Compiler fresh(runtime::includeDir());
    runtime::FrontEndResult result = fresh.compileFrontEnd(request(kernel, kind, fresh), {});
    EXPECT_EQ(result.unit.source, units[i++]) << kernel;
  }
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

size_t entries(const std::string& directory) {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) ++count;
  return count;
}

TEST(HeadersHash, ChangesWithAnyHeaderAndIsRememberedOtherwise) {
  TemporaryDirectory headers, cacheDirectory;
  backend::DiskCache cache(cacheDirectory.path(), true);
  std::filesystem::path root = headers.path();
  writeFile(root / "device" / "a.h", "#pragma once\nint a();\n");
  writeFile(root / "tiles" / "b.h", "#pragma once\nint b();\n");
  std::string original = runtime::headersHash(headers.path(), cache);
  EXPECT_EQ(original, hashDirectory(headers.path()));
  EXPECT_EQ(entries(cacheDirectory.path()), 1u);
  EXPECT_TRUE(std::filesystem::directory_iterator(cacheDirectory.path())->path().filename().string().starts_with(
      "headers-"));
  EXPECT_EQ(runtime::headersHash(headers.path(), cache), original);
  EXPECT_EQ(entries(cacheDirectory.path()), 1u);  // found, not stored again

  // A header edited in place, of the same size and with its modification time put back.
  struct stat before {};
  ASSERT_EQ(::stat((root / "tiles" / "b.h").c_str(), &before), 0);
  std::string fingerprint = directoryFingerprint(headers.path());
  writeFile(root / "tiles" / "b.h", "#pragma once\nint c();\n");
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (root / "tiles" / "b.h").c_str(), times, 0), 0);
  EXPECT_NE(directoryFingerprint(headers.path()), fingerprint);
  std::string edited = runtime::headersHash(headers.path(), cache);
  EXPECT_NE(edited, original);
  EXPECT_EQ(edited, hashDirectory(headers.path()));

  // The old contents again: the key is the old one (the disk cache's entries serve again).
  writeFile(root / "tiles" / "b.h", "#pragma once\nint b();\n");
  EXPECT_EQ(runtime::headersHash(headers.path(), cache), original);
  // A new header.
  writeFile(root / "device" / "c.h", "\n");
  EXPECT_NE(runtime::headersHash(headers.path(), cache), original);
  // A disabled cache remembers nothing and still hashes the contents.
  backend::DiskCache disabled(cacheDirectory.path(), false);
  EXPECT_EQ(runtime::headersHash(headers.path(), disabled), hashDirectory(headers.path()));
}

}  // namespace
}  // namespace weft
