// Toolkit and host compiler discovery.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "backend/backend.h"

namespace weft::backend {
namespace {

bool isDirectory(const std::string& path) {
  struct stat info;
  return !path.empty() && ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool isExecutableFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string environmentValue(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// The full path of `program` found on $PATH (or `program` itself when it contains a '/').
std::string findOnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return isExecutableFile(program) ? program : std::string();
  std::string_view path = std::getenv("PATH") ? std::getenv("PATH") : "";
  while (!path.empty()) {
    size_t colon = path.find(':');
    std::string_view entry = path.substr(0, colon);
    path = colon == std::string_view::npos ? std::string_view() : path.substr(colon + 1);
    std::string candidate = (entry.empty() ? std::string(".") : std::string(entry)) + "/" + program;
    if (isExecutableFile(candidate)) return candidate;
  }
  return {};
}

std::string parentDirectory(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string findCudaHome() {
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string value = environmentValue(variable);
    if (isDirectory(value)) return value;
  }
  std::string nvcc = findOnPath("nvcc");
  if (!nvcc.empty()) {
    std::string home = parentDirectory(parentDirectory(nvcc));
    if (isDirectory(home)) return home;
  }
  return isDirectory("/usr/local/cuda") ? "/usr/local/cuda" : std::string();
}

// $CXX may name a launcher and a compiler ("ccache g++"): the first word is resolved on PATH and
// the rest kept; compileForHost splits the words again.
std::string findHostCompiler() {
  std::string requested = environmentValue("CXX");
  if (!requested.empty()) {
    size_t start = requested.find_first_not_of(" \t");
    size_t end = requested.find_first_of(" \t", start);
    if (start != std::string::npos) {
      std::string program = findOnPath(requested.substr(start, end - start));
      if (!program.empty()) return end == std::string::npos ? program : program + requested.substr(end);
    }
  }
  for (const char* candidate : {"c++", "g++", "clang++"}) {
    std::string program = findOnPath(candidate);
    if (!program.empty()) return program;
  }
  return {};
}

}  // namespace

Toolchain discoverToolchain(std::string weftIncludeDir) {
  Toolchain toolchain;
  toolchain.cudaHome = findCudaHome();
  if (!toolchain.cudaHome.empty()) {
    // CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl, which nvcc adds by itself.
    for (const char* folder : {"/include", "/include/cccl"}) {
      struct stat status {};
      std::string path = toolchain.cudaHome + folder;
      if (::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode)) toolchain.cudaIncludeDirs.push_back(path);
    }
  }
  toolchain.weftIncludeDir = std::move(weftIncludeDir);
  toolchain.hostCompiler = findHostCompiler();
  return toolchain;
}

}  // namespace weft::backend
