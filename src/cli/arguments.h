// weftc's command line, with nvcc's spellings for what nvcc users already type: -arch=sm_90,
// --gpu-architecture=sm_90a, -code/--gpu-code, -gencode arch=compute_90,code=sm_90, -o.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sema/targets.h"

namespace weft::cli {

// Where the pipeline stops and what it writes.
enum class Stage { DumpAst, DumpTypes, EmitCuda, Ptx, Cubin, Fatbin, LtoIr };

// One image to produce: the unit compiled for a virtual architecture (which decides
// __CUDA_ARCH__, so `if target(...)`), kept as PTX or turned into SASS for a GPU target.
struct Image {
  sema::GpuTarget virtualArch;
  std::optional<sema::GpuTarget> sass;  // nullopt: the PTX itself
  bool operator==(const Image&) const = default;
};

// What one run of weftc does.
struct Options {
  std::string input;
  std::string output;  // empty: stdout for text, <stem>.cubin (.fatbin, .ltoir) for binaries
  Stage stage = Stage::Cubin;
  // From -arch, -code and -gencode, in order, without repeats; default: -arch=sm_90, which is
  // SASS for sm_90 and PTX for compute_90 (each stage takes the images it makes).
  std::vector<Image> images;
  bool relocatable = false;
  std::vector<std::string> links;  // --link FILE, in order
  bool printIncludeDir = false;
  bool printVersion = false;
  bool listGpuArch = false;  // --list-gpu-arch: the virtual architectures NVRTC compiles for
  bool listGpuCode = false;  // --list-gpu-code: the GPU targets NVRTC compiles for
};

// The help text: every option.
extern const char* const kUsage;

// Parses the command line; nullopt after printing a usage error (exit code 2) or the help
// (exit code 0), with `exitCode` set.
std::optional<Options> parseArguments(int argc, char** argv, int& exitCode);

// The distinct virtual architectures of `images`, in order.
std::vector<sema::GpuTarget> virtualArchitectures(const std::vector<Image>& images);

}  // namespace weft::cli
