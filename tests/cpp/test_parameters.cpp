// Parameter descriptions (sema/parameters.cpp): what each annotation declares, resolved through
// the function's globals as the launch path asks for it (aliases and quoted annotations too).
#include <gtest/gtest.h>

#include "sema/sema.h"
#include "sema/static_environment.h"
#include "syntax/syntax.h"

namespace weft::sema {
namespace {

struct Described {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics{sources};
  std::unique_ptr<syntax::Module> module;
  std::optional<std::vector<ParameterDescription>> parameters;
};

// Describes the parameters of function `name` of `text`, its globals resolved statically.
std::unique_ptr<Described> describe(const std::string& text, const std::string& name) {
  auto result = std::make_unique<Described>();
  uint32_t file = result->sources.add("params.py", text);
  result->module = syntax::parse(file, result->diagnostics);
  auto environment = makeStaticEnvironment(*result->module, result->sources.file(file));
  std::shared_ptr<FunctionSource> source = staticFunction(*environment, name);
  if (source == nullptr) {
    source = std::make_shared<FunctionSource>();
    source->file = std::make_shared<SourceFile>("params.py", text);
    source->line = 1;
    source->name = name;
    source->globals = environment;
  }
  result->parameters = describeParameters(*source, result->types, result->sources, result->diagnostics);
  return result;
}

TEST(Parameters, AliasesAndQuotedAnnotationsResolveThroughTheGlobals) {
  auto r = describe(
      "from cuda import device\n"
      "from cuda.device import ConstExpr as CE, float32x4 as V\n"
      "@device.kernel\n"
      "def k(a: device.float32[:, :], n: CE, m: 'device.ConstExpr[device.int64]', x, v: \"V\",\n"
      "      t: tuple[device.int8, None], p: None, q: 'float'):\n"
      "    pass\n",
      "k");
  ASSERT_TRUE(r->parameters.has_value()) << r->diagnostics.render();
  const std::vector<ParameterDescription>& p = *r->parameters;
  ASSERT_EQ(p.size(), 8u);
  using Kind = ParameterDescription::Kind;
  EXPECT_EQ(p[0].name, "a");
  EXPECT_EQ(p[0].kind, Kind::Typed);
  EXPECT_EQ(p[0].type, r->types.array(types::ScalarKind::Float32, 2));
  EXPECT_EQ(p[1].kind, Kind::ConstExpr);
  EXPECT_EQ(p[1].type, nullptr);
  EXPECT_EQ(p[2].kind, Kind::ConstExpr);
  EXPECT_EQ(p[2].type, r->types.scalar(types::ScalarKind::Int64));
  EXPECT_EQ(p[3].kind, Kind::Unannotated);
  EXPECT_EQ(p[4].type, r->types.vector(types::ScalarKind::Float32, 4));
  EXPECT_EQ(p[5].type, r->types.tuple({r->types.scalar(types::ScalarKind::Int8), r->types.none()}));
  EXPECT_EQ(p[6].type, r->types.none());
  EXPECT_EQ(p[7].type, r->types.scalar(types::ScalarKind::Float32));
}

TEST(Parameters, AnAnnotationThatNamesNoDeviceTypeIsReportedAtIt) {
  auto r = describe(
      "import math\nfrom cuda import device\n@device.kernel\ndef k(a, n: math.sqrt, m: 'not valid('):\n    "
      "pass\n",
      "k");
  EXPECT_FALSE(r->parameters.has_value());
  ASSERT_EQ(r->diagnostics.all().size(), 2u) << r->diagnostics.render();
  EXPECT_EQ(r->diagnostics.all()[0].kind, "BadAnnotation");
  EXPECT_EQ(r->diagnostics.all()[0].loc.line, 4u);
  EXPECT_EQ(r->diagnostics.all()[0].loc.column, 12u);
  EXPECT_NE(r->diagnostics.all()[1].message.find("parameter 'm'"), std::string::npos);
}

TEST(Parameters, MissingFunctionsAndStarredParametersAreReported) {
  auto missing = describe("def other(a):\n    pass\n", "k");
  EXPECT_FALSE(missing->parameters.has_value());
  ASSERT_EQ(missing->diagnostics.all().size(), 1u);
  EXPECT_EQ(missing->diagnostics.all()[0].kind, "FunctionNotFound");
  auto starred = describe("from cuda import device\n@device.kernel\ndef k(a, *rest):\n    pass\n", "k");
  EXPECT_FALSE(starred->parameters.has_value());
  ASSERT_EQ(starred->diagnostics.all().size(), 1u);
  EXPECT_EQ(starred->diagnostics.all()[0].kind, "UnsupportedParameter");
}

}  // namespace
}  // namespace weft::sema
