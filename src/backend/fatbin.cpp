// Multi-architecture fatbins: cubins and PTX for several targets (each lowered by NVRTC from
// the same translation unit), combined by the toolkit's fatbinary tool, which cuobjdump and the
// driver read.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/backend.h"
#include "backend/process.h"

namespace weft::backend {

namespace {

namespace fs = std::filesystem;

bool writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

// The fatbinary program: in the toolkit's bin/, else on PATH.
std::string fatbinaryPath(const Toolchain& toolchain) {
  std::error_code error;
  if (!toolchain.cudaHome.empty()) {
    fs::path candidate = fs::path(toolchain.cudaHome) / "bin" / "fatbinary";
    if (fs::exists(candidate, error)) return candidate.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::istringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) {
      fs::path candidate = fs::path(folder) / "fatbinary";
      if (!folder.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return {};
}

}  // namespace

Artifact createFatbin(const Toolchain& toolchain, const std::vector<FatbinImage>& images) {
  Artifact artifact;
  std::string tool = fatbinaryPath(toolchain);
  if (tool.empty()) {
    artifact.log = "the CUDA toolkit's fatbinary tool was not found (looked in " +
                   (toolchain.cudaHome.empty() ? std::string("no CUDA toolkit") : toolchain.cudaHome + "/bin") +
                   " and on PATH); set CUDA_HOME";
    return artifact;
  }
  std::error_code error;
  std::string pattern = (fs::temp_directory_path(error) / "weft-fatbin-XXXXXX").string();
  if (error || ::mkdtemp(pattern.data()) == nullptr) {
    artifact.log = "cannot create a temporary directory: " + std::string(std::strerror(errno));
    return artifact;
  }
  fs::path directory(pattern);
  std::vector<std::string> arguments = {tool, "-64", "--create=" + (directory / "out.fatbin").string()};
  for (const FatbinImage& image : images) {
    bool cubin = image.kind == FatbinImage::Kind::Cubin;
    fs::path file = directory / (sema::targetName(image.target, cubin ? "sm_" : "compute_") + (cubin ? ".cubin" : ".ptx"));
    if (!writeBytes(file, image.bytes)) {
      artifact.log = "cannot write " + file.string();
      fs::remove_all(directory, error);
      return artifact;
    }
    // fatbinary names an image's target by its number and suffix ("sm=90a").
    arguments.push_back(std::string("--image3=kind=") + (cubin ? "elf" : "ptx") + ",sm=" + sema::targetName(image.target, "") +
                        ",file=" + file.string());
  }
  int status = runProcess(arguments, artifact.log);
  if (status == 0) {
    std::ifstream in(directory / "out.fatbin", std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    artifact.bytes = bytes.str();
    artifact.ok = in.good() || in.eof();
    if (!artifact.ok || artifact.bytes.empty()) {
      artifact.ok = false;
      artifact.log += "fatbinary wrote no output";
    }
  } else if (artifact.log.empty()) {
    artifact.log = "fatbinary failed with status " + std::to_string(status);
  }
  fs::remove_all(directory, error);
  return artifact;
}

}  // namespace weft::backend
