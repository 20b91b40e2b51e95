// weftc: the command-line compiler. The driver reads like the pipeline:
//   parse -> static environment -> for each annotated @kernel: argument types from the
//   annotations -> check -> emitCuda -> NVRTC (PTX or cubin)
// and each --dump-*/--emit-* option stops after its stage and prints that stage's result.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "sema/sema.h"
#include "sema/static_environment.h"
#include "support/check.h"
#include "support/diagnostics.h"
#include "syntax/syntax.h"
#include "types/type.h"

namespace weft::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

enum class Stage { DumpAst, EmitCuda, Ptx, Cubin, Fatbin };

struct Options {
  std::string input;
  std::string output;  // empty: stdout for text, <stem>.<kernel>.cubin for cubins
  Stage stage = Stage::Cubin;
  std::vector<int> archs;  // each -arch sm_XY as XY, in order, without repeats; default: sm_90
  bool printIncludeDir = false;
};

const char* kUsage =
    "usage: weftc FILE.py [--emit-cuda | --ptx | --cubin | --fatbin | --dump-ast] [-arch sm_XY]... [-o OUT]\n"
    "\n"
    "Compiles every @kernel of FILE.py whose parameters are all annotated\n"
    "(e.g. `def k(a: device.float32[:], n: device.int32)`).\n"
    "\n"
    "  --dump-ast            print the file's AST as CPython's ast.dump(ast.parse(src)) and stop\n"
    "  --emit-cuda           print the CUDA C++ translation unit of each kernel and stop\n"
    "  --ptx                 compile with NVRTC and print the PTX of each kernel\n"
    "  --cubin               compile with NVRTC to a cubin per kernel (the default), written to\n"
    "                        OUT, or to FILE.KERNEL.cubin in the current directory\n"
    "  --fatbin              compile with NVRTC once per -arch and combine the cubins into one\n"
    "                        fatbin per kernel (OUT, or FILE.KERNEL.fatbin); --cubin with several\n"
    "                        -arch does the same\n"
    "  -arch sm_XY           a GPU architecture (default sm_90); repeat it for several: the front\n"
    "                        end runs once and each architecture keeps its own `if target(...)`\n"
    "                        branches\n"
    "  -o OUT                write the output to OUT (several cubins: OUT with .KERNEL before\n"
    "                        its extension)\n"
    "  --print-include-dir   print the directory of weft's device headers and exit\n"
    "  -h, --help            print this help\n"
    "\n"
    "weft's device headers are found at $WEFT_INCLUDE_DIR, else in the installed Python package\n"
    "(<prefix>/lib/pythonX.Y/site-packages/weft/include, <prefix> being the parent of weftc's\n"
    "folder), else in the source tree weftc was built from.\n";

// Parses the command line; nullopt after printing a usage error (or the help).
std::optional<Options> parseArguments(int argc, char** argv, int& exitCode) {
  Options options;
  auto fail = [&](const std::string& message) -> std::optional<Options> {
    std::cerr << "weftc: error: " << message << "\n" << kUsage;
    exitCode = kExitUsage;
    return std::nullopt;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      exitCode = 0;
      return std::nullopt;
    }
    if (arg == "--dump-ast")
      options.stage = Stage::DumpAst;
    else if (arg == "--emit-cuda")
      options.stage = Stage::EmitCuda;
    else if (arg == "--ptx")
      options.stage = Stage::Ptx;
    else if (arg == "--cubin")
      options.stage = Stage::Cubin;
    else if (arg == "--fatbin")
      options.stage = Stage::Fatbin;
    else if (arg == "--print-include-dir")
      options.printIncludeDir = true;
    else if (arg == "-o" || arg == "-arch" || arg == "--arch") {
      if (i + 1 >= argc) return fail(arg + " needs a value");
      std::string value = argv[++i];
      if (arg == "-o") {
        options.output = value;
      } else {
        if (value.rfind("sm_", 0) != 0 || value.size() < 5 ||
            value.find_first_not_of("0123456789", 3) != std::string::npos)
          return fail("-arch takes sm_XY (e.g. sm_90), not '" + value + "'");
        int arch = std::stoi(value.substr(3));
        if (std::find(options.archs.begin(), options.archs.end(), arch) == options.archs.end())
          options.archs.push_back(arch);
      }
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'");
    } else if (options.input.empty()) {
      options.input = arg;
    } else {
      return fail("one input file at a time (got '" + options.input + "' and '" + arg + "')");
    }
  }
  if (options.input.empty() && !options.printIncludeDir) return fail("no input file");
  if (options.archs.empty()) options.archs.push_back(90);
  if (options.stage == Stage::Cubin && options.archs.size() > 1) options.stage = Stage::Fatbin;
  return options;
}

bool hasDeviceHeaders(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(directory / "weft" / "device", error);
}

// The directory holding weft/device/*.h; empty when none is found.
std::string findIncludeDir() {
  if (const char* fromEnvironment = std::getenv("WEFT_INCLUDE_DIR"); fromEnvironment && *fromEnvironment)
    return fromEnvironment;
  std::error_code error;
  fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    // pip installs weftc in <prefix>/bin and the package in <prefix>/lib/pythonX.Y/site-packages.
    fs::path prefix = executable.parent_path().parent_path();
    for (const char* lib : {"lib", "lib64", "local/lib"}) {
      fs::path libDir = prefix / lib;
      if (!fs::is_directory(libDir, error)) continue;
      for (const fs::directory_entry& entry : fs::directory_iterator(libDir, error)) {
        if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
        for (const char* packages : {"site-packages", "dist-packages"}) {
          fs::path candidate = entry.path() / packages / "weft" / "include";
          if (hasDeviceHeaders(candidate)) return candidate.string();
        }
      }
    }
  }
#ifdef WEFT_SOURCE_INCLUDE_DIR
  if (hasDeviceHeaders(WEFT_SOURCE_INCLUDE_DIR)) return WEFT_SOURCE_INCLUDE_DIR;
#endif
  return {};
}

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

// The first parameter of `def` without an annotation (weftc compiles only fully annotated
// kernels: the annotations are its argument types); nullptr when all have one.
const syntax::Arg* firstUnannotated(const syntax::FunctionDefStmt& def) {
  for (const auto* list : {&def.args->posonlyargs, &def.args->args})
    for (const syntax::Arg* arg : *list)
      if (!arg->annotation) return arg;
  return nullptr;
}

// Where the cubin (or fatbin) of `kernel` goes when a file holds `count` kernels.
std::string cubinPath(const Options& options, const std::string& kernel, size_t count) {
  if (options.output.empty())
    return fs::path(options.input).stem().string() + "." + kernel +
           (options.stage == Stage::Fatbin ? ".fatbin" : ".cubin");
  if (count == 1) return options.output;
  fs::path output(options.output);
  return (output.parent_path() / (output.stem().string() + "." + kernel + output.extension().string()))
      .string();
}

// The whole pipeline for one file; returns the exit code.
int compileFile(const Options& options) {
  std::optional<std::string> text = readFile(options.input);
  if (!text) {
    std::cerr << "weftc: error: cannot read '" << options.input << "'\n";
    return kExitError;
  }
  SourceManager sources;
  uint32_t file = sources.add(options.input, *text);
  Diagnostics diagnostics(sources);

  std::unique_ptr<syntax::Module> module = syntax::parse(file, diagnostics);
  if (diagnostics.hasErrors() || !module) {
    std::cerr << diagnostics.render();
    return kExitError;
  }
  if (options.stage == Stage::DumpAst) {
    std::string dump = syntax::dumpAst(*module) + "\n";
    if (options.output.empty())
      std::cout << dump;
    else if (!writeFile(options.output, dump)) {
      std::cerr << "weftc: error: cannot write '" << options.output << "'\n";
      return kExitError;
    }
    return 0;
  }

  std::string includeDir = findIncludeDir();
  if (includeDir.empty() && options.stage != Stage::EmitCuda) {
    std::cerr
        << "weftc: error: weft's device headers (weft/device/*.h) were not found; set WEFT_INCLUDE_DIR to "
           "the folder that holds weft/device\n";
    return kExitError;
  }
  backend::Toolchain toolchain = backend::discoverToolchain(includeDir);
  backend::CompileOptions compileOptions;
  compileOptions.cubin = options.stage != Stage::Ptx;

  types::TypeContext types;
  std::shared_ptr<sema::Environment> environment = sema::makeStaticEnvironment(*module, sources.file(file));
  std::vector<const syntax::FunctionDefStmt*> kernels;
  for (const syntax::FunctionDefStmt* def : sema::listKernels(*module)) {
    if (const syntax::Arg* missing = firstUnannotated(*def)) {
      std::cerr << options.input << ":" << def->loc.line << ":" << def->loc.column + 1
                << ": warning: kernel '" << def->name << "' is not compiled: parameter '" << missing->arg
                << "' has no type annotation (e.g. `" << missing->arg << ": device.float32[:]`)\n";
      continue;
    }
    kernels.push_back(def);
  }
  std::string textOutput;
  bool failed = false;
  for (const syntax::FunctionDefStmt* def : kernels) {
    sema::CheckRequest request;
    request.kernel = sema::staticFunction(*environment, def->name);
    WEFT_CHECK(request.kernel != nullptr, "listKernels named a function the static environment lacks");
    size_t reported = diagnostics.all().size();
    request.arguments = sema::argumentsFromAnnotations(*def, *environment, types, diagnostics);
    if (diagnostics.all().size() != reported) {
      failed = true;
      continue;
    }
    // Each kernel is checked in a compilation of its own, as the runtime does.
    SourceManager kernelSources;
    Diagnostics kernelDiagnostics(kernelSources);
    sema::TypedProgram program = sema::check(request, types, kernelSources, kernelDiagnostics);
    if (kernelDiagnostics.hasErrors()) {
      std::cerr << kernelDiagnostics.render();
      failed = true;
      continue;
    }
    codegen::EmittedUnit unit = codegen::emitCuda(program, kernelSources);
    if (options.stage == Stage::EmitCuda) {
      textOutput += unit.source;
      continue;
    }
    // One front-end pass above; one lowering per architecture here.
    std::vector<std::pair<int, std::string>> images;
    for (int arch : options.archs) {
      compileOptions.arch = arch;
      backend::Artifact image = backend::compileWithNvrtc(toolchain, unit.source, def->name + ".cu", compileOptions);
      if (!image.ok) {
        std::cerr << options.input << ":" << def->loc.line << ":" << def->loc.column + 1
                  << ": error: NVRTC failed to compile kernel '" << def->name << "' for sm_" << arch << ":\n"
                  << image.log;
        failed = true;
        images.clear();
        break;
      }
      images.emplace_back(arch, std::move(image.bytes));
    }
    if (images.empty()) continue;
    backend::Artifact artifact;
    artifact.ok = true;
    if (options.stage == Stage::Fatbin) {
      artifact = backend::createFatbin(toolchain, images);
      if (!artifact.ok) {
        std::cerr << "weftc: error: cannot make a fatbin of kernel '" << def->name << "': " << artifact.log << "\n";
        failed = true;
        continue;
      }
    } else if (options.stage == Stage::Cubin) {
      artifact.bytes = std::move(images.front().second);
    }
    if (options.stage == Stage::Ptx) {
      for (auto& [arch, ptx] : images) textOutput += options.archs.size() > 1 ? "// sm_" + std::to_string(arch) + "\n" + ptx : ptx;
    } else if (std::string path = cubinPath(options, def->name, kernels.size());
               !writeFile(path, artifact.bytes)) {
      std::cerr << "weftc: error: cannot write '" << path << "'\n";
      failed = true;
    }
  }
  if (diagnostics.hasErrors()) {
    std::cerr << diagnostics.render();
    failed = true;
  }
  if (kernels.empty() && !failed)
    std::cerr << options.input << ": warning: no @kernel with annotated parameters; nothing to compile\n";
  if (!textOutput.empty()) {
    if (options.output.empty())
      std::cout << textOutput;
    else if (!writeFile(options.output, textOutput)) {
      std::cerr << "weftc: error: cannot write '" << options.output << "'\n";
      return kExitError;
    }
  }
  return failed ? kExitError : 0;
}

}  // namespace
}  // namespace weft::cli

int main(int argc, char** argv) {
  using namespace weft::cli;
  int exitCode = 0;
  std::optional<Options> options = parseArguments(argc, argv, exitCode);
  if (!options) return exitCode;
  if (options->printIncludeDir) {
    std::string includeDir = findIncludeDir();
    if (includeDir.empty()) {
      std::cerr << "weftc: error: weft's device headers were not found; set WEFT_INCLUDE_DIR\n";
      return kExitError;
    }
    std::cout << includeDir << "\n";
    if (options->input.empty()) return 0;
  }
  try {
    return compileFile(*options);
  } catch (const weft::InternalCompilerError& error) {
    std::cerr << "weftc: internal compiler error: " << error.what()
              << "\nThis is a bug in weft, not in your program; please report it with the input file.\n";
    return kExitError;
  }
}
