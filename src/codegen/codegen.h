// Entry point of codegen: a typed program -> one CUDA C++ translation unit.
#pragma once

#include <string>
#include <vector>

#include "sema/typed_program.h"
#include "support/source.h"

namespace weft::codegen {

struct EmittedUnit {
  // The translation unit. It includes only <weft/device/...> headers, compiles with NVRTC
  // for the GPU and, with -DWEFT_HOST, with the host C++ compiler for the CPU target.
  std::string source;
  // The kernel's extern "C" __global__ symbol (for cuModuleGetFunction).
  std::string kernelSymbol;
  // The extern "C" CPU entry `void(weft::host::ThreadContext*, void** args)` (under WEFT_HOST).
  std::string hostEntrySymbol;
  // Bytes of static shared memory the kernel's shared_arrays need on the CPU target.
  uint64_t hostSharedBytes = 0;
};

// Emits the program's TU. `#line` directives name the files of `sources`.
EmittedUnit emitCuda(const sema::TypedProgram& program, const SourceManager& sources);

}  // namespace weft::codegen
