// Local memory: what the local arrays of a kernel, and of everything it calls, take per thread.
// A GPU thread has at most kGpuLocalMemoryBytes of it and a launch that needs more fails, so
// sema reports the program instead: one array over the limit at its declaration
// (check_arrays.cpp), a chain of calls over it at the kernel (here). The CPU target sizes each
// thread's stack from a bound that adds up every call site (TypedProgram::localArrayBytes),
// since the host compiler may inline sibling calls into one frame.
#include <algorithm>
#include <functional>
#include <limits>

#include "sema/checker.h"
#include "types/layout.h"

namespace weft::sema {
namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

uint64_t saturatingMultiply(uint64_t a, uint64_t b) {
  return b != 0 && a > kSaturated / b ? kSaturated : a * b;
}

// One function's local arrays and calls, and what its callees add.
struct FunctionMemory {
  uint64_t own = 0;                              // its local arrays
  std::vector<const TypedStmt*> arrays;          // their declarations
  std::vector<std::pair<int, SourceLoc>> calls;  // callee, call site
  enum class State : uint8_t { Unvisited, Visiting, Done } state = State::Unvisited;
  uint64_t deepest = 0;  // own plus the deepest chain of callees
  int deepestCall = -1;  // index into `calls` of that chain's first call, or -1
  uint64_t total = 0;    // own plus every call site's total
  // The CPU target holds a tile block's tiles whole on its one thread's stack: the bytes of
  // every tile the function's variables and expressions hold (temporaries included), and the
  // same summed over every call site. The GPU holds them as small per-thread fragments.
  uint64_t tiles = 0;
  uint64_t tileTotal = 0;
};

class LocalMemoryCheck {
 public:
  LocalMemoryCheck(const TypedProgram& program, types::TypeContext& types)
      : program_(program), types_(types) {
    functions_.resize(program.functions.size());
    for (size_t i = 0; i < program.functions.size(); ++i) {
      collectLocals(program.functions[i], functions_[i]);
      collect(program.functions[i], functions_[i], program.functions[i].body);
    }
  }

  const FunctionMemory& of(int function) {
    visit(function);
    return functions_[static_cast<size_t>(function)];
  }

  // "in 'k' (N bytes) -> in 'f' called at line L (M bytes) ..." along the deepest chain.
  std::string chain(int function) {
    std::string text;
    SourceLoc called{};
    for (int at = function; at >= 0;) {
      const FunctionMemory& memory = of(at);
      if (!text.empty()) text += ", then ";
      text += "'" + program_.functions[static_cast<size_t>(at)].pythonName + "'";
      if (called.line != 0) text += " called at line " + std::to_string(called.line);
      text += " takes " + std::to_string(memory.own);
      if (memory.deepestCall < 0) break;
      const auto& [callee, loc] = memory.calls[static_cast<size_t>(memory.deepestCall)];
      called = loc;
      at = callee;
    }
    return text;
  }

 private:
  static uint64_t tileBytes(const types::Type* tile) { return arrayBytes(tile->shape, nullptr, tile->scalar); }

  void collectLocals(const TypedFunction& function, FunctionMemory& memory) {
    for (const Local& local : function.locals)
      if (local.type != nullptr && local.type->isTile()) memory.tiles = saturatingAdd(memory.tiles, tileBytes(local.type));
  }

  void collect(const TypedFunction& function, FunctionMemory& memory, const std::vector<TypedStmt*>& body) {
    std::function<void(const TypedExpr&)> calls = [&](const TypedExpr& e) {
      if (e.kind == TypedExprKind::Call) memory.calls.emplace_back(e.callee, e.loc);
      if (e.type != nullptr && e.type->isTile()) memory.tiles = saturatingAdd(memory.tiles, tileBytes(e.type));
      for (const TypedExpr* operand : e.operands) calls(*operand);
    };
    for (const TypedStmt* s : body) {
      if (s->kind == TypedStmtKind::DeclareArray) {
        const types::Type* type = function.locals.at(static_cast<size_t>(s->local)).type;
        if (type->space == types::MemorySpace::Local) {
          const types::Type* element = type->element != nullptr ? type->element : types_.scalar(type->scalar);
          memory.own = saturatingAdd(memory.own, arrayBytes(s->shape, element));
          memory.arrays.push_back(s);
        }
      }
      for (const TypedExpr* operand : s->operands) calls(*operand);
      collect(function, memory, s->body);
      collect(function, memory, s->orelse);
    }
  }

  void visit(int function) {
    FunctionMemory& memory = functions_[static_cast<size_t>(function)];
    if (memory.state != FunctionMemory::State::Unvisited) return;
    memory.state = FunctionMemory::State::Visiting;
    uint64_t deepest = 0, total = 0, tileTotal = 0;
    for (size_t k = 0; k < memory.calls.size(); ++k) {
      int callee = memory.calls[k].first;
      // A recursive call: its frames repeat, which no static bound covers; the guard region
      // under the CPU target's stacks stops them.
      if (functions_[static_cast<size_t>(callee)].state == FunctionMemory::State::Visiting) continue;
      visit(callee);
      const FunctionMemory& called = functions_[static_cast<size_t>(callee)];
      if (called.deepest > deepest) {
        deepest = called.deepest;
        memory.deepestCall = static_cast<int>(k);
      }
      total = saturatingAdd(total, called.total);
      tileTotal = saturatingAdd(tileTotal, called.tileTotal);
    }
    memory.tileTotal = saturatingAdd(memory.tiles, tileTotal);
    memory.deepest = saturatingAdd(memory.own, deepest);
    memory.total = saturatingAdd(memory.own, total);
    memory.state = FunctionMemory::State::Done;
  }

  const TypedProgram& program_;
  types::TypeContext& types_;
  std::vector<FunctionMemory> functions_;
};

}  // namespace

uint64_t arrayBytes(const std::vector<int64_t>& shape, const types::Type* element, types::ScalarKind scalar) {
  uint64_t bytes = element != nullptr ? types::layoutOf(element).size : static_cast<uint64_t>(types::byteSize(scalar));
  for (int64_t extent : shape) bytes = saturatingMultiply(bytes, static_cast<uint64_t>(extent));
  return bytes;
}

void checkLocalMemory(TypedProgram& program, types::TypeContext& types, Diagnostics& diagnostics) {
  LocalMemoryCheck check(program, types);
  // After an error (an array over the limit by itself among them) the program is not emitted.
  if (!diagnostics.hasErrors()) {
    for (int entry : program.entries) {
      const TypedFunction& kernel = program.functions[static_cast<size_t>(entry)];
      const FunctionMemory& memory = check.of(entry);
      if (!kernel.isKernel || memory.deepest <= kGpuLocalMemoryBytes) continue;
      std::string bytes = memory.deepest == UINT64_MAX ? "more than 2**64" : std::to_string(memory.deepest);
      diagnostics.error(diag::LocalMemoryTooLarge, kernel.loc,
                        {kernel.pythonName, bytes, check.chain(entry), std::to_string(kGpuLocalMemoryBytes)});
    }
  }
  if (program.kernel >= 0) {
    const FunctionMemory& kernel = check.of(program.kernel);
    program.localArrayBytes = saturatingAdd(kernel.total, kernel.tileTotal);
  }
}

}  // namespace weft::sema
