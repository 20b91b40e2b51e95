// The floating-point control state of CPU-target kernel code: what its threads run with, and
// keeping the process's own state as it was when weft loads a kernel. Private to the runtime.
#pragma once

#include <cstdint>

namespace weft::runtime {

// The control bits of one OS thread's floating-point environment (rounding, exception masks,
// flush-to-zero): x86-64's MXCSR (whose low six bits, the status flags, come along) and x87
// control word; AArch64's FPCR.
struct FloatControl {
#if defined(__x86_64__)
  uint32_t mxcsr = 0;
  uint16_t x87 = 0;
#elif defined(__aarch64__)
  uint64_t fpcr = 0;
#else
#error \
    "the CPU target needs the floating-point control registers of this architecture (src/runtime/float_control.h)"
#endif
};

// The calling thread's control state.
FloatControl currentFloatControl();

// Makes `control` the calling thread's control state.
void setFloatControl(const FloatControl& control);

// What a kernel's threads run with, whatever the thread that runs them: IEEE 754's defaults
// (round to nearest even, every exception masked, subnormals kept), as on the GPU; with
// `flushSubnormals` (fastmath=True, like --use_fast_math's ftz on the GPU) subnormal operands
// read as zero and subnormal results become zero, for float64 as well as float32.
FloatControl kernelFloatControl(bool flushSubnormals);

// Restores the calling thread's control state, as it was when the guard was made, when the
// guard goes: around code of a loaded library that may change it (its constructors).
class FloatControlGuard {
 public:
  FloatControlGuard() : saved_(currentFloatControl()) {}
  ~FloatControlGuard() { setFloatControl(saved_); }
  FloatControlGuard(const FloatControlGuard&) = delete;
  FloatControlGuard& operator=(const FloatControlGuard&) = delete;

 private:
  FloatControl saved_;
};

}  // namespace weft::runtime
