// Parameter descriptions: what the annotation of each parameter of a function declares (a
// type, a ConstExpr, or nothing), resolved in the function's globals. Sema's specializations
// and the launch path (src/python/dispatcher.cpp, through describeParameters) read the same
// resolution, so the host never decides by itself which parameters are ConstExpr or what type
// an annotation names.
#include "sema/checker.h"
#include "syntax/syntax.h"

namespace weft::sema {

std::vector<const syntax::Arg*> positionalParameters(const syntax::FunctionDefStmt& def) {
  std::vector<const syntax::Arg*> params(def.args->posonlyargs.begin(), def.args->posonlyargs.end());
  params.insert(params.end(), def.args->args.begin(), def.args->args.end());
  return params;
}

bool describeParameters(const syntax::FunctionDefStmt& def, Environment* environment,
                        types::TypeContext& types, Diagnostics& sink,
                        std::vector<ParameterDescription>& out) {
  const syntax::Arguments& args = *def.args;
  if (args.vararg != nullptr || args.kwarg != nullptr || !args.kwonlyargs.empty()) {
    std::string what =
        args.vararg != nullptr ? "*args" : (args.kwarg != nullptr ? "**kwargs" : "keyword-only");
    sink.error(diag::UnsupportedParameter, def.loc, {what});
    return false;
  }
  bool ok = true;
  out.clear();
  for (const syntax::Arg* param : positionalParameters(def)) {
    ParameterDescription& description = out.emplace_back();
    description.name = param->arg;
    if (param->annotation == nullptr) continue;
    Annotation annotation = resolveAnnotation(*param->annotation, environment, types);
    switch (annotation.kind) {
      case Annotation::Kind::Invalid:
        sink.error(diag::BadAnnotation, param->annotation->loc,
                   {"the annotation of parameter '" + param->arg + "'"});
        ok = false;
        break;
      case Annotation::Kind::Type:
        description.kind = ParameterDescription::Kind::Typed;
        description.type = annotation.type;
        break;
      case Annotation::Kind::ConstExpr:
        description.kind = ParameterDescription::Kind::ConstExpr;
        description.type = annotation.type;
        break;
    }
  }
  return ok;
}

std::optional<std::vector<ParameterDescription>> describeParameters(const FunctionSource& source,
                                                                    types::TypeContext& types,
                                                                    SourceManager& sources,
                                                                    Diagnostics& diagnostics,
                                                                    syntax::ParseCache* parses) {
  uint32_t file = sources.add(source.file);
  std::shared_ptr<const syntax::Module> module = syntax::parseShared(file, diagnostics, parses);
  if (module == nullptr || diagnostics.hasErrors()) return std::nullopt;
  const syntax::FunctionDefStmt* def = findDef(module->body, source.name, source.line);
  syntax::Module made;
  if (def == nullptr) def = lambdaDefinition(*module, made, source);
  if (def == nullptr) {
    diagnostics.error(diag::FunctionNotFound, SourceLoc{},
                      {source.name, source.file->name(), std::to_string(source.line)});
    return std::nullopt;
  }
  std::vector<ParameterDescription> described;
  if (!describeParameters(*def, source.globals.get(), types, diagnostics, described)) return std::nullopt;
  return described;
}

const types::Type* parameterType(const types::Type* declared, const types::Type* given,
                                 types::TypeContext& types) {
  if (given == nullptr || given->isError() || given == declared) return declared;
  if (declared->isScalar() && given->isScalar()) return declared;
  if (declared->isArray() && given->isArray() && declared->ndim == given->ndim &&
      declared->element == given->element && declared->scalar == given->scalar)
    return given;
  if (declared->kind == types::TypeKind::Tuple && given->kind == types::TypeKind::Tuple &&
      declared->elements.size() == given->elements.size()) {
    std::vector<const types::Type*> elements;
    for (size_t i = 0; i < declared->elements.size(); ++i) {
      const types::Type* element = parameterType(declared->elements[i], given->elements[i], types);
      if (element == nullptr) return nullptr;
      elements.push_back(element);
    }
    return types.tuple(elements);
  }
  return nullptr;
}

}  // namespace weft::sema
