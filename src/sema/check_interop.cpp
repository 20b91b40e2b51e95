// Interoperable functions and kernels (@func(interop=True), @kernel(interop=True)): their C++
// signatures come from their annotations, their names become extern "C" symbols, and an
// interoperable function is compiled for the host as well as the device, so what it reaches
// outside `if target(...)` branches that exclude the host must not be device-only.
#include <map>
#include <string>

#include "sema/checker.h"
#include "support/identifiers.h"

namespace weft::sema {

namespace {

const char* entityKind(const FunctionSource& source) {
  return source.decorator == FunctionSource::Decorator::Kernel ? "kernel" : "function";
}

// Whether values of `type` have a machine representation that crosses the C ABI by value.
bool hasMachineRepresentation(const types::Type* type) {
  switch (type->kind) {
    case types::TypeKind::Scalar:
    case types::TypeKind::WarpMask:
    case types::TypeKind::Array:
    case types::TypeKind::Vector:
    case types::TypeKind::InlineArray: return true;
    case types::TypeKind::Tuple:
    case types::TypeKind::Struct:
      for (const types::Type* element : type->elements) {
        if (!hasMachineRepresentation(element)) return false;
      }
      return true;
    case types::TypeKind::None: return true;  // void*
    case types::TypeKind::Error:
    case types::TypeKind::Tile:
    case types::TypeKind::TileView:
    case types::TypeKind::Atomic:
    case types::TypeKind::AtomicRef: return false;
  }
  return false;
}

// The builtin's name for messages: its registry description up to the first " (".
std::string builtinName(Builtin builtin) {
  std::string_view description = builtinInfo(builtin).description;
  return std::string(description.substr(0, description.find(" (")));
}

// What one function does on the host: its device-only operations and its calls, outside the
// branches of `if target(...)` that the host does not take.
struct HostUses {
  std::vector<std::pair<std::string, SourceLoc>> deviceOnly;
  std::vector<int> callees;
};

void collectHostUses(const TypedExpr& e, HostUses& uses) {
  if (e.kind == TypedExprKind::Call) uses.callees.push_back(e.callee);
  if (e.kind == TypedExprKind::BuiltinCall && builtinIsDeviceOnly(e.builtin))
    uses.deviceOnly.emplace_back("'" + builtinName(e.builtin) + "'", e.loc);
  for (const TypedExpr* operand : e.operands) collectHostUses(*operand, uses);
}

void collectHostUses(const TypedFunction& function, const std::vector<TypedStmt*>& body, HostUses& uses) {
  for (const TypedStmt* s : body) {
    if (s->kind == TypedStmtKind::If && !s->targetCondition.empty()) {
      collectHostUses(function, s->targetIncludesHost ? s->body : s->orelse, uses);
      continue;
    }
    if (s->kind == TypedStmtKind::DeclareArray &&
        function.locals.at(static_cast<size_t>(s->local)).type->space == types::MemorySpace::Shared)
      uses.deviceOnly.emplace_back("shared_array()", s->loc);
    for (const TypedExpr* operand : s->operands) collectHostUses(*operand, uses);
    collectHostUses(function, s->body, uses);
    collectHostUses(function, s->orelse, uses);
  }
}

}  // namespace

bool ProgramChecker::annotatedArguments(const FunctionSource& source,
                                        const std::vector<const syntax::Arg*>& params,
                                        const std::vector<ParameterDescription>& described, SourceLoc where,
                                        Diagnostics& sink, std::vector<ArgumentInfo>& arguments) {
  bool ok = true;
  for (size_t i = 0; i < params.size(); ++i) {
    const syntax::Arg& param = *params[i];
    const ParameterDescription& description = described[i];
    if (source.interop) {
      // An interoperable function has one C++ signature: its annotations.
      if (description.kind == ParameterDescription::Kind::Unannotated) {
        sink.error(diag::InteropAnnotation, param.loc, {param.arg, entityKind(source), source.name});
        ok = false;
        continue;
      }
      if (description.kind == ParameterDescription::Kind::ConstExpr) {
        sink.error(diag::InteropConstExpr, param.annotation->loc,
                   {param.arg, entityKind(source), source.name});
        ok = false;
        continue;
      }
      if (!hasMachineRepresentation(description.type)) {
        sink.error(diag::BadAnnotation, param.annotation->loc,
                   {"the annotation of parameter '" + param.arg + "'"});
        ok = false;
        continue;
      }
    }
    if (description.kind != ParameterDescription::Kind::Typed) continue;
    // A number converts to the declared number type (the caller casts; a launch packs it as
    // the parameter's type); anything else must be what the annotation says.
    const types::Type* given = arguments[i].type;
    const types::Type* type = parameterType(description.type, given, types);
    if (type == nullptr) {
      sink.error(source.interop ? diag::InteropArgument : diag::AnnotatedArgument, where,
                 {std::to_string(i + 1), entityKind(source), source.name, types::toString(given), param.arg,
                  types::toString(description.type)});
      ok = false;
      continue;
    }
    arguments[i].type = type;
    arguments[i].constant.reset();
  }
  return ok;
}

void ProgramChecker::checkInteropName(const FunctionSource& source, const syntax::FunctionDefStmt& def,
                                      Diagnostics& sink) {
  std::string problem(interopSymbolProblem(source.name));
  if (!problem.empty()) sink.error(diag::InteropName, def.loc, {entityKind(source), source.name, problem});
}

void markHostCallable(TypedProgram& program, Diagnostics& diagnostics) {
  bool anyInterop = false;
  for (const TypedFunction& function : program.functions) anyInterop = anyInterop || function.hostCallable;
  if (!anyInterop) return;  // a program without interoperable functions runs on the device only
  std::vector<HostUses> uses(program.functions.size());
  for (size_t i = 0; i < program.functions.size(); ++i)
    collectHostUses(program.functions[i], program.functions[i].body, uses[i]);
  // Breadth first from the interoperable functions, so each function is attributed to the
  // nearest one.
  std::vector<int> queue;
  std::map<int, int> root;
  for (size_t i = 0; i < program.functions.size(); ++i) {
    if (program.functions[i].hostCallable) {
      queue.push_back(static_cast<int>(i));
      root[static_cast<int>(i)] = static_cast<int>(i);
    }
  }
  for (size_t next = 0; next < queue.size(); ++next) {
    int index = queue[next];
    const TypedFunction& function = program.functions[static_cast<size_t>(index)];
    const std::string& interop = program.functions[static_cast<size_t>(root.at(index))].pythonName;
    for (const auto& [what, loc] : uses[static_cast<size_t>(index)].deviceOnly)
      diagnostics.error(diag::InteropDeviceOnly, loc, {what, function.pythonName, interop});
    for (int callee : uses[static_cast<size_t>(index)].callees) {
      TypedFunction& called = program.functions[static_cast<size_t>(callee)];
      if (called.hostCallable) continue;
      called.hostCallable = true;
      root[callee] = root.at(index);
      queue.push_back(callee);
    }
  }
}

}  // namespace weft::sema
