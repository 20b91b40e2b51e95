// Fibers for the CPU block runner: a context switch that saves only the registers the C ABI
// makes a callee preserve (no system call, unlike swapcontext's sigprocmask), stacks with a
// guard region under each, and the SIGSEGV handler that turns a guard-region hit of the fiber a
// thread runs into a switch back to that thread's scheduler. Private to the runtime.
#pragma once

#include <cstddef>
#include <memory>

namespace weft::runtime::fiber {

// A suspended context: its stack pointer; the callee-saved registers and the floating-point
// control words lie on its stack.
using Context = void*;

// Saves the running context in *from and resumes `to`. Returns when something switches back
// to *from.
void switchTo(Context* from, Context to);

// A stack of `usable()` bytes above a guard region of `guard()` bytes that no access passes:
// a frame no larger than the guard that starts on the stack faults in the guard region instead
// of touching memory below it.
class Stack {
 public:
  // Maps a stack; throws CudaError when the process cannot map it.
  Stack(size_t usable, size_t guard);
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;
  // The stack's bytes (page-rounded).
  size_t usable() const { return usable_; }
  // The guard region's bytes (page-rounded).
  size_t guard() const { return guard_; }
  // A context that, switched to, calls entry(argument) on this stack (from its top); `entry`
  // must never return.
  Context start(void (*entry)(void*), void* argument);
  // Whether `address` lies in the guard region.
  bool guards(const void* address) const;

 private:
  unsigned char* base_ = nullptr;  // the mapping: the guard region, then the stack
  size_t usable_;
  size_t guard_;
  size_t color_ = 0;  // the bytes a context starts below the top
};

// What the fault handler knows of the fibers one OS thread runs: where its scheduler keeps the
// stack of the fiber it runs (*running; null while none runs) and its own context (*resume,
// saved when it switched to the fiber). A fault in the guard region of *running sets
// *overflowed and switches to *resume, abandoning the fiber's frames. Other faults go to the
// handler that was installed before weft's (Python's faulthandler, or the default action).
class Watch {
 public:
  // Starts watching (the pointers must outlive stop()).
  void start(const Stack* const* running, Context* resume, bool* overflowed) {
    running_ = running;
    resume_ = resume;
    overflowed_ = overflowed;
  }
  void stop() { running_ = nullptr; }
  // The fault handler's side: when `address` is in the running fiber's guard region, records
  // the overflow and switches to the scheduler (does not return); otherwise returns.
  void onFault(const void* address) const;

 private:
  const Stack* const* running_ = nullptr;
  Context* resume_ = nullptr;
  bool* overflowed_ = nullptr;
};

// Installs the process's SIGSEGV/SIGBUS handler (once), gives the calling thread an alternate
// signal stack if it has none (so that the handler can run when a fiber's stack is exhausted),
// and returns the thread's Watch. Every thread that runs fibers calls it first; throws
// CudaError when the thread cannot get an alternate stack.
Watch& prepareThread();

// How many guarded stacks this process may map: each costs two of the kernel's memory
// mappings (vm.max_map_count), and the rest of the process needs most of them.
size_t stackBudget();

}  // namespace weft::runtime::fiber
