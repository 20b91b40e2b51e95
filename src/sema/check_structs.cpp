// Heterogeneous structs (@struct classes): resolving a class's fields from its source,
// construction, field reads, methods, `replace` (the way to get a modified copy: structs are
// immutable), and the errors for assigning or adding attributes.
//
// A struct with atomic fields (types::holdsAtomic: the specification's ticket_mutex) is a
// place, never a value: every expression of its type is an array element, a parameter (a C++
// reference), or a field of one of those, because sema rejects whatever would make or copy
// one (construction, replace, assignment to a variable, return, store, tuples, conditional
// expressions, kernel arguments). So `m[i].lock()` binds `self` to the array element itself,
// and `self.line` is an AtomicRef to the element's member.
#include <functional>

#include "sema/checker.h"
#include "support/check.h"
#include "syntax/syntax.h"
#include "types/layout.h"

namespace weft::sema {

namespace {

constexpr int kMaxStructNesting = 16;

// The line a class or function is found by: its first decorator's, else its own.
uint32_t firstLine(const syntax::Stmt& s, const std::vector<syntax::Expr*>& decorators) {
  return decorators.empty() ? s.loc.line : decorators.front()->loc.line;
}

// Finds class `name` defined at `line` in `body` (at any nesting of functions, classes, ifs):
// the line of the `class` keyword or of any of its decorators (the one that applied @struct).
const syntax::ClassDefStmt* findClass(const std::vector<syntax::Stmt*>& body, const std::string& name, uint32_t line) {
  for (const syntax::Stmt* s : body) {
    const std::vector<syntax::Stmt*>* inner[2] = {nullptr, nullptr};
    if (s->kind == syntax::StmtKind::ClassDef) {
      const auto& cls = syntax::as<syntax::ClassDefStmt>(*s);
      if (cls.name == name && firstLine(*s, cls.decoratorList) <= line && line <= cls.loc.line) return &cls;
      inner[0] = &cls.body;
    } else if (s->kind == syntax::StmtKind::FunctionDef) {
      inner[0] = &syntax::as<syntax::FunctionDefStmt>(*s).body;
    } else if (s->kind == syntax::StmtKind::If) {
      inner[0] = &syntax::as<syntax::IfStmt>(*s).body;
      inner[1] = &syntax::as<syntax::IfStmt>(*s).orelse;
    }
    for (const auto* list : inner) {
      if (list == nullptr) continue;
      if (const auto* found = findClass(*list, name, line)) return found;
    }
  }
  return nullptr;
}

// A NumPy record (a structured dtype without a @struct class): number fields, sub-array fields
// (inline arrays of numbers) and nested records, each at the offset the host gives, in
// increasing order; its alignment is recordAlignment's (1: packed).
const types::Type* resolveRecord(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                 SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc,
                                 int depth) {
  types::Type type;
  type.kind = types::TypeKind::Struct;
  type.name = source->name;
  type.identity = source->identity;
  if (source->fields.empty() || source->itemSize == 0) {
    diagnostics.error(diag::RecordLayout, useLoc, {source->name, "it has no fields"});
    return nullptr;
  }
  std::vector<types::Layout> layouts;
  uint64_t end = 0;
  for (const RecordField& field : source->fields) {
    const types::Type* element = nullptr;
    if (field.record != nullptr) {
      if (!field.shape.empty()) {
        diagnostics.error(diag::StructRecord, useLoc, {field.name, source->name, "a sub-array of records"});
        return nullptr;
      }
      element = resolveStructAt(field.record, types, sources, diagnostics, useLoc, depth + 1);
      if (element == nullptr) return nullptr;
    } else {
      auto kind = types::scalarFromName(field.dtype);
      bool extentsOk = field.shape.size() <= 8;
      for (int64_t extent : field.shape) extentsOk = extentsOk && extent > 0;
      if (!kind || !extentsOk) {
        diagnostics.error(
            diag::StructRecord, useLoc,
            {field.name, source->name, kind ? field.dtype + " with an empty sub-array shape" : field.dtype});
        return nullptr;
      }
      element = field.shape.empty() ? types.scalar(*kind) : types.inlineArray(*kind, field.shape);
    }
    types::Layout layout = types::layoutOf(element);
    if (field.offset < end) {
      diagnostics.error(diag::RecordLayout, useLoc,
                        {source->name, "field '" + field.name + "' at byte " + std::to_string(field.offset) +
                                           " overlaps the field before it; make its fields follow one another"});
      return nullptr;
    }
    end = field.offset + layout.size;
    if (end > source->itemSize) {
      diagnostics.error(diag::RecordLayout, useLoc,
                        {source->name, "field '" + field.name + "' ends at byte " + std::to_string(end) +
                                           ", past its itemsize " + std::to_string(source->itemSize)});
      return nullptr;
    }
    layouts.push_back(layout);
    type.fieldNames.push_back(field.name);
    type.elements.push_back(element);
    type.offsets.push_back(field.offset);
  }
  type.bytes = source->itemSize;
  type.align = static_cast<int>(types::recordAlignment(layouts, type.offsets, type.bytes));
  for (size_t i = 0; i < layouts.size(); ++i) {
    // Atomics are used in place, at their alignment; a packed record's fields are copies.
    if (types::holdsAtomic(type.elements[i]) && layouts[i].align > static_cast<uint64_t>(type.align)) {
      diagnostics.error(diag::RecordLayout, useLoc,
                        {source->name, "field '" + type.fieldNames[i] + "' holds atomics, which a packed record "
                                       "cannot align; make the dtype with numpy.dtype(..., align=True)"});
      return nullptr;
    }
  }
  auto definition = std::make_shared<StructDefinition>();
  definition->source = source;
  type.origin = definition;
  return types.structType(std::move(type));
}

const StructDefinition& definitionOf(const types::Type* structType) {
  WEFT_CHECK(structType->isStruct() && structType->origin != nullptr, "a struct type without its definition");
  return *static_cast<const StructDefinition*>(structType->origin.get());
}

// Whether the Python identifier `name` is a field of `structType`; its index, or -1.
int fieldIndex(const types::Type* structType, const std::string& name) {
  for (size_t i = 0; i < structType->fieldNames.size(); ++i) {
    if (structType->fieldNames[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

const types::Type* resolveStructAt(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                   SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc, int depth) {
  WEFT_CHECK(source != nullptr, "resolveStruct needs a struct source");
  if (depth > kMaxStructNesting) {
    diagnostics.error(diag::StructRecursive, useLoc, {source->name});
    return nullptr;
  }
  if (source->file == nullptr && source->globals == nullptr)
    return resolveRecord(source, types, sources, diagnostics, useLoc, depth);
  WEFT_CHECK(source->file != nullptr, "a struct class without its file: " + source->name);
  uint32_t file = sources.add(source->file);
  Diagnostics parseDiagnostics(sources);
  std::unique_ptr<syntax::Module> module = syntax::parse(file, parseDiagnostics);
  const syntax::ClassDefStmt* cls = module ? findClass(module->body, source->name, source->line) : nullptr;
  if (cls == nullptr) {
    diagnostics.error(diag::StructNotFound, useLoc,
                      {source->name, source->file->name(), std::to_string(source->line)});
    return nullptr;
  }
  types::Type type;
  type.kind = types::TypeKind::Struct;
  type.name = source->name;
  type.identity = source->identity;
  type.align = source->align;
  auto definition = std::make_shared<StructDefinition>();
  definition->source = source;
  bool ok = true;
  for (const syntax::Stmt* s : cls->body) {
    switch (s->kind) {
      case syntax::StmtKind::AnnAssign: {
        const auto& field = syntax::as<syntax::AnnAssignStmt>(*s);
        if (field.target->kind != syntax::ExprKind::Name || field.value != nullptr) {
          diagnostics.error(diag::StructMember, s->loc, {source->name, "a field with a default value"});
          ok = false;
          break;
        }
        const std::string& name = syntax::as<syntax::NameExpr>(*field.target).id;
        const types::Type* fieldType = nullptr;
        // A field naming a struct class: resolved here so that a struct containing itself
        // is reported rather than resolved forever.
        if (field.annotation->kind == syntax::ExprKind::Name) {
          GlobalMeaning meaning = resolveGlobal(source->globals.get(), syntax::as<syntax::NameExpr>(*field.annotation).id);
          if (meaning.status == GlobalMeaning::Status::Ok && meaning.value.kind == Value::Kind::StructType) {
            fieldType = resolveStructAt(meaning.value.structSource, types, sources, diagnostics, field.annotation->loc,
                                        depth + 1);
            if (fieldType == nullptr) {
              ok = false;
              break;
            }
          }
        }
        if (fieldType == nullptr)
          fieldType = resolveAtomicAnnotation(*field.annotation, source->globals.get(), types);
        if (fieldType == nullptr) {
          Annotation annotation = resolveAnnotationAt(*field.annotation, source->globals.get(), types, depth);
          if (annotation.kind == Annotation::Kind::Type) fieldType = annotation.type;
        }
        bool duplicate = false;
        for (const std::string& earlier : type.fieldNames) duplicate = duplicate || earlier == name;
        if (name == "replace" || duplicate) {
          diagnostics.error(diag::StructMember, field.target->loc,
                            {source->name, duplicate ? "two fields named '" + name + "'"
                                                     : "a field named 'replace' (the method that copies a struct)"});
          ok = false;
          break;
        }
        if (fieldType == nullptr) {
          const SourceLoc& at = field.annotation->loc;
          std::string_view line = sources.file(file).line(at.line);
          std::string text = at.length != 0 && at.column < line.size() ? "'" + std::string(line.substr(at.column, at.length)) + "'"
                                                                        : std::string("this annotation");
          diagnostics.error(diag::StructField, at, {name, source->name, text});
          ok = false;
          break;
        }
        type.fieldNames.push_back(name);
        type.elements.push_back(fieldType);
        break;
      }
      case syntax::StmtKind::FunctionDef: {
        const auto& def = syntax::as<syntax::FunctionDefStmt>(*s);
        definition->methods.push_back({def.name, firstLine(*s, def.decoratorList)});
        break;
      }
      case syntax::StmtKind::Pass: break;
      case syntax::StmtKind::Expr:
        // A docstring.
        if (syntax::as<syntax::ExprStmt>(*s).value->kind == syntax::ExprKind::Constant) break;
        diagnostics.error(diag::StructMember, s->loc, {source->name, "statements"});
        ok = false;
        break;
      case syntax::StmtKind::Assign:
      case syntax::StmtKind::AugAssign:
        diagnostics.error(diag::StructMember, s->loc, {source->name, "class attributes (fields need an annotation: x: device.float32)"});
        ok = false;
        break;
      case syntax::StmtKind::AsyncFunctionDef:
      case syntax::StmtKind::ClassDef:
      case syntax::StmtKind::Return:
      case syntax::StmtKind::Delete:
      case syntax::StmtKind::For:
      case syntax::StmtKind::AsyncFor:
      case syntax::StmtKind::While:
      case syntax::StmtKind::If:
      case syntax::StmtKind::With:
      case syntax::StmtKind::AsyncWith:
      case syntax::StmtKind::Raise:
      case syntax::StmtKind::Try:
      case syntax::StmtKind::TryStar:
      case syntax::StmtKind::Assert:
      case syntax::StmtKind::Import:
      case syntax::StmtKind::ImportFrom:
      case syntax::StmtKind::Global:
      case syntax::StmtKind::Nonlocal:
      case syntax::StmtKind::Break:
      case syntax::StmtKind::Continue:
        diagnostics.error(diag::StructMember, s->loc, {source->name, "statements"});
        ok = false;
        break;
    }
  }
  if (!ok) return nullptr;
  type.origin = definition;
  return types.structType(std::move(type));
}

const types::Type* resolveStruct(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                 SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc) {
  return resolveStructAt(source, types, sources, diagnostics, useLoc, 0);
}

std::shared_ptr<FunctionSource> methodSource(const types::Type* structType, const StructDefinition::Method& method) {
  const StructSource& owner = *definitionOf(structType).source;
  auto source = std::make_shared<FunctionSource>();
  source->file = owner.file;
  source->line = method.line;
  source->name = method.name;
  source->identity = std::hash<std::string>{}(std::to_string(owner.identity) + "." + method.name);
  source->decorator = FunctionSource::Decorator::Func;
  source->globals = owner.globals;
  return source;
}

const types::Type* FunctionChecker::structTypeOf(const Value& structClass, SourceLoc loc) {
  const StructSource& source = *structClass.structSource;
  std::string key = std::to_string(source.identity) + "|" + std::to_string(source.align) + "|" +
                    (source.file ? source.file->name() : std::string()) + ":" + std::to_string(source.line) +
                    "|" + source.name;
  auto found = program.structTypes.find(key);
  if (found != program.structTypes.end()) return found->second;
  const types::Type* type = resolveStruct(structClass.structSource, types, program.sources, sink, loc);
  if (type != nullptr) program.structTypes.emplace(key, type);
  return type;
}

Value FunctionChecker::structConstruct(const Value& callee, const syntax::CallExpr& e) {
  const types::Type* type = structTypeOf(callee, e.loc);
  if (type == nullptr) return errorValue();
  std::string what = type->name;
  if (types::holdsAtomic(type)) {
    for (const syntax::Expr* arg : e.args) expr(*arg);
    for (const syntax::Keyword* keyword : e.keywords) expr(*keyword->value);
    sink.error(diag::AtomicStructConstruct, e.loc, {what});
    return errorValue();
  }
  size_t count = type->elements.size();
  if (e.args.size() > count) {
    sink.error(diag::ArgumentCount, e.loc,
               {what + "()", std::to_string(count) + " field value" + (count == 1 ? "" : "s"), std::to_string(e.args.size())});
    return errorValue();
  }
  std::vector<const syntax::Expr*> given(count, nullptr);
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.args[i]->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, e.args[i]->loc, {"a starred argument (*args)", "; pass each field"});
      return errorValue();
    }
    given[i] = e.args[i];
  }
  for (const syntax::Keyword* keyword : e.keywords) {
    int index = keyword->hasArg ? fieldIndex(type, keyword->arg) : -1;
    if (index < 0) {
      sink.error(diag::KeywordArgument, keyword->loc, {what + "()", keyword->hasArg ? keyword->arg : "**"});
      return errorValue();
    }
    if (given[static_cast<size_t>(index)] != nullptr) {
      sink.error(diag::StructFieldTwice, keyword->loc, {what, keyword->arg});
      return errorValue();
    }
    given[static_cast<size_t>(index)] = keyword->value;
  }
  std::vector<TypedExpr*> operands;
  bool failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (given[i] == nullptr) {
      sink.error(diag::StructFieldMissing, e.loc, {what, type->fieldNames[i]});
      return errorValue();
    }
    Value v = value(*given[i]);
    Value converted = v.isError() ? v : convert(v, type->elements[i], given[i]->loc);
    if (converted.isError()) {
      failed = true;
      continue;
    }
    operands.push_back(converted.expr);
  }
  if (failed) return errorValue();
  return runtime(make(TypedExprKind::TupleMake, type, e.loc, operands));
}

Value FunctionChecker::structAttribute(Value base, const std::string& attr, SourceLoc loc) {
  const types::Type* type = base.type();
  int index = fieldIndex(type, attr);
  if (index >= 0) {
    const types::Type* fieldType = type->elements[static_cast<size_t>(index)];
    TypedExpr* get = make(TypedExprKind::TupleGet, fieldType, loc, {base.expr});
    get->index = index;
    // The base is a place (see the top of this file): the field's atomic is in memory.
    if (fieldType->kind == types::TypeKind::Atomic) return atomicElement(runtime(get), loc);
    return runtime(get, nonNegativeExpr(*get));
  }
  Value method;
  method.kind = Value::Kind::Method;
  method.expr = base.expr;
  method.name = type->name + "." + attr;
  if (attr == "replace") return method;
  for (const StructDefinition::Method& m : definitionOf(type).methods) {
    if (m.name != attr) continue;
    method.function = methodSource(type, m);
    return method;
  }
  sink.error(diag::StructNoAttribute, loc, {"struct " + type->name, attr});
  return errorValue();
}

Value FunctionChecker::methodCall(const Value& callee, const syntax::CallExpr& e) {
  Value self = runtime(callee.expr);
  if (callee.function != nullptr) return userCall(callee, e, &self);
  // s.replace(field=value, ...): a copy of `s` with the named fields changed.
  const types::Type* type = self.type();
  std::string what = type->name + ".replace";
  if (copiesAtomicStruct(self, "replace()", e.loc)) return errorValue();
  if (!e.args.empty()) {
    sink.error(diag::ArgumentCount, e.loc, {what + "()", "keyword arguments only (field=value)", std::to_string(e.args.size()) + " positional"});
    return errorValue();
  }
  std::vector<const syntax::Expr*> changed(type->elements.size(), nullptr);
  for (const syntax::Keyword* keyword : e.keywords) {
    int index = keyword->hasArg ? fieldIndex(type, keyword->arg) : -1;
    if (index < 0) {
      sink.error(diag::StructNoAttribute, keyword->loc, {"struct " + type->name, keyword->hasArg ? keyword->arg : "**"});
      return errorValue();
    }
    if (changed[static_cast<size_t>(index)] != nullptr) {
      sink.error(diag::StructFieldTwice, keyword->loc, {what, keyword->arg});
      return errorValue();
    }
    changed[static_cast<size_t>(index)] = keyword->value;
  }
  // The original is read once: hold it in a temporary unless it is a variable.
  TypedExpr* original = self.expr;
  if (original->kind != TypedExprKind::Local) {
    int temporary = newTemporary(type, e.loc);
    assignLocal(temporary, self, e.loc);
    original = make(TypedExprKind::Local, type, e.loc);
    original->local = temporary;
  }
  std::vector<TypedExpr*> operands;
  bool failed = false;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (changed[i] == nullptr) {
      TypedExpr* get = make(TypedExprKind::TupleGet, type->elements[i], e.loc, {original});
      get->index = static_cast<int>(i);
      operands.push_back(get);
      continue;
    }
    Value v = value(*changed[i]);
    Value converted = v.isError() ? v : convert(v, type->elements[i], changed[i]->loc);
    if (converted.isError()) {
      failed = true;
      continue;
    }
    operands.push_back(converted.expr);
  }
  if (failed) return errorValue();
  return runtime(make(TypedExprKind::TupleMake, type, e.loc, operands));
}

void FunctionChecker::attributeAssign(const syntax::AttributeExpr& target) {
  Value base = expr(*target.value);
  if (base.isError()) return;
  if (base.kind == Value::Kind::RunTime && base.type()->isStruct()) {
    const types::Type* type = base.type();
    int index = fieldIndex(type, target.attr);
    if (index >= 0 && type->elements[static_cast<size_t>(index)]->kind == types::TypeKind::Atomic) {
      sink.error(diag::AtomicFieldAssign, target.loc, {target.attr, "struct " + type->name});
    } else if (index >= 0) {
      // A struct with atomic fields is never copied, so replace() is no way out for it.
      std::string fix = types::holdsAtomic(type)
                            ? "to change it in place, make it atomic (" + target.attr +
                                  ": device.Atomic(dtype)) and write it with s." + target.attr +
                                  ".store(value)"
                            : "make a modified copy with s.replace(" + target.attr + "=...)";
      sink.error(diag::StructImmutable, target.loc, {target.attr, "struct " + type->name, fix});
    } else {
      sink.error(diag::StructNoAttribute, target.loc, {"struct " + type->name, target.attr});
    }
    return;
  }
  if (base.kind == Value::Kind::RunTime && base.type()->isVector()) {
    vectorAssign(base, target.attr, target.loc);
    return;
  }
  sink.error(diag::AssignTarget, target.loc, {"an attribute"});
}

bool FunctionChecker::copiesAtomicStruct(const Value& v, const std::string& how, SourceLoc loc) {
  if (v.kind != Value::Kind::RunTime || v.isError() || !types::holdsAtomic(v.type())) return false;
  sink.error(diag::AtomicStructCopy, loc, {how, types::toString(v.type())});
  return true;
}

Value FunctionChecker::inlineArrayIndex(Value array, const syntax::Expr& index, SourceLoc loc) {
  const types::Type* type = array.type();
  std::vector<IndexPart> parts;
  if (!indexParts(index, parts)) return errorValue();
  for (const IndexPart& part : parts) {
    if (part.kind != IndexPart::Kind::Index) {
      sink.error(diag::UnsupportedExpression, part.loc,
                 {"a slice or ellipsis of a record's sub-array field", "; index one element at a time"});
      return errorValue();
    }
  }
  if (parts.size() != type->shape.size()) {
    sink.error(diag::IndexCount, loc,
               {types::toString(type), std::to_string(type->shape.size()), std::to_string(parts.size())});
    return errorValue();
  }
  TypedExpr* element = make(TypedExprKind::InlineElement, types.scalar(type->scalar), loc, {array.expr});
  for (size_t d = 0; d < parts.size(); ++d) {
    Value v = parts[d].index;
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::IndexType, v.expr->loc, {describe(v)});
      return errorValue();
    }
    int64_t extent = type->shape[d];
    if (v.constant && v.constant->kind == ConstValue::Kind::Int) {
      // A constant index is checked here, and a negative one counted from the end.
      int64_t at = v.constant->intValue < 0 ? v.constant->intValue + extent : v.constant->intValue;
      if (at < 0 || at >= extent) {
        std::string what =
            type->shape.size() == 1 ? "elements" : "elements in dimension " + std::to_string(d);
        sink.error(diag::VectorIndexRange, v.expr->loc,
                   {toString(*v.constant), types::toString(type), std::to_string(extent) + " " + what});
        return errorValue();
      }
      ConstValue normalized;
      normalized.kind = ConstValue::Kind::Int;
      normalized.intValue = at;
      element->operands.push_back(typedLiteral(normalized, types::ScalarKind::Int64, v.expr->loc).expr);
      element->wrapNegative.push_back(false);
      continue;
    }
    bool nonNegative = v.nonNegative || nonNegativeExpr(*v.expr);
    Value converted = promoteTo(v, types::ScalarKind::Int64, loc);
    if (converted.isError()) return errorValue();
    element->operands.push_back(converted.expr);
    element->wrapNegative.push_back(!nonNegative);
  }
  return runtime(element);
}

Value FunctionChecker::inlineArrayAttribute(Value array, const std::string& attr, SourceLoc loc) {
  const types::Type* type = array.type();
  ConstValue constant;
  constant.kind = ConstValue::Kind::Int;
  if (attr == "ndim") {
    constant.intValue = static_cast<int64_t>(type->shape.size());
  } else if (attr == "size") {
    constant.intValue = 1;
    for (int64_t extent : type->shape) constant.intValue *= extent;
  } else if (attr == "shape") {
    constant.kind = ConstValue::Kind::Tuple;
    for (int64_t extent : type->shape) {
      ConstValue element;
      element.kind = ConstValue::Kind::Int;
      element.intValue = extent;
      constant.elements.push_back(element);
    }
  } else {
    sink.error(diag::UnknownAttribute, loc, {types::toString(type), attr});
    return errorValue();
  }
  return constantValue(constant, loc);
}

namespace {

// Whether `e` is a place in an array's memory: an array element, or a field of one.
bool inArrayMemory(const TypedExpr& e) {
  if (e.kind == TypedExprKind::ArrayElement) return true;
  return e.kind == TypedExprKind::TupleGet && inArrayMemory(*e.operands[0]);
}

}  // namespace

void FunctionChecker::inlineArrayAssign(const syntax::SubscriptExpr& target, Value array, Value v,
                                        SourceLoc loc) {
  Value element = inlineArrayIndex(array, *target.slice, target.loc);
  if (element.isError() || v.isError()) return;
  if (!inArrayMemory(*array.expr)) {
    std::string field =
        array.expr->kind == TypedExprKind::TupleGet
            ? array.expr->operands[0]->type->fieldNames[static_cast<size_t>(array.expr->index)]
            : std::string("a sub-array");
    std::string owner = array.expr->kind == TypedExprKind::TupleGet
                            ? types::toString(array.expr->operands[0]->type)
                            : types::toString(array.type());
    sink.error(
        diag::StructImmutable, target.loc,
        {field, owner, "write the record in its array instead, e.g. records[i]." + field + "[k] = value"});
    return;
  }
  Value stored = convert(v, element.type(), loc);
  if (stored.isError()) return;
  emit(TypedStmtKind::Store, loc, {element.expr, stored.expr});
}

}  // namespace weft::sema
