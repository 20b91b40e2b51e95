// weftc: the command-line compiler. The driver reads like the pipeline:
//   parse -> static environment -> the file's entry points (annotated @kernels and
//   interoperable functions) -> check -> emitCuda (one unit) -> NVRTC per architecture
//   (PTX, cubin, LTO-IR) -> fatbinary or nvJitLink
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

enum class Stage { DumpAst, EmitCuda, Ptx, Cubin, Fatbin, LtoIr };

struct Options {
  std::string input;
  std::string output;  // empty: stdout for text, <stem>.cubin (.fatbin, .ltoir) for binaries
  Stage stage = Stage::Cubin;
  std::vector<int> archs;  // each -arch sm_XY as XY, in order, without repeats; default: sm_90
  bool relocatable = false;
  std::vector<std::string> links;  // --link FILE, in order
  bool printIncludeDir = false;
};

const char* kUsage =
    "usage: weftc FILE.py [--emit-cuda | --ptx | --cubin | --fatbin | --ltoir | --dump-ast] [-arch sm_XY]...\n"
    "             [-rdc] [--link FILE]... [-o OUT]\n"
    "\n"
    "Compiles the entry points of FILE.py into one translation unit: every @kernel whose\n"
    "parameters are all annotated (e.g. `def k(a: device.float32[:], n: device.int32)`) and every\n"
    "@func(interop=True). Interoperable functions and kernels keep their Python names as extern \"C\"\n"
    "symbols; other kernels are weft_<name>_<n>_<hash>.\n"
    "\n"
    "  --dump-ast            print the file's AST as CPython's ast.dump(ast.parse(src)) and stop\n"
    "  --emit-cuda           print the CUDA C++ translation unit and stop (nvcc -rdc=true compiles\n"
    "                        it with -I$(weftc --print-include-dir))\n"
    "  --ptx                 compile with NVRTC and print the PTX\n"
    "  --cubin               compile with NVRTC to a cubin (the default), written to OUT, or to\n"
    "                        FILE.cubin in the current directory\n"
    "  --fatbin              compile with NVRTC once per -arch and combine the cubins into one\n"
    "                        fatbin (OUT, or FILE.fatbin); --cubin with several -arch does the same\n"
    "  --ltoir               compile to relocatable LTO-IR for nvJitLink (OUT, or FILE.ltoir)\n"
    "  -arch sm_XY           a GPU architecture (default sm_90); repeat it for several: the front\n"
    "                        end runs once and each architecture keeps its own `if target(...)`\n"
    "                        branches\n"
    "  -rdc                  relocatable device code (--cubin, --ptx): extern functions may be\n"
    "                        defined in code linked later\n"
    "  --link FILE           link the unit with FILE through nvJitLink into one cubin (one -arch):\n"
    "                        CUDA C++ (.cu, compiled by NVRTC with weft's headers on the include\n"
    "                        path), .ltoir, .cubin, .ptx, .fatbin, .o or .a; repeatable\n"
    "  -o OUT                write the output to OUT\n"
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
    else if (arg == "--ltoir")
      options.stage = Stage::LtoIr;
    else if (arg == "-rdc")
      options.relocatable = true;
    else if (arg == "--print-include-dir")
      options.printIncludeDir = true;
    else if (arg == "-o" || arg == "-arch" || arg == "--arch" || arg == "--link") {
      if (i + 1 >= argc) return fail(arg + " needs a value");
      std::string value = argv[++i];
      if (arg == "-o") {
        options.output = value;
      } else if (arg == "--link") {
        options.links.push_back(value);
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
  if (!options.links.empty()) {
    if (options.stage != Stage::Cubin) return fail("--link produces a cubin; it cannot be used with another output");
    if (options.archs.size() > 1) return fail("--link links for one architecture; give one -arch");
  }
  if (options.stage == Stage::LtoIr && options.archs.size() > 1) return fail("--ltoir takes one -arch");
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

// Where a binary output goes: OUT, or FILE's stem with `extension` in the current directory.
std::string outputPath(const Options& options, const std::string& extension) {
  if (!options.output.empty()) return options.output;
  return fs::path(options.input).stem().string() + extension;
}

// What a --link file holds, by its extension; nullopt for an unknown one.
std::optional<backend::LinkInput::Kind> linkKind(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  if (extension == ".cu" || extension == ".ltoir") return backend::LinkInput::Kind::LtoIr;
  if (extension == ".cubin") return backend::LinkInput::Kind::Cubin;
  if (extension == ".ptx") return backend::LinkInput::Kind::Ptx;
  if (extension == ".fatbin") return backend::LinkInput::Kind::Fatbin;
  if (extension == ".o") return backend::LinkInput::Kind::Object;
  if (extension == ".a") return backend::LinkInput::Kind::Library;
  return std::nullopt;
}

// The unit and the --link files as nvJitLink inputs, linked into one cubin; false after
// reporting. A .cu file is compiled by NVRTC to LTO-IR with weft's headers and the folder of
// the .cu file on its include path.
bool linkUnit(const Options& options, const backend::Toolchain& toolchain, const std::string& unit,
              std::string& cubin) {
  backend::CompileOptions compileOptions;
  compileOptions.arch = options.archs.front();
  compileOptions.output = backend::DeviceCode::LtoIr;
  std::vector<backend::LinkInput> inputs;
  backend::Artifact weft = backend::compileWithNvrtc(toolchain, unit, fs::path(options.input).filename().string() + ".cu",
                                                     compileOptions);
  if (!weft.ok) {
    std::cerr << "weftc: error: NVRTC failed to compile the unit of " << options.input << ":\n" << weft.log;
    return false;
  }
  inputs.push_back({backend::LinkInput::Kind::LtoIr, options.input, std::move(weft.bytes)});
  for (const std::string& path : options.links) {
    std::optional<backend::LinkInput::Kind> kind = linkKind(path);
    std::optional<std::string> bytes = readFile(path);
    if (!kind || !bytes) {
      std::cerr << "weftc: error: cannot link '" << path << "': "
                << (!kind ? "unknown kind of file (link .cu, .ltoir, .cubin, .ptx, .fatbin, .o or .a)" : "cannot read it")
                << "\n";
      return false;
    }
    if (fs::path(path).extension() == ".cu") {
      backend::CompileOptions cuda = compileOptions;
      cuda.includeDirs.push_back(fs::absolute(path).parent_path().string());
      backend::Artifact compiled = backend::compileWithNvrtc(toolchain, *bytes, path, cuda);
      if (!compiled.ok) {
        std::cerr << "weftc: error: NVRTC failed to compile '" << path << "':\n" << compiled.log;
        return false;
      }
      bytes = std::move(compiled.bytes);
    }
    inputs.push_back({*kind, path, std::move(*bytes)});
  }
  backend::Artifact linked = backend::linkWithNvJitLink(toolchain, inputs, compileOptions.arch);
  if (!linked.ok) {
    std::cerr << "weftc: error: " << linked.log << "\n";
    return false;
  }
  cubin = std::move(linked.bytes);
  return true;
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

  // The front end runs once, for every entry point together.
  types::TypeContext types;
  std::shared_ptr<sema::Environment> environment = sema::makeStaticEnvironment(*module, sources.file(file));
  sema::CheckRequest request;
  for (const syntax::FunctionDefStmt* def : sema::listEntryPoints(*module)) {
    const syntax::Arg* missing = firstUnannotated(*def);
    if (missing != nullptr && sema::isKernelDefinition(*def) && !sema::isInteropDefinition(*def)) {
      std::cerr << options.input << ":" << def->loc.line << ":" << def->loc.column + 1 << ": warning: kernel '"
                << def->name << "' is not compiled: parameter '" << missing->arg
                << "' has no type annotation (e.g. `" << missing->arg << ": device.float32[:]`)\n";
      continue;
    }
    request.entries.push_back(sema::entryFromAnnotations(*def, *environment, types, diagnostics));
  }
  if (diagnostics.hasErrors()) {
    std::cerr << diagnostics.render();
    return kExitError;
  }
  if (request.entries.empty()) {
    std::cerr << options.input
              << ": warning: no @kernel with annotated parameters and no @func(interop=True); nothing to compile\n";
    return 0;
  }
  SourceManager unitSources;
  Diagnostics unitDiagnostics(unitSources);
  sema::TypedProgram program = sema::check(request, types, unitSources, unitDiagnostics);
  if (unitDiagnostics.hasErrors()) {
    std::cerr << unitDiagnostics.render();
    return kExitError;
  }
  std::string unit = codegen::emitCuda(program, unitSources).source;

  std::string output;
  std::string path;
  if (options.stage == Stage::EmitCuda) {
    output = unit;
  } else if (!options.links.empty()) {
    if (!linkUnit(options, toolchain, unit, output)) return kExitError;
    path = outputPath(options, ".cubin");
  } else {
    // One lowering per architecture.
    backend::CompileOptions compileOptions;
    compileOptions.output = options.stage == Stage::Ptx     ? backend::DeviceCode::Ptx
                            : options.stage == Stage::LtoIr ? backend::DeviceCode::LtoIr
                                                            : backend::DeviceCode::Cubin;
    compileOptions.relocatable = options.relocatable;
    std::vector<std::pair<int, std::string>> images;
    for (int arch : options.archs) {
      compileOptions.arch = arch;
      backend::Artifact image =
          backend::compileWithNvrtc(toolchain, unit, fs::path(options.input).filename().string() + ".cu", compileOptions);
      if (!image.ok) {
        std::cerr << options.input << ": error: NVRTC failed to compile for sm_" << arch << ":\n" << image.log;
        return kExitError;
      }
      images.emplace_back(arch, std::move(image.bytes));
    }
    if (options.stage == Stage::Ptx) {
      for (auto& [arch, ptx] : images) output += options.archs.size() > 1 ? "// sm_" + std::to_string(arch) + "\n" + ptx : ptx;
    } else if (options.stage == Stage::Fatbin) {
      backend::Artifact fatbin = backend::createFatbin(toolchain, images);
      if (!fatbin.ok) {
        std::cerr << "weftc: error: cannot make a fatbin: " << fatbin.log << "\n";
        return kExitError;
      }
      output = std::move(fatbin.bytes);
      path = outputPath(options, ".fatbin");
    } else {
      output = std::move(images.front().second);
      path = outputPath(options, options.stage == Stage::LtoIr ? ".ltoir" : ".cubin");
    }
  }
  if (path.empty() && options.output.empty()) {
    std::cout << output;
  } else if (std::string to = path.empty() ? options.output : path; !writeFile(to, output)) {
    std::cerr << "weftc: error: cannot write '" << to << "'\n";
    return kExitError;
  }
  return 0;
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
