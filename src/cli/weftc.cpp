// weftc: the command-line compiler. The driver reads like the pipeline:
//   parse -> static environment -> the file's entry points (annotated @kernels and
//   interoperable functions) -> check -> emitCuda (one unit) -> [the interoperable ABI check]
//   -> NVRTC per virtual architecture (PTX, cubin, LTO-IR) -> nvJitLink (PTX to SASS for
//   another target, --link) -> fatbinary
// and each --dump-*/--emit-* option stops after its stage and prints that stage's result.
// The command line (arguments.h) takes nvcc's spellings of targets.
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
#include "cli/arguments.h"
#include "codegen/codegen.h"
#include "sema/sema.h"
#include "sema/static_environment.h"
#include "sema/typed_dump.h"
#include "support/check.h"
#include "support/diagnostics.h"
#include "syntax/syntax.h"
#include "types/type.h"

namespace weft::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitError = 1;

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

// The name NVRTC gives the unit in its messages.
std::string unitName(const Options& options) { return fs::path(options.input).filename().string() + ".cu"; }

// Reports a failed NVRTC compile; returns false.
bool reportNvrtcFailure(const Options& options, const backend::Artifact& artifact, const backend::CompileOptions& compile) {
  if (artifact.refused) {
    std::cerr << "weftc: error: " << artifact.log << "\n";
  } else {
    bool virtualArch = compile.output != backend::DeviceCode::Cubin;
    std::cerr << options.input << ": error: NVRTC failed to compile for "
              << sema::targetName(compile.target, virtualArch ? "compute_" : "sm_") << ":\n" << artifact.log;
  }
  return false;
}

// The unit and the --link files as nvJitLink inputs, linked into one cubin; false after
// reporting. A .cu file is compiled by NVRTC to LTO-IR with weft's headers and the folder of
// the .cu file on its include path.
bool linkUnit(const Options& options, const backend::Toolchain& toolchain, const std::string& unit,
              std::string& cubin) {
  const Image& image = *std::find_if(options.images.begin(), options.images.end(),
                                     [](const Image& candidate) { return candidate.sass.has_value(); });
  backend::CompileOptions compileOptions;
  compileOptions.target = image.virtualArch;
  compileOptions.output = backend::DeviceCode::LtoIr;
  std::vector<backend::LinkInput> inputs;
  backend::Artifact weft = backend::compileWithNvrtc(toolchain, unit, unitName(options), compileOptions);
  if (!weft.ok) return reportNvrtcFailure(options, weft, compileOptions);
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
  backend::Artifact linked = backend::linkWithNvJitLink(toolchain, inputs, *image.sass);
  if (!linked.ok) {
    std::cerr << "weftc: error: " << linked.log << "\n";
    return false;
  }
  cubin = std::move(linked.bytes);
  return true;
}

// Writes a stage's result to -o OUT, else to `path` (binaries), else to stdout; the exit code.
int writeOutput(const Options& options, const std::string& path, const std::string& bytes) {
  std::string to = options.output.empty() ? path : options.output;
  if (to.empty()) {
    std::cout << bytes;
  } else if (!writeFile(to, bytes)) {
    std::cerr << "weftc: error: cannot write '" << to << "'\n";
    return kExitError;
  }
  return 0;
}

// Evaluates the unit's static_asserts of its interoperable signatures' machine representations
// against libcu++, which NVRTC compiles only here (with WEFT_INTEROP_ABI_CHECK, checking without
// generating code): including libcu++ in the unit itself would put its globals in every cubin.
// False after reporting.
bool checkInteropAbi(const Options& options, const backend::Toolchain& toolchain, const std::string& unit) {
  backend::CompileOptions check;
  check.target = options.images.front().virtualArch;
  check.output = backend::DeviceCode::CheckOnly;
  check.defines.push_back(codegen::kInteropAbiCheckMacro);
  backend::Artifact checked = backend::compileWithNvrtc(toolchain, unit, unitName(options), check);
  if (checked.ok) return true;
  if (checked.refused) return reportNvrtcFailure(options, checked, check);
  std::cerr << options.input
            << ": error: the machine representation of an interoperable signature disagrees with the CUDA C++ type "
               "the specification names (a weft bug; please report it):\n"
            << checked.log;
  return false;
}

// Compiles the unit into what the stage makes of options.images: the PTX (--ptx) or LTO-IR
// (--ltoir) of each virtual architecture, one after another; the cubin (--cubin); or a fatbin of
// every image. SASS for the virtual architecture's own target comes from NVRTC, SASS for another
// target from the PTX through nvJitLink. False after reporting.
bool compileImages(const Options& options, const backend::Toolchain& toolchain, const std::string& unit,
                   std::string& output) {
  backend::CompileOptions compile;
  compile.relocatable = options.relocatable;
  std::vector<sema::GpuTarget> virtualArchs = virtualArchitectures(options.images);
  if (options.stage == Stage::Ptx || options.stage == Stage::LtoIr) {
    compile.output = options.stage == Stage::Ptx ? backend::DeviceCode::Ptx : backend::DeviceCode::LtoIr;
    for (sema::GpuTarget virtualArch : virtualArchs) {
      compile.target = virtualArch;
      backend::Artifact code = backend::compileWithNvrtc(toolchain, unit, unitName(options), compile);
      if (!code.ok) return reportNvrtcFailure(options, code, compile);
      output += (virtualArchs.size() > 1 ? "// " + sema::targetName(virtualArch) + "\n" : "") + code.bytes;
    }
    return true;
  }
  std::vector<std::pair<sema::GpuTarget, std::string>> ptx;  // each virtual architecture's, once
  auto ptxOf = [&](sema::GpuTarget virtualArch) -> const std::string* {
    for (const auto& [arch, code] : ptx)
      if (arch == virtualArch) return &code;
    compile.target = virtualArch;
    compile.output = backend::DeviceCode::Ptx;
    backend::Artifact code = backend::compileWithNvrtc(toolchain, unit, unitName(options), compile);
    if (!code.ok) return reportNvrtcFailure(options, code, compile), nullptr;
    return &ptx.emplace_back(virtualArch, std::move(code.bytes)).second;
  };
  std::vector<backend::FatbinImage> images;
  for (const Image& image : options.images) {
    if (!image.sass && options.stage != Stage::Fatbin) continue;
    if (image.sass == image.virtualArch) {
      compile.target = image.virtualArch;
      compile.output = backend::DeviceCode::Cubin;
      backend::Artifact cubin = backend::compileWithNvrtc(toolchain, unit, unitName(options), compile);
      if (!cubin.ok) return reportNvrtcFailure(options, cubin, compile);
      images.push_back({backend::FatbinImage::Kind::Cubin, image.virtualArch, std::move(cubin.bytes)});
      continue;
    }
    const std::string* code = ptxOf(image.virtualArch);
    if (code == nullptr) return false;
    if (!image.sass) {
      images.push_back({backend::FatbinImage::Kind::Ptx, image.virtualArch, *code});
      continue;
    }
    backend::Artifact cubin =
        backend::linkWithNvJitLink(toolchain, {{backend::LinkInput::Kind::Ptx, options.input, *code}}, *image.sass);
    if (!cubin.ok) {
      std::cerr << "weftc: error: cannot compile the PTX of " << sema::targetName(image.virtualArch, "compute_")
                << " for " << sema::targetName(*image.sass) << ": " << cubin.log << "\n";
      return false;
    }
    images.push_back({backend::FatbinImage::Kind::Cubin, *image.sass, std::move(cubin.bytes)});
  }
  if (options.stage == Stage::Cubin) {
    output = std::move(images.front().bytes);
    return true;
  }
  backend::Artifact fatbin = backend::createFatbin(toolchain, images);
  if (!fatbin.ok) {
    std::cerr << "weftc: error: cannot make a fatbin: " << fatbin.log << "\n";
    return false;
  }
  output = std::move(fatbin.bytes);
  return true;
}

// --version, --list-gpu-arch, --list-gpu-code: what weftc and its NVRTC are; false when a
// list was asked for and NVRTC cannot be loaded.
bool printToolkitFacts(const Options& options) {
  backend::Toolchain toolchain = backend::discoverToolchain(findIncludeDir());
  std::string nvrtc = backend::nvrtcVersion(toolchain);
  if (options.printVersion) {
    std::cout << "weftc (weft) " << WEFT_VERSION << "\n"
              << (nvrtc.empty() ? std::string("NVRTC: not found (set CUDA_HOME)")
                                : "NVRTC " + nvrtc + (toolchain.cudaHome.empty() ? "" : " (CUDA toolkit at " + toolchain.cudaHome + ")"))
              << "\n";
  }
  if (!options.listGpuArch && !options.listGpuCode) return true;
  if (nvrtc.empty()) {
    std::cerr << "weftc: error: NVRTC was not found (set CUDA_HOME)\n";
    return false;
  }
  for (sema::GpuTarget target : backend::nvrtcSupportedTargets(toolchain)) {
    if (options.listGpuArch) std::cout << sema::targetName(target, "compute_") << "\n";
    if (options.listGpuCode) std::cout << sema::targetName(target) << "\n";
  }
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
  if (options.stage == Stage::DumpAst) return writeOutput(options, {}, syntax::dumpAst(*module) + "\n");

  std::string includeDir = findIncludeDir();
  if (includeDir.empty() && options.stage != Stage::EmitCuda && options.stage != Stage::DumpTypes) {
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
  if (options.stage == Stage::DumpTypes) return writeOutput(options, {}, sema::dumpTypedProgram(program));
  codegen::EmittedUnit unit = codegen::emitCuda(program, unitSources);
  if (options.stage == Stage::EmitCuda) return writeOutput(options, {}, unit.source);
  if (unit.hasInteropAbiCheck && !checkInteropAbi(options, toolchain, unit.source)) return kExitError;

  std::string output;
  if (!options.links.empty()) {
    if (!linkUnit(options, toolchain, unit.source, output)) return kExitError;
    return writeOutput(options, outputPath(options, ".cubin"), output);
  }
  if (!compileImages(options, toolchain, unit.source, output)) return kExitError;
  switch (options.stage) {
    case Stage::Ptx: return writeOutput(options, {}, output);
    case Stage::LtoIr: return writeOutput(options, outputPath(options, ".ltoir"), output);
    case Stage::Cubin: return writeOutput(options, outputPath(options, ".cubin"), output);
    case Stage::Fatbin: return writeOutput(options, outputPath(options, ".fatbin"), output);
    case Stage::DumpAst:
    case Stage::DumpTypes:
    case Stage::EmitCuda: break;
  }
  WEFT_CHECK(false, "a stage that stopped earlier reached the device compile");
  return kExitError;
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
  }
  if (options->printVersion || options->listGpuArch || options->listGpuCode) {
    if (!printToolkitFacts(*options)) return kExitError;
  }
  if (options->input.empty()) return 0;
  try {
    return compileFile(*options);
  } catch (const weft::InternalCompilerError& error) {
    std::cerr << "weftc: internal compiler error: " << error.what()
              << "\nThis is a bug in weft, not in your program; please report it with the input file.\n";
    return kExitError;
  }
}
