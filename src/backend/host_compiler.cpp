// The host C++ compiler for the CPU target: the same TU as for the GPU, with -DWEFT_HOST.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/process.h"

namespace weft::backend {
namespace {

bool writeFile(int descriptor, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t count = ::write(descriptor, bytes.data() + written, bytes.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    written += static_cast<size_t>(count);
  }
  return true;
}

// The host compiler's command: its words (CXX may hold options too).
std::vector<std::string> compilerCommand(const Toolchain& toolchain) {
  std::vector<std::string> arguments;
  std::istringstream words(toolchain.hostCompiler);
  for (std::string word; words >> word;) arguments.push_back(word);
  return arguments;
}

}  // namespace

std::vector<std::string> hostCompilerArguments(const Toolchain& toolchain, const CompileOptions& options) {
  std::vector<std::string> arguments = compilerCommand(toolchain);
  for (const char* flag : {"-std=c++20", "-O2", "-fPIC", "-c", "-DWEFT_HOST"}) arguments.push_back(flag);
  if (options.fastMath) arguments.push_back("-ffast-math");
  if (!options.debug) arguments.push_back("-DNDEBUG");
  if (options.checks) arguments.push_back("-DWEFT_CHECKS");
  if (!toolchain.weftIncludeDir.empty()) arguments.push_back("-I" + toolchain.weftIncludeDir);
  return arguments;
}

Artifact compileForHost(const Toolchain& toolchain, const std::string& source, const std::string& outputPath,
                        const CompileOptions& options) {
  Artifact artifact;
  if (toolchain.hostCompiler.empty()) {
    artifact.log = "no host C++ compiler found (set CXX, or install c++, g++ or clang++) for the CPU target";
    return artifact;
  }
  // The source and the object go to unique temporary names next to the output, so that the
  // final rename is atomic and concurrent compiles of the same unit never see a partial file.
  std::string sourcePath = outputPath + ".XXXXXX.cpp";
  int descriptor = ::mkstemps(sourcePath.data(), 4);
  if (descriptor < 0) {
    artifact.log = "cannot create a temporary file next to " + outputPath + ": " + std::strerror(errno);
    return artifact;
  }
  bool written = writeFile(descriptor, source);
  ::close(descriptor);
  if (!written) {
    ::unlink(sourcePath.c_str());
    artifact.log = "cannot write " + sourcePath + ": " + std::strerror(errno);
    return artifact;
  }
  // Compiled and linked in two steps: the link sees none of the code's options, because a
  // driver that sees -ffast-math when linking (g++ before 13, clang) adds crtfastmath.o, whose
  // constructor sets flush-to-zero in the thread that loads the library, and in every thread that
  // thread creates later.
  std::string stem = sourcePath.substr(0, sourcePath.size() - 4);
  std::string object = stem + ".o";
  std::string temporaryOutput = stem + ".so";
  std::vector<std::string> compile = hostCompilerArguments(toolchain, options);
  compile.insert(compile.end(), {"-x", "c++", sourcePath, "-o", object});
  std::vector<std::string> link = compilerCommand(toolchain);
  link.insert(link.end(), {"-shared", object, "-o", temporaryOutput});
  int status = runProcess(compile, artifact.log);
  ::unlink(sourcePath.c_str());
  if (status == 0) status = runProcess(link, artifact.log);
  ::unlink(object.c_str());
  if (status != 0) {
    ::unlink(temporaryOutput.c_str());
    if (artifact.log.empty()) artifact.log = compile[0] + " failed with status " + std::to_string(status);
    return artifact;
  }
  if (::rename(temporaryOutput.c_str(), outputPath.c_str()) != 0) {
    artifact.log += "cannot rename " + temporaryOutput + " to " + outputPath + ": " + std::strerror(errno);
    ::unlink(temporaryOutput.c_str());
    return artifact;
  }
  artifact.ok = true;
  artifact.bytes = outputPath;
  return artifact;
}

}  // namespace weft::backend
