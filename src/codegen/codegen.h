// Entry point of codegen: a typed program (its kernels and interoperable functions) -> one
// CUDA C++ translation unit.
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
  // The extern "C" __global__ symbol of the program's `kernel` (for cuModuleGetFunction), and
  // its extern "C" CPU entry `void(weft::host::ThreadContext*, void** args)` (under
  // WEFT_HOST; the kernel's symbol + "_host"); empty when the program has no kernel.
  std::string kernelSymbol;
  std::string hostEntrySymbol;
  // Every kernel of the unit: its Python name and symbol (an interoperable kernel's symbol is
  // its Python name; another's weft_<name>_<n>_<hash>, userName()).
  struct Kernel {
    std::string pythonName;
    std::string symbol;
  };
  std::vector<Kernel> kernels;
  // Bytes of static shared memory the kernel's shared_arrays need on the CPU target.
  uint64_t hostSharedBytes = 0;
  // The unit's run-time checks (docs/debugging.md): an element access or view (always; whether
  // its bounds are checked is decided per lowering by WEFT_CHECKS), an integer // or % and an
  // assert of a debug program. The device code passes a check's index into this table, and a
  // failure's error record names it (include/weft/device/error_record.h).
  struct CheckSite {
    std::string file;
    uint32_t line = 0;
    std::string function;  // the Python function the check is in
    std::string source;    // the text of the line, without its indentation
    std::string message;   // an assert's message; empty without one
  };
  std::vector<CheckSite> checkSites;
  // The unit checks its interoperable signatures' machine representations against libcu++'s
  // types with static_asserts that nvcc evaluates, and NVRTC only when kInteropAbiCheckMacro is
  // defined (libcu++ would leave its globals in every cubin): weftc checks them that way.
  bool hasInteropAbiCheck = false;
  // The feature set the unit's code asks for: above Baseline when it uses architecture- or
  // family-specific features (CudaEmitter::requireFeatures, the one place that raises it). The
  // JIT then compiles for the device's variant with them (sema::jitTarget), where the unit tells
  // which it got by __CUDA_ARCH_SPECIFIC__ / __CUDA_ARCH_FAMILY_SPECIFIC__ (docs/targets.md).
  sema::FeatureSet features = sema::FeatureSet::Baseline;
  // A TMA tensor map the kernel takes after its own parameters, encoded at each launch from the
  // array argument of its parameter `parameter` (docs/architecture.md, "Tensor maps"). The enum
  // fields hold cuda.h's CUtensorMapInterleave/Swizzle/L2promotion/FloatOOBfill numbers.
  struct TensorMap {
    int parameter = 0;                     // index among the kernel's parameters (an array)
    std::vector<uint32_t> box;             // elements per dimension of the array, outermost first
    std::vector<uint32_t> elementStrides;  // the same order; empty: all 1
    uint8_t interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
  };
  // The kernel's tensor maps, in the order of their parameters.
  std::vector<TensorMap> tensorMaps;
};

// The macro under which NVRTC evaluates a unit's interoperable ABI static_asserts.
inline constexpr const char* kInteropAbiCheckMacro = "WEFT_INTEROP_ABI_CHECK";

// Emits the program's TU. `#line` directives name the files of `sources`.
EmittedUnit emitCuda(const sema::TypedProgram& program, const SourceManager& sources);

}  // namespace weft::codegen
