// The sema driver: specializations of functions per argument signature, the fixed-point
// typing of each function's locals, scopes and name resolution, and the assembly of the
// typed program.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "sema/checker.h"
#include "support/check.h"
#include "syntax/syntax.h"

namespace weft::sema {

namespace {

// The short spelling of a type in mangled names.
std::string mangleScalar(types::ScalarKind kind) {
  std::string name = types::pythonName(kind);
  if (name == "bool") return "b";
  if (name == "bfloat16") return "bf16";
  if (name.starts_with("uint")) return "u" + name.substr(4);
  if (name.starts_with("int")) return "i" + name.substr(3);
  if (name.starts_with("float")) return "f" + name.substr(5);
  return "c" + name.substr(7);
}

std::string mangleType(const types::Type* type) {
  switch (type->kind) {
    case types::TypeKind::Error: return "err";
    case types::TypeKind::None: return "none";
    case types::TypeKind::Scalar: return mangleScalar(type->scalar);
    case types::TypeKind::Array: {
      std::string space;
      switch (type->space) {
        case types::MemorySpace::Global: break;
        case types::MemorySpace::Shared: space = "s"; break;
        case types::MemorySpace::Local: space = "l"; break;
        case types::MemorySpace::Constant: space = "c"; break;
      }
      return "a" + std::to_string(type->ndim) + space +
             (type->element != nullptr ? mangleType(type->element) : mangleScalar(type->scalar));
    }
    case types::TypeKind::Vector: return "v" + std::to_string(type->size) + mangleScalar(type->scalar);
    case types::TypeKind::Tuple: {
      std::string text = "t" + std::to_string(type->elements.size());
      for (const types::Type* element : type->elements) text += mangleType(element);
      return text + "e";
    }
    case types::TypeKind::Struct: return "r" + std::to_string(type->name.size()) + type->name;
    case types::TypeKind::Atomic: return "y" + std::to_string(type->align) + mangleScalar(type->scalar);
    case types::TypeKind::AtomicRef: return "q" + mangleScalar(type->scalar);
    case types::TypeKind::WarpMask: return "wm";
    case types::TypeKind::Tile: {
      std::string text = "l" + std::to_string(type->shape.size());
      for (int64_t extent : type->shape) text += "_" + std::to_string(extent);
      return text + mangleScalar(type->scalar);
    }
    case types::TypeKind::TileView: {
      std::string text = "pv" + std::to_string(type->padding);
      for (int64_t extent : type->shape) text += "_" + std::to_string(extent);
      return text + mangleType(type->elements[0]);
    }
    case types::TypeKind::InlineArray: {
      std::string text = "n";
      for (int64_t extent : type->shape) text += std::to_string(extent) + "_";
      return text + mangleScalar(type->scalar);
    }
  }
  return "x";
}

}  // namespace

void forEachExpr(const std::vector<TypedStmt*>& body, const std::function<void(const TypedExpr&)>& visit) {
  std::function<void(const TypedExpr&)> walk = [&](const TypedExpr& e) {
    visit(e);
    for (const TypedExpr* operand : e.operands) walk(*operand);
  };
  for (const TypedStmt* s : body) {
    for (const TypedExpr* operand : s->operands) walk(*operand);
    forEachExpr(s->body, visit);
    forEachExpr(s->orelse, visit);
  }
}

namespace {

// Calls `visit` on every def (async ones too) in `body`, at any nesting, until it returns true;
// whether it did.
bool forEachDef(const std::vector<syntax::Stmt*>& body,
                const std::function<bool(const syntax::FunctionDefStmt&)>& visit) {
  for (const syntax::Stmt* s : body) {
    const std::vector<syntax::Stmt*>* inner[3] = {nullptr, nullptr, nullptr};
    switch (s->kind) {
      case syntax::StmtKind::FunctionDef:
      case syntax::StmtKind::AsyncFunctionDef: {
        const auto& def = syntax::as<syntax::FunctionDefStmt>(*s);
        if (visit(def)) return true;
        inner[0] = &def.body;
        break;
      }
      case syntax::StmtKind::ClassDef: inner[0] = &syntax::as<syntax::ClassDefStmt>(*s).body; break;
      case syntax::StmtKind::If:
        inner[0] = &syntax::as<syntax::IfStmt>(*s).body;
        inner[1] = &syntax::as<syntax::IfStmt>(*s).orelse;
        break;
      case syntax::StmtKind::For:
      case syntax::StmtKind::AsyncFor:
        inner[0] = &syntax::as<syntax::ForStmt>(*s).body;
        inner[1] = &syntax::as<syntax::ForStmt>(*s).orelse;
        break;
      case syntax::StmtKind::While:
        inner[0] = &syntax::as<syntax::WhileStmt>(*s).body;
        inner[1] = &syntax::as<syntax::WhileStmt>(*s).orelse;
        break;
      case syntax::StmtKind::With:
      case syntax::StmtKind::AsyncWith: inner[0] = &syntax::as<syntax::WithStmt>(*s).body; break;
      case syntax::StmtKind::Try:
      case syntax::StmtKind::TryStar: {
        const auto& t = syntax::as<syntax::TryStmt>(*s);
        inner[0] = &t.body;
        inner[1] = &t.orelse;
        inner[2] = &t.finalbody;
        for (const syntax::ExceptHandler* handler : t.handlers)
          if (forEachDef(handler->body, visit)) return true;
        break;
      }
      case syntax::StmtKind::Return:
      case syntax::StmtKind::Delete:
      case syntax::StmtKind::Assign:
      case syntax::StmtKind::AugAssign:
      case syntax::StmtKind::AnnAssign:
      case syntax::StmtKind::Raise:
      case syntax::StmtKind::Assert:
      case syntax::StmtKind::Import:
      case syntax::StmtKind::ImportFrom:
      case syntax::StmtKind::Global:
      case syntax::StmtKind::Nonlocal:
      case syntax::StmtKind::Expr:
      case syntax::StmtKind::Pass:
      case syntax::StmtKind::Break:
      case syntax::StmtKind::Continue: break;
    }
    for (const auto* list : inner)
      if (list != nullptr && forEachDef(*list, visit)) return true;
  }
  return false;
}

// Whether `def` is the (non-async) def of `name` whose first decorator or `def` is at `line`.
bool definesAt(const syntax::FunctionDefStmt& def, const std::string& name, uint32_t line) {
  return def.kind == syntax::StmtKind::FunctionDef && def.name == name &&
         (def.loc.line == line ||
          (!def.decoratorList.empty() && def.decoratorList.front()->loc.line == line));
}

// The def equivalent to the innermost lambda of `module` around 1-based `line`, 0-based byte
// `column` (`lambda x: e` is `def <lambda>(x): return e`), made in `made` on first use;
// nullptr when no lambda is there.
const syntax::FunctionDefStmt* lambdaAt(const syntax::Module& module, syntax::Module& made, uint32_t line,
                                        uint32_t column) {
  auto before = [](uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) { return l1 < l2 || (l1 == l2 && c1 <= c2); };
  const syntax::LambdaExpr* found = nullptr;
  for (const std::unique_ptr<syntax::Node>& node : module.nodes) {
    const auto* lambda = dynamic_cast<const syntax::LambdaExpr*>(node.get());
    if (lambda == nullptr || !before(lambda->loc.line, lambda->loc.column, line, column) ||
        !before(line, column + 1, lambda->endLine, lambda->endColumn))
      continue;
    if (found == nullptr || before(found->loc.line, found->loc.column, lambda->loc.line, lambda->loc.column))
      found = lambda;
  }
  if (found == nullptr) return nullptr;
  for (const std::unique_ptr<syntax::Node>& node : made.nodes) {
    const auto* def = dynamic_cast<const syntax::FunctionDefStmt*>(node.get());
    if (def != nullptr && def->name == "<lambda>" && def->body.size() == 1 &&
        syntax::as<syntax::ReturnStmt>(*def->body[0]).value == found->body)
      return def;
  }
  auto* body = made.make<syntax::ReturnStmt>();
  body->loc = found->body->loc;
  body->value = found->body;
  auto* def = made.make<syntax::FunctionDefStmt>();
  def->loc = found->loc;
  def->endLine = found->endLine;
  def->endColumn = found->endColumn;
  def->name = "<lambda>";
  def->args = found->args;
  def->body.push_back(body);
  return def;
}

}  // namespace

const syntax::FunctionDefStmt* findDef(const std::vector<syntax::Stmt*>& body, const std::string& name,
                                       uint32_t line) {
  const syntax::FunctionDefStmt* found = nullptr;
  forEachDef(body, [&](const syntax::FunctionDefStmt& def) {
    if (definesAt(def, name, line)) found = &def;
    return found != nullptr;
  });
  return found;
}

const syntax::FunctionDefStmt* lambdaDefinition(const syntax::Module& module, syntax::Module& made,
                                               const FunctionSource& source) {
  if (source.name != "<lambda>" || source.bodyLine == 0) return nullptr;
  return lambdaAt(module, made, source.bodyLine, source.bodyColumn);
}

bool alwaysReturns(const std::vector<syntax::Stmt*>& body) {
  for (const syntax::Stmt* s : body) {
    if (s->kind == syntax::StmtKind::Return) return true;
    if (s->kind == syntax::StmtKind::If) {
      const auto& branch = syntax::as<syntax::IfStmt>(*s);
      if (alwaysReturns(branch.body) && alwaysReturns(branch.orelse)) return true;
    }
    if (s->kind == syntax::StmtKind::While) {
      const auto& loop = syntax::as<syntax::WhileStmt>(*s);
      bool forever = loop.test->kind == syntax::ExprKind::Constant &&
                     syntax::as<syntax::ConstantExpr>(*loop.test).value.kind == syntax::ConstantValue::Kind::Bool &&
                     syntax::as<syntax::ConstantExpr>(*loop.test).value.boolValue;
      bool breaks = false;
      std::function<void(const std::vector<syntax::Stmt*>&)> findBreak = [&](const std::vector<syntax::Stmt*>& stmts) {
        for (const syntax::Stmt* inner : stmts) {
          if (inner->kind == syntax::StmtKind::Break) breaks = true;
          if (inner->kind == syntax::StmtKind::If) {
            findBreak(syntax::as<syntax::IfStmt>(*inner).body);
            findBreak(syntax::as<syntax::IfStmt>(*inner).orelse);
          }
        }
      };
      findBreak(loop.body);
      if (forever && !breaks) return true;
    }
  }
  return false;
}

std::string mangle(const std::string& name, const std::vector<ArgumentInfo>& arguments, const std::vector<bool>& constParams) {
  std::string text = name + "_";
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i < constParams.size() && constParams[i]) continue;
    text += "_" + mangleType(arguments[i].type);
  }
  return text;
}

// ---- TypeJoin ----

types::ScalarKind combineWeak(types::ScalarKind strong, types::ScalarKind weak) {
  using types::ScalarKind;
  if (types::isBool(weak)) return strong;
  if (types::isInteger(weak)) return types::isBool(strong) ? weak : strong;
  if (types::isFloating(weak)) {
    if (types::isFloating(strong) || types::isComplex(strong)) return strong;
    return types::floatingFor(strong);
  }
  if (types::isComplex(strong)) return strong;
  return types::isFloating(strong) ? types::complexFor(strong) : types::complexFor(types::floatingFor(strong));
}

types::ScalarKind joinWeak(types::ScalarKind a, types::ScalarKind b) {
  if (types::isInteger(a) && types::isInteger(b)) {
    if (a == types::ScalarKind::UInt64 || b == types::ScalarKind::UInt64) return types::ScalarKind::UInt64;
    return types::byteSize(a) >= types::byteSize(b) ? a : b;
  }
  return *types::promote(a, b);
}

const types::Type* joinTypes(const types::Type* a, const types::Type* b, types::TypeContext& types) {
  if (a == b) return a;
  if (a->isScalar() && b->isScalar()) {
    auto common = types::promote(a->scalar, b->scalar);
    return common ? types.scalar(*common) : nullptr;
  }
  // Arrays (and views of arrays) that differ only in their launch facts: the facts both have.
  if ((a->isArray() || a->kind == types::TypeKind::TileView) && a->kind == b->kind &&
      types.withoutFacts(a) == types.withoutFacts(b)) {
    if (a->isArray()) return types.withFacts(a, a->facts & b->facts);
    const types::Type* array = joinTypes(a->elements[0], b->elements[0], types);
    return types.tileView(array, a->shape, a->padding);
  }
  if (a->kind == types::TypeKind::Tuple && b->kind == types::TypeKind::Tuple && a->elements.size() == b->elements.size()) {
    std::vector<const types::Type*> elements;
    for (size_t i = 0; i < a->elements.size(); ++i) {
      const types::Type* joined = joinTypes(a->elements[i], b->elements[i], types);
      if (joined == nullptr) return nullptr;
      elements.push_back(joined);
    }
    return types.tuple(elements);
  }
  return nullptr;
}

const types::Type* TypeJoin::result(types::TypeContext& types) const {
  if (strong == nullptr) return weak ? types.scalar(*weak) : nullptr;
  if (weak && strong->isScalar()) return types.scalar(combineWeak(strong->scalar, *weak));
  return strong;
}

// ---- ProgramChecker ----

ProgramChecker::ProgramChecker(types::TypeContext& types, SourceManager& sources, Diagnostics& diagnostics, bool debug)
    : types(types), sources(sources), diagnostics(diagnostics), debug(debug) {}

const syntax::FunctionDefStmt* ProgramChecker::findDefinition(const FunctionSource& source, Diagnostics& sink,
                                                              SourceLoc callLoc, uint32_t& file) {
  // Each file is parsed once per program and its defs indexed by line, so that a file of
  // thousands of functions costs time linear in its size (a search of the tree per function
  // would not). Files are told apart by their text, not by the object that holds it.
  ParsedFile* parsed = nullptr;
  auto range = files_.equal_range(source.file->name());
  for (auto it = range.first; it != range.second && parsed == nullptr; ++it) {
    if (it->second.source == source.file || it->second.source->text() == source.file->text())
      parsed = &it->second;
  }
  if (parsed == nullptr) {
    ParsedFile entry;
    entry.source = source.file;
    entry.file = sources.add(source.file);
    size_t reported = diagnostics.all().size();
    entry.module = syntax::parseShared(entry.file, diagnostics, parses_);
    // After a syntax error the module is partial (placeholders where the error was): nothing in
    // the file is checked, so the syntax error is the only message.
    if (diagnostics.all().size() > reported) entry.module.reset();
    if (entry.module) {
      forEachDef(entry.module->body, [&](const syntax::FunctionDefStmt& def) {
        entry.defsByLine[def.loc.line].push_back(&def);
        if (!def.decoratorList.empty() && def.decoratorList.front()->loc.line != def.loc.line)
          entry.defsByLine[def.decoratorList.front()->loc.line].push_back(&def);
        return false;
      });
    }
    parsed = &files_.emplace(source.file->name(), std::move(entry))->second;
  }
  file = parsed->file;
  if (!parsed->module) return nullptr;
  if (auto candidates = parsed->defsByLine.find(source.line); candidates != parsed->defsByLine.end()) {
    for (const syntax::FunctionDefStmt* def : candidates->second)
      if (definesAt(*def, source.name, source.line)) return def;
  }
  if (const syntax::FunctionDefStmt* def = lambdaDefinition(*parsed->module, parsed->made, source)) return def;
  sink.error(diag::FunctionNotFound, callLoc,
             {source.name, source.file->name(), std::to_string(source.line)});
  return nullptr;
}

void ProgramChecker::recordGlobal(const std::shared_ptr<Environment>& environment, const std::string& name,
                                  const ConstValue& value, bool byIdentity) {
  for (const GlobalDependency& dependency : globals_) {
    if (dependency.environment == environment && dependency.name == name) return;
  }
  globals_.push_back(GlobalDependency{environment, name, value, byIdentity});
}

int ProgramChecker::constantArray(const std::shared_ptr<const ConstArray>& array) {
  // Each lookup of a global gives a new copy: equal contents are one array.
  for (size_t i = 0; i < constantArrays_.size(); ++i) {
    const ConstArray& known = *constantArrays_[i];
    if (known.dtype == array->dtype && known.shape == array->shape && known.bytes == array->bytes)
      return static_cast<int>(i);
  }
  constantArrays_.push_back(array);
  return static_cast<int>(constantArrays_.size() - 1);
}

int ProgramChecker::specialize(const std::shared_ptr<FunctionSource>& source, const std::vector<ArgumentInfo>& requested,
                               Diagnostics& sink, SourceLoc callLoc,
                               const std::vector<std::shared_ptr<const Value>>& statics) {
  NestingLevel level(nesting);
  if (level.tooDeep()) {
    sink.error(diag::TooDeeplyNested, callLoc, {std::to_string(kMaxNestingDepth)});
    return -1;
  }
  uint32_t file = 0;
  const syntax::FunctionDefStmt* def = findDefinition(*source, sink, callLoc, file);
  if (def == nullptr) return -1;
  SourceLoc where = callLoc.line != 0 ? callLoc : def->loc;
  std::vector<ParameterDescription> described;
  if (!describeParameters(*def, source->globals.get(), types, sink, described)) return -1;
  std::vector<const syntax::Arg*> params = positionalParameters(*def);
  // Hidden arguments follow the declared ones: the captured locals of the lambdas passed (static
  // arguments), then those of the function itself (FunctionSource::capturedLocals).
  // Their number follows from the lambdas' captures (appendCaptures, depth first).
  auto capturesOf = [](const Value* function) {
    std::vector<Value> captured;
    if (function != nullptr) appendCaptures(*function, captured);
    return captured.size();
  };
  size_t end = params.size();
  for (size_t i = 0; i < std::min(params.size(), statics.size()); ++i) end += capturesOf(statics[i].get());
  for (size_t k = 0; k < source->capturedLocals.size() && end < statics.size(); ++k) end += 1 + capturesOf(statics[end].get());
  size_t hidden = end - params.size();
  if (params.size() + hidden != requested.size()) {
    if (source->decorator == FunctionSource::Decorator::Kernel && callLoc.line == 0) {
      sink.error(diag::KernelArgumentCount, def->loc,
                 {source->name, std::to_string(params.size()), std::to_string(requested.size())});
    } else {
      sink.error(diag::ArgumentCount, where,
                 {"function '" + source->name + "'", std::to_string(params.size()) + " positional arguments",
                  std::to_string(requested.size() - std::min(hidden, requested.size()))});
    }
    return -1;
  }
  // Annotated parameters have their declared types (an interoperable function's are all annotated).
  std::vector<ArgumentInfo> arguments = requested;
  if (!annotatedArguments(*source, params, described, where, sink, arguments)) return -1;
  std::vector<bool> constParams(requested.size(), false);
  std::vector<const types::Type*> constTypes(requested.size(), nullptr);
  std::string key = std::to_string(source->identity) + "|" + source->file->name() + ":" +
                    std::to_string(def->loc.line) + "|" + source->name;
  bool ok = true;
  for (size_t i = 0; i < params.size(); ++i) {
    const syntax::Arg& param = *params[i];
    if (described[i].kind == ParameterDescription::Kind::ConstExpr) {
      constParams[i] = true;
      constTypes[i] = described[i].type;
    }
    const ArgumentInfo& argument = arguments[i];
    const Value* staticValue = i < statics.size() ? statics[i].get() : nullptr;
    if (staticValue != nullptr && !constParams[i]) {
      constParams[i] = true;
      key += "|&" + staticArgumentKey(*staticValue);
      continue;
    }
    if (constParams[i]) {
      if (!argument.constant || !isNumber(*argument.constant)) {
        std::string need = constTypes[i] ? "a constant " + types::toString(constTypes[i]) : std::string("a constant number");
        std::string got = argument.constant ? toString(*argument.constant)
                                            : (argument.type ? "a run-time " + types::toString(argument.type) : "a run-time value");
        sink.error(diag::ConstExprArgument, where, {param.arg, need, got});
        ok = false;
        continue;
      }
      if (constTypes[i] && !fitsScalar(*argument.constant, constTypes[i]->scalar, false)) {
        sink.error(diag::ConstExprArgument, where,
                   {param.arg, "a constant " + types::toString(constTypes[i]), toString(*argument.constant)});
        ok = false;
        continue;
      }
      key += "|=" + toString(*argument.constant);
    } else {
      WEFT_CHECK(argument.type != nullptr, "a run-time argument has a type");
      key += "|" + types::toString(argument.type);
    }
  }
  for (size_t i = params.size(); i < arguments.size(); ++i) {
    const Value* staticValue = i < statics.size() ? statics[i].get() : nullptr;
    constParams[i] = staticValue != nullptr;
    key += staticValue != nullptr ? "|&" + staticArgumentKey(*staticValue) : "|" + types::toString(arguments[i].type);
  }
  if (!ok) return -1;
  auto found = byKey_.find(key);
  if (found != byKey_.end()) return found->second;

  int index = static_cast<int>(specs_.size());
  Specialization& spec = specs_.emplace_back();
  spec.source = source;
  spec.def = def;
  spec.file = file;
  spec.arguments = arguments;
  spec.constParams = constParams;
  spec.statics = statics;
  spec.statics.resize(arguments.size());
  spec.constParamTypes = constTypes;
  spec.key = key;
  spec.diagnostics = std::make_unique<Diagnostics>(sources);
  byKey_.emplace(key, index);
  if (source->interop) checkInteropName(*source, *def, *spec.diagnostics);
  if (def->returns != nullptr) {
    bool returnsNone = def->returns->kind == syntax::ExprKind::Constant &&
                       syntax::as<syntax::ConstantExpr>(*def->returns).value.kind == syntax::ConstantValue::Kind::None;
    Annotation annotation = resolveAnnotation(*def->returns, source->globals.get(), types);
    if (returnsNone) {
      spec.declaredReturn = types.none();
    } else if (annotation.kind == Annotation::Kind::Type) {
      spec.declaredReturn = annotation.type;
    } else {
      spec.diagnostics->error(diag::BadAnnotation, def->returns->loc, {"this return annotation"});
    }
  }
  checkSpecialization(index);
  return index;
}

void ProgramChecker::checkSpecialization(int index) {
  // Passes run with throwaway diagnostics and nodes until the facts (local types, return
  // type) stop changing; a last pass with the real ones builds the typed function.
  FunctionFacts facts;
  constexpr int kMaxPasses = 16;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    specialization(index).facts = facts;
    TypedProgram scratch;
    Diagnostics scratchDiagnostics(sources);
    TypedFunction ignored;
    FunctionChecker checker(*this, index, scratch, scratchDiagnostics, false);
    FunctionFacts next = checker.run(ignored);
    if (next == facts) break;
    facts = std::move(next);
  }
  Specialization& spec = specialization(index);
  spec.facts = facts;
  FunctionChecker checker(*this, index, program_, *spec.diagnostics, true);
  checker.run(spec.function);
  Specialization& done = specialization(index);
  done.state = Specialization::State::Done;
  done.completion = completed_++;
  // Mutually recursive callers typed their calls with the return type known then.
  for (const Specialization::RecursiveRead& read : done.recursiveReads) {
    if (read.type != done.function.returnType) {
      specialization(read.reader).diagnostics->error(diag::RecursiveReturnType, read.loc, {done.source->name});
    }
  }
}

TypedProgram ProgramChecker::run(const CheckRequest& request) {
  WEFT_CHECK(!request.entries.empty(), "check() needs an entry point");
  parses_ = request.parses;
  std::vector<int> entries;
  for (const CheckEntry& entry : request.entries) {
    WEFT_CHECK(entry.function != nullptr, "an entry point without a function");
    if (tileFace == FunctionSource::Face::Simt) tileFace = entry.function->face;
  }
  for (const CheckEntry& entry : request.entries) {
    entries.push_back(specialize(entry.function, entry.arguments, diagnostics, SourceLoc{}));
  }
  TypedProgram result = std::move(program_);
  if (std::find(entries.begin(), entries.end(), -1) != entries.end()) return result;

  // The specializations the entries reach, each with the call that first reached it.
  std::vector<int> reached;
  std::map<int, std::pair<int, SourceLoc>> parent;
  std::set<int> seen;
  for (int entry : entries) {
    if (seen.insert(entry).second) reached.push_back(entry);
  }
  for (size_t i = 0; i < reached.size(); ++i) {
    int caller = reached[i];
    for (const auto& [callee, loc] : specialization(caller).calls) {
      if (seen.insert(callee).second) {
        reached.push_back(callee);
        parent[callee] = {caller, loc};
      }
    }
  }
  for (int index : reached) {
    for (const Diagnostic& d : specialization(index).diagnostics->all()) {
      DiagnosticKind kind{d.kind, "{0}"};
      Diagnostic& copy = d.severity == Severity::Warning ? diagnostics.warning(kind, d.loc, {d.message})
                                                         : diagnostics.error(kind, d.loc, {d.message});
      copy.notes = d.notes;
      // The call chain, from the innermost call; a long one shows its first kMaxCallNotes calls.
      constexpr size_t kMaxCallNotes = 10;
      size_t calls = 0;
      for (int at = index; parent.count(at) != 0; at = parent[at].first, ++calls) {
        if (calls < kMaxCallNotes) {
          copy.notes.push_back(
              {parent[at].second, "in function '" + specialization(at).source->name + "' called from here"});
        }
      }
      if (calls > kMaxCallNotes) {
        copy.notes.push_back(
            {SourceLoc{}, "... and " + std::to_string(calls - kMaxCallNotes) + " calls more"});
      }
    }
  }

  std::vector<int> order = reached;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return specialization(a).completion < specialization(b).completion; });
  std::map<int, int> position;
  std::set<std::string> names;
  for (int index : order) {
    position[index] = static_cast<int>(result.functions.size());
    TypedFunction& function = result.functions.emplace_back(std::move(specialization(index).function));
    std::string unique = function.name;
    for (int suffix = 2; !names.insert(unique).second; ++suffix) unique = function.name + "_" + std::to_string(suffix);
    function.name = unique;
  }
  for (TypedFunction& function : result.functions) {
    forEachExpr(function.body, [&](const TypedExpr& e) {
      if (e.kind == TypedExprKind::Call) const_cast<TypedExpr&>(e).callee = position.at(e.callee);
    });
  }
  for (int entry : entries) {
    result.entries.push_back(position.at(entry));
    if (result.kernel < 0 && result.functions[static_cast<size_t>(result.entries.back())].isKernel) {
      result.kernel = result.entries.back();
      if (result.functions[static_cast<size_t>(result.kernel)].isTileKernel)
        result.tileBlock = tileBlockFor(largestTile, largestAccumulator, narrowestMemoryElement, widestMemoryElement,
                                         memoryWithoutFacts);
      int param = 0;
      for (bool isConst : specialization(entry).constParams) result.argumentToParam.push_back(isConst ? -1 : param++);
    }
  }
  checkLocalMemory(result, types, diagnostics);
  markHostCallable(result, diagnostics);
  markMmaPipelines(result, request.pipelineStages);
  markLoopPrefetches(result);
  markTileLayouts(result);
  markWholeRowWarps(result);
  result.globals = globals_;
  result.constantArrays = constantArrays_;
  result.usesTiles = usesTiles;
  return result;
}

TypedProgram check(const CheckRequest& request, types::TypeContext& types, SourceManager& sources, Diagnostics& diagnostics) {
  ProgramChecker checker(types, sources, diagnostics, request.debug);
  return checker.run(request);
}

// ---- FunctionChecker: scopes, names, the pass driver ----

FunctionChecker::FunctionChecker(ProgramChecker& program, int specIndex, TypedProgram& nodes, Diagnostics& sink, bool finalPass)
    : program(program), specIndex(specIndex), types(program.types), nodes(nodes), sink(sink), finalPass(finalPass) {}

int FunctionChecker::addLocal(const std::string& name, SourceLoc loc) {
  auto found = localByName_.find(name);
  if (found != localByName_.end()) return found->second;
  int index = static_cast<int>(locals_.size());
  LocalState& local = locals_.emplace_back();
  local.name = name;
  local.loc = loc;
  localByName_.emplace(name, index);
  return index;
}

int FunctionChecker::newTemporary(const types::Type* type, SourceLoc loc) {
  int index = static_cast<int>(locals_.size());
  LocalState& local = locals_.emplace_back();
  local.name = "$t" + std::to_string(temporaries_++);
  local.loc = loc;
  local.declared = true;
  local.fixed = type;
  return index;
}

void FunctionChecker::noteAnnotation(const syntax::AnnAssignStmt& s) {
  if (s.target->kind != syntax::ExprKind::Name) return;
  const std::string& id = syntax::as<syntax::NameExpr>(*s.target).id;
  if (constParams_.count(id) != 0) return;
  LocalState& local = locals_[static_cast<size_t>(addLocal(id, s.loc))];
  Annotation annotation = resolveAnnotation(*s.annotation, spec().source->globals.get(), types);
  if (annotation.kind != Annotation::Kind::Type || !annotation.type->isScalar()) {
    sink.error(diag::BadAnnotation, s.annotation->loc, {"this annotation"});
    return;
  }
  if (local.isParam) {
    if (annotation.type != local.fixed) {
      sink.error(diag::AnnotationConflict, s.annotation->loc,
                 {id, types::toString(annotation.type), "by its argument as " + types::toString(local.fixed)});
    }
    return;
  }
  if (local.declared && local.fixed != annotation.type) {
    sink.error(diag::AnnotationConflict, s.annotation->loc, {id, types::toString(annotation.type), types::toString(local.fixed)})
        .notes.push_back({local.loc, "annotated " + types::toString(local.fixed) + " here"});
    return;
  }
  if (!local.declared) local.loc = s.loc;
  local.declared = true;
  local.fixed = annotation.type;
}

void FunctionChecker::scan(const std::vector<syntax::Stmt*>& body) {
  for (const syntax::Stmt* s : body) {
    if (s->kind == syntax::StmtKind::AnnAssign) noteAnnotation(syntax::as<syntax::AnnAssignStmt>(*s));
    forEachBinding(*s, false, [&](const std::string& name, SourceLoc loc, bool repeated) {
      if (constParams_.count(name) == 0)
        locals_[static_cast<size_t>(addLocal(name, loc))].assignments += repeated ? 2 : 1;
    });
    if (s->kind == syntax::StmtKind::For) {
      scan(syntax::as<syntax::ForStmt>(*s).body);
      scan(syntax::as<syntax::ForStmt>(*s).orelse);
    } else if (s->kind == syntax::StmtKind::While) {
      scan(syntax::as<syntax::WhileStmt>(*s).body);
      scan(syntax::as<syntax::WhileStmt>(*s).orelse);
    } else if (s->kind == syntax::StmtKind::If) {
      scan(syntax::as<syntax::IfStmt>(*s).body);
      scan(syntax::as<syntax::IfStmt>(*s).orelse);
    }
  }
}

const types::Type* FunctionChecker::localType(int local) const {
  const LocalState& state = locals_[static_cast<size_t>(local)];
  if (state.declared) return state.fixed;
  if (static_cast<size_t>(local) < assumed_.locals.size() && assumed_.locals[static_cast<size_t>(local)].type != nullptr) {
    return assumed_.locals[static_cast<size_t>(local)].type;
  }
  return state.join.result(types);
}

Value FunctionChecker::name(const syntax::NameExpr& e) {
  auto lambdaParam = lambdaParams_.find(e.id);
  if (lambdaParam != lambdaParams_.end()) return lambdaParam->second;
  auto constant = constParams_.find(e.id);
  if (constant != constParams_.end()) {
    Value v = constant->second;
    if (v.kind != Value::Kind::Constant) return v;  // a static argument: a function, a type...
    if (v.weak) return weakLiteral(*v.constant, e.loc);
    return typedLiteral(*v.constant, v.scalar, e.loc);
  }
  auto found = localByName_.find(e.id);
  if (found != localByName_.end()) {
    int index = found->second;
    const LocalState& state = locals_[static_cast<size_t>(index)];
    const types::Type* type = localType(index);
    if (type == nullptr) {
      bool poisoned = state.join.sawError ||
                      (static_cast<size_t>(index) < assumed_.locals.size() && assumed_.locals[static_cast<size_t>(index)].poisoned);
      if (poisoned) ++poisonedReads_;
      // Reported when the pass ends, once all code a constant condition removes is known.
      if (finalPass && !poisoned) unboundUses_.push_back(&e);
      return errorValue();
    }
    TypedExpr* ref = make(TypedExprKind::Local, type, e.loc);
    ref->local = index;
    bool nonNegative = state.nonNegative;
    std::optional<ConstValue> known;
    if (static_cast<size_t>(index) < assumed_.locals.size()) {
      nonNegative = assumed_.locals[static_cast<size_t>(index)].nonNegative;
      known = assumed_.locals[static_cast<size_t>(index)].constant;
    }
    if (state.isParam) nonNegative = type->isScalar() && types::isUnsigned(type->scalar);
    Value v = runtime(ref, nonNegative || (type->isScalar() && types::isUnsigned(type->scalar)));
    v.constant = known;
    return v;
  }
  const std::shared_ptr<Environment>& environment = spec().source->globals;
  GlobalMeaning meaning = resolveGlobal(environment.get(), e.id);
  switch (meaning.status) {
    case GlobalMeaning::Status::Ok: break;
    case GlobalMeaning::Status::Undefined: sink.error(diag::UndefinedName, e.loc, {e.id}); return errorValue();
    case GlobalMeaning::Status::Unsupported:
      sink.error(diag::UnsupportedGlobal, e.loc, {e.id, meaning.detail});
      return errorValue();
    case GlobalMeaning::Status::UnsupportedEntity:
      sink.error(diag::UnsupportedEntity, e.loc, {meaning.detail});
      return errorValue();
  }
  // A captured function or module, and a global array, are baked in as much as a constant is:
  // a closure's cell can be rebound (nonlocal) between launches, and a global rebound.
  if (meaning.fromEnvironmentConstant || meaning.byIdentity)
    program.recordGlobal(environment, e.id, meaning.fromEnvironmentConstant ? *meaning.value.constant : ConstValue{},
                         !meaning.fromEnvironmentConstant);
  if (meaning.array) return constantArray(meaning.array, e.loc);
  if (meaning.value.kind == Value::Kind::Constant) return constantValue(*meaning.value.constant, e.loc);
  return meaning.value;
}

void FunctionChecker::reportUnbound(const syntax::NameExpr& e) {
  for (const RemovedCode& removed : removed_) {
    bool assigned = false;
    for (const syntax::Stmt* s : removed.stmts) {
      forEachBinding(*s, true,
                     [&](const std::string& name, SourceLoc, bool) { assigned = assigned || name == e.id; });
    }
    if (!assigned) continue;
    std::string line = std::to_string(removed.ifLoc.line);
    std::string why;
    switch (removed.reason) {
      case RemovedCode::Reason::AlwaysTrue:
      case RemovedCode::Reason::AlwaysFalse:
        why = "the condition of the if at line " + line + " is always " +
              (removed.reason == RemovedCode::Reason::AlwaysTrue ? "True" : "False");
        break;
      case RemovedCode::Reason::AfterReturn:
        why = "it follows the if at line " + line +
              ", whose condition is constant and whose branch taken returns";
        break;
    }
    sink.error(diag::RemovedAssignment, e.loc, {e.id, why})
        .notes.push_back({removed.ifLoc, "decided at compile time here"});
    return;
  }
  sink.error(diag::UnboundLocal, e.loc, {e.id});
}

bool FunctionChecker::noteReturn(Value v, SourceLoc loc, bool bare) {
  const Specialization& s = spec();
  if (bare) {
    sawBareReturn_ = true;
    bareReturnLoc_ = loc;
    return true;
  }
  sawValueReturn_ = true;
  valueReturnLoc_ = loc;
  if (s.source->decorator == FunctionSource::Decorator::Kernel) {
    sink.error(diag::KernelReturnsValue, loc, {s.source->name});
    return false;
  }
  if (v.isError() || copiesAtomicStruct(v, "returning it", loc)) {
    returnJoin_.sawError = true;
    return false;
  }
  if (v.weak) {
    if (returnJoin_.strong != nullptr && !returnJoin_.strong->isScalar()) {
      sink.error(diag::ReturnMismatch, loc, {s.source->name, types::toString(v.type()), types::toString(returnJoin_.strong)});
      return false;
    }
    types::ScalarKind kind = builtinKindOf(*v.constant);
    returnJoin_.weak = returnJoin_.weak ? joinWeak(*returnJoin_.weak, kind) : kind;
    spec().runningReturn = returnJoin_.result(types);
    return true;
  }
  const types::Type* type = v.type();
  if (returnJoin_.strong == nullptr) {
    if (returnJoin_.weak && !type->isScalar()) {
      sink.error(diag::ReturnMismatch, loc, {s.source->name, types::toString(type), "a number"});
      return false;
    }
    returnJoin_.strong = type;
    returnJoin_.strongLoc = loc;
    spec().runningReturn = returnJoin_.result(types);
    return true;
  }
  const types::Type* joined = joinTypes(returnJoin_.strong, type, types);
  if (joined == nullptr) {
    sink.error(diag::ReturnMismatch, loc, {s.source->name, types::toString(type), types::toString(returnJoin_.strong)})
        .notes.push_back({returnJoin_.strongLoc, "returns " + types::toString(returnJoin_.strong) + " here"});
    returnJoin_.sawError = true;
    return false;
  }
  returnJoin_.strong = joined;
  spec().runningReturn = returnJoin_.result(types);
  return true;
}

FunctionFacts FunctionChecker::run(TypedFunction& out) {
  Specialization& s = spec();
  assumed_ = s.facts;
  const syntax::FunctionDefStmt& def = *s.def;
  std::vector<const syntax::Arg*> params(def.args->posonlyargs.begin(), def.args->posonlyargs.end());
  params.insert(params.end(), def.args->args.begin(), def.args->args.end());
  for (size_t i = 0; i < params.size(); ++i) {
    const ArgumentInfo& argument = s.arguments[i];
    if (s.statics[i] != nullptr) {
      constParams_[params[i]->arg] = *s.statics[i];
      continue;
    }
    if (s.constParams[i]) {
      Value bound;
      bound.kind = Value::Kind::Constant;
      bound.constant = argument.constant;
      bound.weak = s.constParamTypes[i] == nullptr;
      if (!bound.weak) bound.scalar = s.constParamTypes[i]->scalar;
      constParams_[params[i]->arg] = bound;
      continue;
    }
    if (s.source->decorator == FunctionSource::Decorator::Kernel && types::holdsAtomic(argument.type)) {
      sink.error(diag::AtomicStructArgument, params[i]->loc,
                 {params[i]->arg, types::toString(argument.type)});
    }
    int index = addLocal(params[i]->arg, params[i]->loc);
    LocalState& local = locals_[static_cast<size_t>(index)];
    local.isParam = true;
    local.declared = true;
    local.fixed = argument.type;
    out.params.push_back(index);
  }
  // Hidden parameters (ProgramChecker::specialize): each lambda argument's captured locals, which
  // its calls pass on, then the function's own, which its body reads by name.
  // They come in appendCaptures' order; a captured lambda's captures are rebound in turn.
  size_t hidden = params.size();
  std::function<void(Value&, SourceLoc)> rebind = [&](Value& function, SourceLoc loc) {
    if (function.kind == Value::Kind::StaticTuple) {
      for (Value& element : function.elements) rebind(element, loc);
      return;
    }
    if (function.kind != Value::Kind::Function) return;
    for (Value& captured : function.captures) {
      if (s.statics[hidden] != nullptr) {
        captured = *s.statics[hidden++];
        rebind(captured, loc);
        continue;
      }
      const types::Type* type = s.arguments[hidden++].type;
      int index = newTemporary(type, loc);
      locals_[static_cast<size_t>(index)].isParam = true;
      out.params.push_back(index);
      TypedExpr* ref = make(TypedExprKind::Local, type, loc);
      ref->local = index;
      captured = runtime(ref);
    }
  };
  for (size_t i = 0; i < params.size(); ++i)
    if (s.statics[i] != nullptr) rebind(constParams_[params[i]->arg], params[i]->loc);
  for (const std::string& captured : s.source->capturedLocals) {
    if (s.statics[hidden] != nullptr) {
      Value bound = *s.statics[hidden++];
      rebind(bound, def.loc);
      constParams_[captured] = bound;
      continue;
    }
    int index = addLocal(captured, def.loc);
    LocalState& local = locals_[static_cast<size_t>(index)];
    local.isParam = true;
    local.declared = true;
    local.fixed = s.arguments[hidden++].type;
    out.params.push_back(index);
  }
  scan(def.body);
  // Launch facts (weft/tiles/span_facts.h) hold of the argument a parameter receives: one the
  // body rebinds keeps none, and a SIMT kernel's, which nothing reads, none either (so that they
  // cost it no specializations and no launch checks).
  const bool simtKernel = s.source->decorator == FunctionSource::Decorator::Kernel &&
                          s.source->face == FunctionSource::Face::Simt;
  for (int index : out.params) {
    LocalState& local = locals_[static_cast<size_t>(index)];
    if (local.declared && local.fixed != nullptr && (simtKernel || local.assignments > 0))
      local.fixed = types.withoutFacts(local.fixed);
  }

  std::vector<syntax::Stmt*> body = def.body;
  if (!body.empty() && body.front()->kind == syntax::StmtKind::Expr) {
    const syntax::Expr& first = *syntax::as<syntax::ExprStmt>(*body.front()).value;
    if (first.kind == syntax::ExprKind::Constant &&
        syntax::as<syntax::ConstantExpr>(first).value.kind == syntax::ConstantValue::Kind::Str) {
      body.erase(body.begin());
    }
  }
  block(body, out.body);
  for (const syntax::NameExpr* use : unboundUses_) reportUnbound(*use);

  FunctionFacts facts;
  for (size_t i = 0; i < locals_.size(); ++i) {
    const LocalState& local = locals_[i];
    LocalFacts& fact = facts.locals.emplace_back();
    fact.type = local.declared ? local.fixed : local.join.result(types);
    fact.nonNegative = local.nonNegative;
    fact.poisoned = local.join.sawError;
    if (local.assignments == 1 && local.constantSeen) fact.constant = local.constant;
  }
  const types::Type* returnType = s.declaredReturn;
  if (returnType == nullptr) returnType = sawValueReturn_ ? returnJoin_.result(types) : types.none();
  // Past the nesting limit the function is not fully checked: callers stay silent.
  if (reportedTooDeep_) returnType = types.error();
  facts.returnType = returnType;
  if (returnType == nullptr) returnType = types.error();

  if (finalPass) {
    if (sawValueReturn_ && sawBareReturn_ && s.declaredReturn == nullptr) {
      sink.error(diag::ReturnMismatch, bareReturnLoc_, {s.source->name, "None", types::toString(returnType)})
          .notes.push_back({valueReturnLoc_, "returns a value here"});
    } else if (returnType != types.none() && !returnType->isError() && !alwaysReturns(def.body) &&
               s.source->decorator != FunctionSource::Decorator::Kernel) {
      sink.error(diag::MissingReturn, def.loc, {s.source->name, types::toString(returnType)});
    }
    out.name = mangle(s.source->name, s.arguments, s.constParams);
    out.pythonName = s.source->name;
    out.loc = def.loc;
    out.loc.file = s.file;
    out.isKernel = s.source->decorator == FunctionSource::Decorator::Kernel;
    out.isTileKernel = out.isKernel && s.source->face != FunctionSource::Face::Simt;
    out.tileCode = tileFace() != FunctionSource::Face::Simt;
    out.interop = s.source->interop;
    out.hostCallable = s.source->interop && !out.isKernel;
    // A local without a type is assigned by no code that is compiled (its assignments are in
    // branches a constant condition removed, and its uses were reported): it gets no storage.
    for (size_t i = 0; i < locals_.size(); ++i) {
      out.locals.push_back(Local{locals_[i].name, localType(static_cast<int>(i)), locals_[i].loc, locals_[i].mmaOperands});
    }
    out.returnType = returnType;
  }
  return facts;
}

}  // namespace weft::sema
