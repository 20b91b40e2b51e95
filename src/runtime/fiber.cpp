// The context switch is a few lines of assembly per architecture: it pushes the callee-saved
// registers and the floating-point control words on the running stack, stores the stack pointer,
// loads the other one and pops the same. A new context is a stack prepared so that its first
// switch "returns" into a trampoline that calls the entry function.
#include "runtime/fiber.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

#include "runtime/runtime.h"

extern "C" {
void weft_fiber_switch(void** from, void* to);
void weft_fiber_trampoline();
}

#if defined(__x86_64__)
// System V: rbx rbp r12-r15 are callee-saved, as are MXCSR's control bits and the x87 control
// word (rax and rcx are scratch). The trampoline finds the entry in r13 and its argument in r12.
__asm__(
    ".text\n"
    ".globl weft_fiber_switch\n"
    ".hidden weft_fiber_switch\n"
    ".type weft_fiber_switch, @function\n"
    ".p2align 4\n"
    "weft_fiber_switch:\n"
    "  .byte 0xf3, 0x0f, 0x1e, 0xfa\n"  // endbr64 (a no-op without CET)
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movl (%rsp), %eax\n"
    "  movzwl 4(%rsp), %ecx\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    // Loading a control word stalls the pipeline; fibers almost always share theirs, so
    // each is loaded only when its control bits differ (MXCSR's low six bits are status flags).
    "  xorl (%rsp), %eax\n"
    "  testl $0xffc0, %eax\n"
    "  jz 1f\n"
    "  ldmxcsr (%rsp)\n"
    "1:\n"
    "  cmpw 4(%rsp), %cx\n"
    "  je 2f\n"
    "  fldcw 4(%rsp)\n"
    "2:\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    // A jump rather than ret: a switch never returns where its call came from, and the return
    // predictor would miss every time.
    "  popq %rdx\n"
    "  jmpq *%rdx\n"
    ".size weft_fiber_switch, .-weft_fiber_switch\n"
    ".globl weft_fiber_trampoline\n"
    ".hidden weft_fiber_trampoline\n"
    ".type weft_fiber_trampoline, @function\n"
    ".p2align 4\n"
    "weft_fiber_trampoline:\n"
    "  .cfi_startproc\n"
    "  .cfi_undefined rip\n"  // the first frame of a fiber: unwinding and backtraces stop here
    "  movq %r12, %rdi\n"
    "  callq *%r13\n"
    "  ud2\n"
    "  .cfi_endproc\n"
    ".size weft_fiber_trampoline, .-weft_fiber_trampoline\n");
#elif defined(__aarch64__)
// AAPCS64: x19-x28, the frame pointer x29, the link register x30, the low halves of v8-v15
// (d8-d15) and FPCR (x9 and x10 are scratch). The trampoline finds the entry in x20 and its
// argument in x19.
__asm__(
    ".text\n"
    ".globl weft_fiber_switch\n"
    ".hidden weft_fiber_switch\n"
    ".type weft_fiber_switch, %function\n"
    ".p2align 4\n"
    "weft_fiber_switch:\n"
    "  hint #34\n"  // bti c (a no-op without BTI)
    "  sub sp, sp, #176\n"
    "  stp x19, x20, [sp, #0]\n"
    "  stp x21, x22, [sp, #16]\n"
    "  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n"
    "  stp x27, x28, [sp, #64]\n"
    "  stp x29, x30, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n"
    "  stp d10, d11, [sp, #112]\n"
    "  stp d12, d13, [sp, #128]\n"
    "  stp d14, d15, [sp, #144]\n"
    "  mrs x9, fpcr\n"
    "  str x9, [sp, #160]\n"
    "  mov x9, sp\n"
    "  str x9, [x0]\n"
    "  mov sp, x1\n"
    // As on x86-64, the control register is written only when it differs.
    "  ldr x9, [sp, #160]\n"
    "  mrs x10, fpcr\n"
    "  cmp x9, x10\n"
    "  b.eq 1f\n"
    "  msr fpcr, x9\n"
    "1:\n"
    "  ldp x19, x20, [sp, #0]\n"
    "  ldp x21, x22, [sp, #16]\n"
    "  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n"
    "  ldp x27, x28, [sp, #64]\n"
    "  ldp x29, x30, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n"
    "  ldp d10, d11, [sp, #112]\n"
    "  ldp d12, d13, [sp, #128]\n"
    "  ldp d14, d15, [sp, #144]\n"
    "  add sp, sp, #176\n"
    "  ret\n"
    ".size weft_fiber_switch, .-weft_fiber_switch\n"
    ".globl weft_fiber_trampoline\n"
    ".hidden weft_fiber_trampoline\n"
    ".type weft_fiber_trampoline, %function\n"
    ".p2align 4\n"
    "weft_fiber_trampoline:\n"
    "  .cfi_startproc\n"
    "  .cfi_undefined x30\n"  // the first frame of a fiber: unwinding and backtraces stop here
    "  mov x0, x19\n"
    "  blr x20\n"
    "  brk #0\n"
    "  .cfi_endproc\n"
    ".size weft_fiber_trampoline, .-weft_fiber_trampoline\n");
#else
#error "the CPU target's fibers need a context switch for this architecture (src/runtime/fiber.cpp)"
#endif

namespace weft::runtime::fiber {
namespace {

// The alternate signal stack weft gave a thread (released when the thread ends), and the
// thread's Watch: one thread-local, so that a launch looks it up once.
struct ThreadFibers {
  Watch watch;
  void* alternateStack = nullptr;
  size_t alternateBytes = 0;
  bool prepared = false;
  ~ThreadFibers() {
    if (!alternateStack) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(alternateStack, alternateBytes);
  }
};
thread_local ThreadFibers threadFibers;

struct sigaction previousSegv, previousBus;

size_t pageBytes() {
  static const size_t bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return bytes;
}

// Passes a fault that is not a guard hit to the handler installed before weft's.
void chain(int signal, siginfo_t* info, void* context) {
  const struct sigaction& previous = signal == SIGSEGV ? previousSegv : previousBus;
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
    return;
  }
  // The default action: die of this signal (a fault would only repeat it).
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);
}

void onFault(int signal, siginfo_t* info, void* context) {
  threadFibers.watch.onFault(info->si_addr);
  chain(signal, info, context);
}

void installHandler() {
  struct sigaction action {};
  action.sa_sigaction = &onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previousSegv);
  ::sigaction(SIGBUS, &action, &previousBus);
}

}  // namespace

void switchTo(Context* from, Context to) {
  weft_fiber_switch(from, to);
}

Stack::Stack(size_t usable, size_t guard) : usable_(usable), guard_(guard) {
  // Stacks are page-aligned mappings of one size, so their tops would all fall in the same
  // cache sets and evict each other at every switch: each starts a different number of cache
  // lines below its top (up to 63).
  static std::atomic<uint32_t> stacks{0};
  color_ = size_t{stacks.fetch_add(1, std::memory_order_relaxed) * 29 % 64} * 64;
  size_t page = pageBytes();
  usable_ = (usable + page - 1) / page * page;
  guard_ = (guard + page - 1) / page * page;
  void* mapping = ::mmap(nullptr, guard_ + usable_, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (mapping == MAP_FAILED) {
    throw CudaError("CPU target: cannot map a " + std::to_string(usable_ + guard_) +
                        "-byte stack for a simulated thread: " + std::strerror(errno),
                    2);
  }
  base_ = static_cast<unsigned char*>(mapping);
  if (::mprotect(base_ + guard_, usable_, PROT_READ | PROT_WRITE) != 0) {
    int error = errno;
    ::munmap(base_, guard_ + usable_);
    throw CudaError("CPU target: cannot make a stack for a simulated thread (" +
                        std::string(std::strerror(error)) +
                        "); the process may have reached vm.max_map_count memory mappings",
                    2);
  }
}

Stack::~Stack() {
  ::munmap(base_, guard_ + usable_);
}

Context Stack::start(void (*entry)(void*), void* argument) {
  auto* top = reinterpret_cast<uintptr_t*>(base_ + guard_ + usable_ - color_);
#if defined(__x86_64__)
  // Popped by weft_fiber_switch: control words, r15 r14 r13 r12 rbx rbp, then the return address.
  uintptr_t* frame = top - 8;
  uint32_t mxcsr = 0;
  uint16_t x87 = 0;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(x87));
  frame[0] = 0;
  std::memcpy(reinterpret_cast<unsigned char*>(&frame[0]), &mxcsr, sizeof(mxcsr));
  std::memcpy(reinterpret_cast<unsigned char*>(&frame[0]) + 4, &x87, sizeof(x87));
  frame[1] = 0;
  frame[2] = 0;
  frame[3] = reinterpret_cast<uintptr_t>(entry);
  frame[4] = reinterpret_cast<uintptr_t>(argument);
  frame[5] = 0;
  frame[6] = 0;
  frame[7] = reinterpret_cast<uintptr_t>(&weft_fiber_trampoline);
#else
  // Loaded by weft_fiber_switch: x19-x28, x29 x30, d8-d15, FPCR (22 slots in 176 bytes).
  uintptr_t* frame = top - 22;
  std::fill(frame, top, uintptr_t{0});
  frame[0] = reinterpret_cast<uintptr_t>(argument);
  frame[1] = reinterpret_cast<uintptr_t>(entry);
  frame[11] = reinterpret_cast<uintptr_t>(&weft_fiber_trampoline);
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  frame[20] = fpcr;
#endif
  return frame;
}

bool Stack::guards(const void* address) const {
  auto* byte = static_cast<const unsigned char*>(address);
  return byte >= base_ && byte < base_ + guard_;
}

void Watch::onFault(const void* address) const {
  const Stack* running = running_ ? *static_cast<const Stack* const volatile*>(running_) : nullptr;
  if (!running || !running->guards(address)) return;
  *static_cast<volatile bool*>(overflowed_) = true;
  Context abandoned;
  // Leaves the handler for the scheduler as siglongjmp would; SA_NODEFER kept SIGSEGV unblocked.
  weft_fiber_switch(&abandoned, *resume_);
}

Watch& prepareThread() {
  ThreadFibers& own = threadFibers;  // touched here first, never first in the signal handler
  if (own.prepared) return own.watch;
  static std::once_flag installed;
  std::call_once(installed, installHandler);
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE)) {
    size_t bytes = std::max<size_t>(64 * 1024, static_cast<size_t>(::sysconf(_SC_MINSIGSTKSZ)) * 4);
    void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw CudaError("CPU target: cannot map an alternate signal stack", 2);
    stack_t stack{};
    stack.ss_sp = memory;
    stack.ss_size = bytes;
    if (::sigaltstack(&stack, nullptr) != 0) {
      ::munmap(memory, bytes);
      throw CudaError(
          std::string("CPU target: cannot install an alternate signal stack: ") + std::strerror(errno), 2);
    }
    own.alternateStack = memory;
    own.alternateBytes = bytes;
  }  // else the thread has one already (Python's faulthandler gives the main thread one)
  own.prepared = true;
  return own.watch;
}

size_t stackBudget() {
  static const size_t budget = [] {
    size_t mappings = 65530;  // Linux's default
    std::ifstream file("/proc/sys/vm/max_map_count");
    if (size_t read = 0; file >> read && read > 0) mappings = read;
    // Half of the mappings, two per stack: the other half stays for the process's own.
    return std::max<size_t>(4096, mappings / 4);
  }();
  return budget;
}

}  // namespace weft::runtime::fiber
