#include "runtime/float_control.h"

namespace weft::runtime {

#if defined(__x86_64__)

namespace {
constexpr uint32_t kMxcsrDefault = 0x1f80;           // every exception masked, round to nearest
constexpr uint32_t kMxcsrFlushToZero = 0x8000;       // FTZ: subnormal results are zero
constexpr uint32_t kMxcsrDenormalsAreZero = 0x0040;  // DAZ: subnormal operands read as zero
constexpr uint16_t kX87Default = 0x037f;             // what FNINIT sets: 64-bit mantissa, masked
}  // namespace

FloatControl currentFloatControl() {
  FloatControl control;
  __asm__ volatile("stmxcsr %0" : "=m"(control.mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(control.x87));
  return control;
}

void setFloatControl(const FloatControl& control) {
  __asm__ volatile("ldmxcsr %0" : : "m"(control.mxcsr));
  __asm__ volatile("fldcw %0" : : "m"(control.x87));
}

FloatControl kernelFloatControl(bool flushSubnormals) {
  FloatControl control;
  control.mxcsr = kMxcsrDefault | (flushSubnormals ? kMxcsrFlushToZero | kMxcsrDenormalsAreZero : 0);
  control.x87 = kX87Default;
  return control;
}

#elif defined(__aarch64__)

namespace {
constexpr uint64_t kFpcrFlushToZero = uint64_t{1} << 24;  // FZ: subnormal operands and results are zero
}  // namespace

FloatControl currentFloatControl() {
  FloatControl control;
  __asm__ volatile("mrs %0, fpcr" : "=r"(control.fpcr));
  return control;
}

void setFloatControl(const FloatControl& control) {
  __asm__ volatile("msr fpcr, %0" : : "r"(control.fpcr));
}

FloatControl kernelFloatControl(bool flushSubnormals) {
  FloatControl control;
  control.fpcr = flushSubnormals ? kFpcrFlushToZero : 0;
  return control;
}

#endif

}  // namespace weft::runtime
