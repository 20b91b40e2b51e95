// Functions and the whole translation unit: includes, tuple structs, forward declarations
// (so that recursion and any definition order work), definitions, the kernel and its CPU
// entry.
#include <algorithm>
#include <set>
#include <string_view>

#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "support/hash.h"
#include "types/layout.h"

namespace weft::codegen {

using sema::TypedExpr;
using sema::TypedFunction;
using sema::TypedStmt;
using sema::TypedStmtKind;

namespace {

// Stands for the symbol of the kernel that is function `index` until the unit's hash is
// known: kPlaceholderStart, the index, kPlaceholderEnd. A control character cannot occur
// anywhere else in the unit (file names are quoted without them).
constexpr std::string_view kPlaceholderStart = "\x01kernel";
constexpr char kPlaceholderEnd = '\x01';
std::string symbolPlaceholder(int index) {
  return std::string(kPlaceholderStart) + std::to_string(index) + kPlaceholderEnd;
}

// `text` with each symbolPlaceholder(i) replaced by symbols[i], in one pass: a file of
// thousands of kernels costs time linear in its size.
std::string substituteSymbols(const std::string& text, const std::vector<std::string>& symbols) {
  std::string result;
  result.reserve(text.size());
  size_t done = 0;
  for (size_t at = text.find(kPlaceholderStart); at != std::string::npos;
       at = text.find(kPlaceholderStart, done)) {
    size_t digits = at + kPlaceholderStart.size();
    size_t end = text.find(kPlaceholderEnd, digits);
    WEFT_CHECK(end != std::string::npos, "an unterminated kernel symbol placeholder in the unit");
    size_t index = std::stoul(text.substr(digits, end - digits));
    WEFT_CHECK(index < symbols.size() && !symbols[index].empty(), "a placeholder of no kernel's symbol");
    result.append(text, done, at - done);
    result += symbols[index];
    done = end + 1;
  }
  result.append(text, done);
  return result;
}

// The qualifiers of a generated function (config.h defines the macros per target).
std::string qualifiers(const TypedFunction& function, bool recursive) {
  if (function.isTileKernel) return "WEFT_TILE_KERNEL";
  if (function.isKernel) return "WEFT_KERNEL";
  if (function.interop) return "WEFT_INTEROP_FN";
  if (function.hostCallable) return recursive ? "WEFT_HOST_DEVICE_FN_NOINLINE" : "WEFT_HOST_DEVICE_FN";
  return recursive ? "WEFT_DEVICE_FN_NOINLINE" : "WEFT_DEVICE_FN";
}

void collectCallees(const TypedExpr& expr, std::set<int>& callees) {
  if (expr.kind == sema::TypedExprKind::Call) callees.insert(expr.callee);
  for (const TypedExpr* operand : expr.operands) collectCallees(*operand, callees);
}

void collectCallees(const std::vector<TypedStmt*>& statements, std::set<int>& callees) {
  for (const TypedStmt* stmt : statements) {
    for (const TypedExpr* operand : stmt->operands) collectCallees(*operand, callees);
    collectCallees(stmt->body, callees);
    collectCallees(stmt->orelse, callees);
  }
}

}  // namespace

CudaEmitter::CudaEmitter(const sema::TypedProgram& program, const SourceManager& sources)
    : program_(program), sources_(sources) {}

// A function is recursive when it can reach itself through calls; such functions are not
// force-inlined.
std::vector<bool> CudaEmitter::recursiveFunctions() const {
  size_t count = program_.functions.size();
  std::vector<std::set<int>> callees(count);
  for (size_t i = 0; i < count; ++i) collectCallees(program_.functions[i].body, callees[i]);
  std::vector<bool> recursive(count, false);
  for (size_t i = 0; i < count; ++i) {
    std::vector<int> stack(callees[i].begin(), callees[i].end());
    std::vector<bool> seen(count, false);
    while (!stack.empty() && !recursive[i]) {
      int next = stack.back();
      stack.pop_back();
      WEFT_CHECK(next >= 0 && static_cast<size_t>(next) < count, "a callee index out of range");
      if (static_cast<size_t>(next) == i) recursive[i] = true;
      if (seen[next]) continue;
      seen[next] = true;
      stack.insert(stack.end(), callees[next].begin(), callees[next].end());
    }
  }
  return recursive;
}

void CudaEmitter::collectArrayStorage(const std::vector<TypedStmt*>& statements) {
  for (const TypedStmt* stmt : statements) {
    if (stmt->kind == TypedStmtKind::DeclareArray) {
      const types::Type* type = function_->locals.at(stmt->local).type;
      WEFT_CHECK(type->isArray() && type->space != types::MemorySpace::Global,
                 "DeclareArray of a global array");
      uint64_t count = 1;
      for (int64_t extent : stmt->shape) {
        WEFT_CHECK(extent >= 0 && extent <= (int64_t{1} << 40), "an array extent out of range");
        count *= static_cast<uint64_t>(extent);
      }
      ArrayStorage storage;
      storage.count = count == 0 ? 1 : count;  // C++ has no zero-length arrays
      bool shared = type->space == types::MemorySpace::Shared;
      storage.name = (shared ? "w_shared_" : "w_local_") + std::to_string(storage_.size());
      if (shared) {
        // 16-byte alignment suits every element type (complex128 included); align= and
        // over-aligned elements (Atomic(dtype, align=N)) may ask for more.
        types::Layout element = type->element != nullptr
                                    ? types::layoutOf(type->element)
                                    : types::Layout{static_cast<uint64_t>(types::byteSize(type->scalar)), 1, {}};
        uint64_t align = std::max<uint64_t>({16, element.align, static_cast<uint64_t>(stmt->align)});
        sharedBytes_ = (sharedBytes_ + align - 1) / align * align;
        storage.sharedOffset = sharedBytes_;
        sharedBytes_ += storage.count * element.size;
      }
      storage_.emplace(stmt, storage);
      functionStorage_.push_back(stmt);
    }
    collectArrayStorage(stmt->body);
    collectArrayStorage(stmt->orelse);
  }
}

std::string CudaEmitter::signature(int index, const std::string& name) {
  const TypedFunction& function = program_.functions[index];
  const sema::TypedFunction* saved = function_;
  function_ = &function;
  std::string out = name + "(";
  for (size_t i = 0; i < function.params.size(); ++i) {
    if (i) out += ", ";
    const types::Type* type = function.locals.at(function.params[i]).type;
    // A struct with atomic fields is used in place: its parameter refers to the caller's.
    out += typeName(type) + (types::holdsAtomic(type) ? "& " : " ") + localName(function.params[i]);
  }
  if (index == program_.kernel) out += tensorMapParameters();
  function_ = saved;
  return out + ")";
}

void CudaEmitter::functionBody(int index) {
  const TypedFunction& function = program_.functions[index];
  function_ = &function;
  std::set<int> params(function.params.begin(), function.params.end());
  body_ += "// " + commentText(function.pythonName) + "\n";
  lineDirective(function.loc);
  std::string returnType = function.isKernel ? "void" : returnTypeName(function.returnType);
  body_ += qualifiers(function, recursive_[index]) + " " + returnType + " " + signature(index, symbolOf(index)) +
           " {\n";
  // Every local has one type for the whole function: declare them all up front (but those
  // without a type, which only removed code assigns).
  for (size_t i = 0; i < function.locals.size(); ++i) {
    const types::Type* type = function.locals[i].type;
    // A stage view is declared where its loop assigns it (its type is the view's).
    if (params.count(static_cast<int>(i)) || type == nullptr || function.locals[i].stageView) continue;
    WEFT_CHECK(!types::holdsAtomic(type),
               "a local holding atomics (sema keeps those in place): " + function.locals[i].name);
    const sema::Local& local = function.locals[i];
    const std::string declared = heldTileTypeName(type, local.mmaOperands, local.mmaLayout, local.tmaAccumulator);
    line(1, "[[maybe_unused]] " + declared + " " + localName(static_cast<int>(i)) + "{};");
  }
  functionStorage_.clear();
  collectArrayStorage(function.body);
  for (const TypedStmt* stmt : functionStorage_) {
    const ArrayStorage& storage = storage_.at(stmt);
    const types::Type* type = function.locals.at(stmt->local).type;
    std::string element = type->element != nullptr ? typeName(type->element) : types::cxxName(type->scalar);
    if (element.find(',') != std::string::npos) {
      // A macro argument cannot contain a template's comma.
      line(1, "using " + storage.name + "_element = " + element + ";");
      element = storage.name + "_element";
    }
    if (stmt->align != 0) {
      // align= (weft/device/simt.h).
      useHeader(sema::BuiltinHeader::Simt);
      std::string align = std::to_string(stmt->align);
      if (type->space == types::MemorySpace::Shared) {
        line(1, "WEFT_SHARED_STORAGE_ALIGNED(" + element + ", " + storage.name + ", " + std::to_string(storage.count) +
                    ", " + std::to_string(storage.sharedOffset) + ", " + align + ");");
      } else {
        line(1, "WEFT_LOCAL_STORAGE_ALIGNED(" + element + ", " + storage.name + ", " + std::to_string(storage.count) +
                    ", " + align + ");");
      }
    } else if (type->space == types::MemorySpace::Shared) {
      line(1, "WEFT_SHARED_STORAGE(" + element + ", " + storage.name + ", " + std::to_string(storage.count) +
                  ", " + std::to_string(storage.sharedOffset) + ");");
    } else {
      line(1, "WEFT_LOCAL_STORAGE(" + element + ", " + storage.name + ", " + std::to_string(storage.count) +
                  ");");
    }
  }
  block(function.body, 1);
  bool endsWithReturn = !function.body.empty() && function.body.back()->kind == TypedStmtKind::Return;
  if (!function.isKernel && returnType != "void" && !endsWithReturn) {
    // Sema rejects falling off a function that returns a value; this keeps C++ well defined.
    line(1, "return " + returnType + "{};");
  }
  body_ += "}\n\n";
  function_ = nullptr;
}

// A kernel's symbol: an interoperable kernel's Python name; another kernel's placeholder for
// weft_<name>_<n>_<hash of the unit>. A function's C++ name.
std::string CudaEmitter::symbolOf(int index) const {
  const TypedFunction& function = program_.functions[index];
  if (!function.isKernel) return functionName(index);
  return function.interop ? function.pythonName : symbolPlaceholder(index);
}

// The CPU target's entry of kernel `index`: runs it as the simulated thread `context`.
std::string CudaEmitter::hostEntry(int index) {
  const TypedFunction& kernel = program_.functions[index];
  std::string entry = "extern \"C\" void " + symbolOf(index) + "_host(weft::host::ThreadContext* context, void** args) {\n";
  entry += "  weft::host::current = context;\n";
  if (kernel.params.empty()) entry += "  static_cast<void>(args);\n";
  entry += "  " + symbolOf(index) + "(";
  function_ = &kernel;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (i) entry += ", ";
    entry += "*static_cast<" + typeName(kernel.locals.at(kernel.params[i]).type) + "*>(args[" + std::to_string(i) + "])";
  }
  function_ = nullptr;
  return entry + ");\n}\n";
}

EmittedUnit CudaEmitter::emit() {
  WEFT_CHECK(!program_.entries.empty(), "a typed program without entry points");
  recursive_ = recursiveFunctions();
  for (int entry : program_.entries) {
    WEFT_CHECK(!program_.functions[entry].isKernel || !recursive_[entry], "a kernel calls itself");
  }

  if (program_.kernel >= 0) collectTensorMaps(program_.functions[static_cast<size_t>(program_.kernel)].body);
  std::string forwards;
  for (size_t i = 0; i < program_.functions.size(); ++i) {
    const TypedFunction& function = program_.functions[i];
    if (function.isKernel) continue;
    forwards += qualifiers(function, recursive_[i]) + " " + returnTypeName(function.returnType) + " " +
                signature(static_cast<int>(i), functionName(static_cast<int>(i))) + ";\n";
  }
  for (size_t i = 0; i < program_.functions.size(); ++i) functionBody(static_cast<int>(i));

  std::string entries;
  for (size_t i = 0; i < program_.functions.size(); ++i) {
    if (program_.functions[i].isKernel) entries += hostEntry(static_cast<int>(i));
  }
  std::string asserts = interopAsserts();

  const TypedFunction& first = program_.functions[program_.entries.front()];
  std::string unit;
  unit += "// Generated by weft from " + commentText(first.pythonName) +
          (program_.entries.size() > 1 ? " and others" : "") + ". Do not edit.\n";
  if (const sema::TileBlock& block = program_.tileBlock; block.threads > 0)
    unit += "#define WEFT_TILE_THREADS " + std::to_string(block.threads) + "\n#define WEFT_TILE_MIN_BLOCKS " +
            std::to_string(block.minBlocks) + "\n#define WEFT_TILE_MAX_VECTOR " + std::to_string(block.vector) + "\n" +
            (block.groupRows > 0 ? "#define WEFT_TILE_GROUP_ROWS " + std::to_string(block.groupRows) + "\n" : "") +
            (block.mmaWholeRows ? "#define WEFT_TILE_MMA_WHOLE_ROWS 1\n" : "");
  unit += "#include <weft/device/runtime.h>\n";
  unit += typeHeaders();
  // After the narrow floats' headers, which the tile header's element types need declared.
  if (usesTiles_) unit += "#include <weft/tiles.h>\n#include <weft/tiles/arrays.h>\n";
  if (!tmaStoreMaps_.empty()) unit += "#include <weft/tiles/store_tma.h>\n";
  if (usesLoopTiles_) unit += "#include <weft/tiles/loop_prefetch.h>\n";
  unit += builtinHeaders() + "\n";
  unit += typeDecls_;
  unit += constantData();
  unit += asserts;
  if (!typeDecls_.empty() || !asserts.empty()) unit += "\n";
  unit += forwards;
  if (!forwards.empty()) unit += "\n";
  unit += body_;
  if (!entries.empty()) unit += "#if defined(WEFT_HOST)\n// The CPU target's entries.\n" + entries + "#endif\n";

  // Every non-interoperable kernel is weft_<name>_<n>_<hash>: the hash of the unit tells apart
  // the specializations of one kernel (and kernels of one name) loaded in one process.
  std::string hash = ContentHash().add(unit).hex().substr(0, 16);
  EmittedUnit result;
  std::vector<std::string> placeholderSymbols(program_.functions.size());
  for (size_t i = 0; i < program_.functions.size(); ++i) {
    const TypedFunction& function = program_.functions[i];
    if (!function.isKernel) continue;
    std::string symbol = function.pythonName;
    if (!function.interop)
      symbol = placeholderSymbols[i] = userName(NameKind::Kernel, function.pythonName, i) + "_" + hash;
    result.kernels.push_back({function.pythonName, symbol});
    if (static_cast<int>(i) == program_.kernel) {
      result.kernelSymbol = symbol;
      result.hostEntrySymbol = symbol + "_host";
    }
  }
  result.source = substituteSymbols(unit, placeholderSymbols);
  // A multiple of 16, so that the dynamic shared memory after it is aligned for any element.
  result.hostSharedBytes = (sharedBytes_ + 15) / 16 * 16;
  result.checkSites = std::move(checkSites_);
  result.hasInteropAbiCheck = !asserts.empty();
  result.features = features_;
  result.tensorMaps = tensorMaps_;
  return result;
}

EmittedUnit emitCuda(const sema::TypedProgram& program, const SourceManager& sources) {
  return CudaEmitter(program, sources).emit();
}

}  // namespace weft::codegen
