// Test helper: parse + check a kernel of a small Python source, with its globals resolved
// statically, and argument types written like annotations ("float32[:, :]", "int32") or
// ConstExpr values ("const 16").
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sema/sema.h"
#include "sema/static_environment.h"
#include "sema/typed_dump.h"
#include "syntax/syntax.h"

namespace weft::testing {

struct CheckedKernel {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics{sources};
  std::unique_ptr<syntax::Module> module;
  sema::TypedProgram program;
  std::string dump;    // dumpTypedProgram, when there were no errors
  std::string errors;  // rendered diagnostics
  // The kinds of the reported diagnostics, in order.
  std::vector<std::string> kinds() const {
    std::vector<std::string> result;
    for (const Diagnostic& d : diagnostics.all()) result.emplace_back(d.kind);
    return result;
  }
  bool ok() const { return !diagnostics.hasErrors(); }
};

inline const types::Type* typeFromSpec(const std::string& spec, types::TypeContext& types) {
  size_t bracket = spec.find('[');
  std::string name = spec.substr(0, bracket);
  auto kind = types::scalarFromName(name);
  if (!kind) return types.error();
  if (bracket == std::string::npos) return types.scalar(*kind);
  int ndim = 0;
  for (char c : spec) ndim += c == ':' ? 1 : 0;
  return types.array(*kind, ndim);
}

inline std::unique_ptr<CheckedKernel> checkKernel(const std::string& source, const std::string& kernel,
                                                  const std::vector<std::string>& args, bool debug = false) {
  auto result = std::make_unique<CheckedKernel>();
  uint32_t file = result->sources.add("test.py", source);
  result->module = syntax::parse(file, result->diagnostics);
  if (!result->module || result->diagnostics.hasErrors()) {
    result->errors = result->diagnostics.render();
    return result;
  }
  auto environment = sema::makeStaticEnvironment(*result->module, result->sources.file(file));
  sema::CheckRequest request;
  request.entries.push_back({sema::staticFunction(*environment, kernel), {}});
  request.debug = debug;
  for (const std::string& spec : args) {
    sema::ArgumentInfo info;
    if (spec.starts_with("const ")) {
      sema::ConstValue value;
      std::string text = spec.substr(6);
      if (text.find('.') != std::string::npos) {
        value.kind = sema::ConstValue::Kind::Float;
        value.floatValue = std::stod(text);
      } else {
        value.kind = sema::ConstValue::Kind::Int;
        value.intValue = std::stoll(text);
      }
      info.constant = value;
      info.type = result->types.scalar(value.kind == sema::ConstValue::Kind::Int ? types::ScalarKind::Int32
                                                                                 : types::ScalarKind::Float32);
    } else {
      info.type = typeFromSpec(spec, result->types);
    }
    request.entries[0].arguments.push_back(info);
  }
  result->program = sema::check(request, result->types, result->sources, result->diagnostics);
  result->errors = result->diagnostics.render();
  if (!result->diagnostics.hasErrors()) result->dump = sema::dumpTypedProgram(result->program);
  return result;
}

// Checks kernel `kernel` of `source` (named `fileName`) with its argument types taken from its
// annotations, as weftc does; `pipelineStages`: CheckRequest::pipelineStages (a kernel's stages=).
inline std::unique_ptr<CheckedKernel> checkAnnotated(const std::string& source, const std::string& kernel,
                                                     const std::string& fileName, int pipelineStages = 0) {
  auto result = std::make_unique<CheckedKernel>();
  uint32_t file = result->sources.add(fileName, source);
  result->module = syntax::parse(file, result->diagnostics);
  if (!result->module || result->diagnostics.hasErrors()) {
    result->errors = result->diagnostics.render();
    return result;
  }
  auto environment = sema::makeStaticEnvironment(*result->module, result->sources.file(file));
  sema::CheckRequest request;
  request.pipelineStages = pipelineStages;
  for (const syntax::FunctionDefStmt* def : sema::listEntryPoints(*result->module)) {
    if (def->name == kernel)
      request.entries.push_back(sema::entryFromAnnotations(*def, *environment, result->types, result->diagnostics));
  }
  if (!request.entries.empty() && !result->diagnostics.hasErrors())
    result->program = sema::check(request, result->types, result->sources, result->diagnostics);
  result->errors = result->diagnostics.render();
  if (!result->diagnostics.hasErrors()) result->dump = sema::dumpTypedProgram(result->program);
  return result;
}

// Compiles `source` (an emitted unit) with the host compiler for the CPU target and, where the
// toolkit is installed, with nvcc for sm_90 (whose front end is NVRTC's, but which also evaluates
// the offsetof asserts); both must accept it.
inline void expectUnitCompiles(const std::string& source, const std::string& tag) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("weft_" + tag + "_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "unit.cpp") << source;
  std::string host = "c++ -std=c++20 -fsyntax-only -DWEFT_HOST -I" WEFT_SOURCE_DIR "/include " +
                     (dir / "unit.cpp").string() + " 2> " + (dir / "host.log").string();
  EXPECT_EQ(std::system(host.c_str()), 0) << source;
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (access(nvcc, X_OK) == 0) {
    std::ofstream(dir / "unit.cu") << source;
    std::string device = std::string(nvcc) + " -std=c++17 -arch=sm_90 -cubin -I" WEFT_SOURCE_DIR "/include " +
                         (dir / "unit.cu").string() + " -o " + (dir / "unit.cubin").string() + " 2> " +
                         (dir / "nvcc.log").string();
    EXPECT_EQ(std::system(device.c_str()), 0) << source;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace weft::testing
