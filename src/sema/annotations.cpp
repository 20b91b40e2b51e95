// Type annotations: `device.float32`, `int`, `device.float32x4`, `device.float32[:, :]`, a
// @struct class, `tuple[device.int32, device.float32]`, `ConstExpr`, `ConstExpr[device.int32]`,
// and a struct field's `device.Atomic(int, align=16)`, resolved in a function's (or struct's)
// global environment. A quoted annotation (`n: "ConstExpr"`) means the expression it spells.
#include "sema/checker.h"
#include "syntax/syntax.h"
#include "weft/tiles/span_facts.h"

namespace weft::sema {

namespace {

// Resolves a dotted name (`device.float32`, `weft.ConstExpr`, `np.float32`) to an entity.
Value resolveDotted(const syntax::Expr& e, Environment* environment) {
  if (e.kind == syntax::ExprKind::Name) {
    GlobalMeaning meaning = resolveGlobal(environment, syntax::as<syntax::NameExpr>(e).id);
    return meaning.status == GlobalMeaning::Status::Ok ? meaning.value : Value{};
  }
  if (e.kind == syntax::ExprKind::Attribute) {
    const auto& attribute = syntax::as<syntax::AttributeExpr>(e);
    Value base = resolveDotted(*attribute.value, environment);
    if (base.kind != Value::Kind::Module) return {};
    return resolveEntity(base.name + "." + attribute.attr);
  }
  return {};
}

// The expression a quoted annotation spells, parsed from its text (`expr` stays null when the
// annotation is not a string or the string is not one expression).
struct Unquoted {
  SourceManager sources;
  std::unique_ptr<syntax::Module> module;
  const syntax::Expr* expr = nullptr;
};

void unquote(const syntax::Expr& annotation, Unquoted& out) {
  if (annotation.kind != syntax::ExprKind::Constant) return;
  const syntax::ConstantValue& value = syntax::as<syntax::ConstantExpr>(annotation).value;
  if (value.kind != syntax::ConstantValue::Kind::Str) return;
  Diagnostics diagnostics(out.sources);
  // Parenthesized, as typing.get_type_hints evaluates it: the text may span lines.
  out.module = syntax::parse(out.sources.add("<annotation>", "(" + value.bytes + "\n)\n"), diagnostics);
  if (out.module == nullptr || diagnostics.hasErrors() || out.module->body.size() != 1 ||
      out.module->body[0]->kind != syntax::StmtKind::Expr)
    return;
  out.expr = syntax::as<syntax::ExprStmt>(*out.module->body[0]).value;
}

// True when `e` is `::1` (a contiguous dimension in numba's `T[:, ::1]`).
bool isUnitSlice(const syntax::Expr& e) {
  return e.kind == syntax::ExprKind::Slice && syntax::as<syntax::SliceExpr>(e).step != nullptr;
}

// True when `e` is a bare `:` slice (an array dimension in `T[:, :]`), or `::1`.
bool isFullSlice(const syntax::Expr& e) {
  if (e.kind != syntax::ExprKind::Slice) return false;
  const auto& slice = syntax::as<syntax::SliceExpr>(e);
  return slice.lower == nullptr && slice.upper == nullptr &&
         (slice.step == nullptr || (slice.step->kind == syntax::ExprKind::Constant &&
                                    syntax::as<syntax::ConstantExpr>(*slice.step).value.intValue == 1));
}

// The struct type a @struct class annotation names; nullptr when its definition is malformed
// (reported where the class is constructed or passed to a kernel).
const types::Type* structAnnotation(const Value& structClass, types::TypeContext& types, int depth) {
  SourceManager scratchSources;
  Diagnostics scratch(scratchSources);
  return resolveStructAt(structClass.structSource, types, scratchSources, scratch, SourceLoc{}, depth + 1);
}

// Whether `e` names Python's builtin `tuple` (not shadowed by a global).
bool isBuiltinTuple(const syntax::Expr& e, Environment* environment) {
  if (e.kind != syntax::ExprKind::Name || syntax::as<syntax::NameExpr>(e).id != "tuple") return false;
  return environment == nullptr || resolveGlobal(environment, "tuple").status == GlobalMeaning::Status::Undefined;
}

// `tuple[A, B, ...]`: the heterogeneous tuple of those element types.
Annotation tupleAnnotation(const syntax::Expr& slice, Environment* environment, types::TypeContext& types, int depth) {
  std::vector<const syntax::Expr*> elements;
  if (slice.kind == syntax::ExprKind::Tuple) {
    for (const syntax::Expr* element : syntax::as<syntax::TupleExpr>(slice).elts) elements.push_back(element);
  } else {
    elements.push_back(&slice);
  }
  std::vector<const types::Type*> elementTypes;
  for (const syntax::Expr* element : elements) {
    Annotation inner = resolveAnnotationAt(*element, environment, types, depth);
    if (inner.kind != Annotation::Kind::Type) return {};
    elementTypes.push_back(inner.type);
  }
  return Annotation{Annotation::Kind::Type, types.tuple(elementTypes)};
}

// An int constant: a literal or a global constant.
std::optional<int64_t> constantInt(const syntax::Expr& e, Environment* environment) {
  std::optional<ConstValue> value;
  if (e.kind == syntax::ExprKind::Constant) value = fromSyntax(syntax::as<syntax::ConstantExpr>(e).value);
  else value = resolveDotted(e, environment).constant;
  if (!value || value->kind != ConstValue::Kind::Int) return std::nullopt;
  return int64Value(*value);
}

// `ct.tile[dtype, (d0, d1, ...)]` (dtype a number type; the extents powers of 2): a tile type.
Annotation tileAnnotation(const syntax::Expr& slice, Environment* environment, types::TypeContext& types) {
  if (slice.kind != syntax::ExprKind::Tuple || syntax::as<syntax::TupleExpr>(slice).elts.size() != 2) return {};
  const auto& parts = syntax::as<syntax::TupleExpr>(slice).elts;
  Value dtype = resolveDotted(*parts[0], environment);
  if (dtype.kind != Value::Kind::NumberType || dtype.vectorSize != 0 || types::isComplex(dtype.scalar)) return {};
  std::vector<const syntax::Expr*> extents;
  if (parts[1]->kind == syntax::ExprKind::Tuple) {
    for (const syntax::Expr* extent : syntax::as<syntax::TupleExpr>(*parts[1]).elts) extents.push_back(extent);
  } else {
    extents.push_back(parts[1]);
  }
  std::vector<int64_t> shape;
  int64_t size = 1;
  for (const syntax::Expr* extent : extents) {
    std::optional<int64_t> n = constantInt(*extent, environment);
    if (!n || *n <= 0 || (*n & (*n - 1)) != 0 || *n > kMaxTileElements) return {};
    size *= *n;
    if (size > kMaxTileElements) return {};
    shape.push_back(*n);
  }
  if (shape.size() > 8) return {};
  return Annotation{Annotation::Kind::Type, types.tile(dtype.scalar, shape)};
}

}  // namespace

Annotation resolveAnnotation(const syntax::Expr& annotation, Environment* environment, types::TypeContext& types) {
  return resolveAnnotationAt(annotation, environment, types, 0);
}

Annotation resolveAnnotationAt(const syntax::Expr& annotation, Environment* environment, types::TypeContext& types,
                               int depth) {
  Annotation result;
  Unquoted quoted;
  unquote(annotation, quoted);
  if (quoted.expr != nullptr) return resolveAnnotationAt(*quoted.expr, environment, types, depth);
  if (annotation.kind == syntax::ExprKind::Subscript) {
    const auto& subscript = syntax::as<syntax::SubscriptExpr>(annotation);
    Value base = resolveDotted(*subscript.value, environment);
    if (base.kind == Value::Kind::Intrinsic && base.intrinsic == Intrinsic::ConstExpr) {
      Annotation inner = resolveAnnotation(*subscript.slice, environment, types);
      if (inner.kind != Annotation::Kind::Type || !inner.type->isScalar()) return result;
      result.kind = Annotation::Kind::ConstExpr;
      result.type = inner.type;
      return result;
    }
    if (isBuiltinTuple(*subscript.value, environment)) return tupleAnnotation(*subscript.slice, environment, types, depth);
    if (base.kind == Value::Kind::Intrinsic && base.intrinsic == Intrinsic::TileFunction && base.name == "ct.tile")
      return tileAnnotation(*subscript.slice, environment, types);
    const types::Type* element = nullptr;
    if (base.kind == Value::Kind::StructType) {
      element = structAnnotation(base, types, depth);
      if (element == nullptr) return result;
    } else if (base.kind != Value::Kind::NumberType) {
      return result;
    }
    int ndim = 0;
    const syntax::Expr* last = nullptr;
    if (isFullSlice(*subscript.slice)) {
      ndim = 1;
      last = subscript.slice;
    } else if (subscript.slice->kind == syntax::ExprKind::Tuple) {
      for (const syntax::Expr* element : syntax::as<syntax::TupleExpr>(*subscript.slice).elts) {
        if (!isFullSlice(*element)) return result;
        ++ndim;
        last = element;
      }
    }
    if (ndim == 0) return result;
    result.kind = Annotation::Kind::Type;
    result.type = element != nullptr ? types.array(element, ndim) : types.array(base.scalar, ndim);
    // numba's C layout, `T[:, ::1]`, declares every launch fact (docs/tiles.md "Launch facts"):
    // rows of whole 16-byte vectors. A SIMT kernel's parameters drop them (FunctionChecker::run).
    if (element == nullptr && isUnitSlice(*last)) result.type = types.withFacts(result.type, tiles::all_span_facts);
    return result;
  }
  if (annotation.kind == syntax::ExprKind::Constant &&
      syntax::as<syntax::ConstantExpr>(annotation).value.kind == syntax::ConstantValue::Kind::None) {
    // `p: None`: NoneType, passed as a null void*.
    return Annotation{Annotation::Kind::Type, types.none()};
  }
  Value v = resolveDotted(annotation, environment);
  if (v.kind == Value::Kind::StructType) {
    result.type = structAnnotation(v, types, depth);
    if (result.type != nullptr) result.kind = Annotation::Kind::Type;
  } else if (v.kind == Value::Kind::NumberType) {
    result.kind = Annotation::Kind::Type;
    result.type = v.warpMask            ? types.warpMask()
                  : v.vectorSize != 0 ? types.vector(v.scalar, v.vectorSize)
                                      : types.scalar(v.scalar);
  } else if (v.kind == Value::Kind::Intrinsic && v.intrinsic == Intrinsic::ConstExpr) {
    result.kind = Annotation::Kind::ConstExpr;
  }
  return result;
}

const types::Type* resolveAtomicAnnotation(const syntax::Expr& annotation, Environment* environment,
                                           types::TypeContext& types) {
  Unquoted quoted;
  unquote(annotation, quoted);
  if (quoted.expr != nullptr) return resolveAtomicAnnotation(*quoted.expr, environment, types);
  if (annotation.kind != syntax::ExprKind::Call) return nullptr;
  const auto& call = syntax::as<syntax::CallExpr>(annotation);
  Value callee = resolveDotted(*call.func, environment);
  if (callee.kind != Value::Kind::Intrinsic || callee.intrinsic != Intrinsic::Atomic || call.args.size() != 1)
    return nullptr;
  Value dtype = resolveDotted(*call.args[0], environment);
  if (dtype.kind != Value::Kind::NumberType || dtype.vectorSize != 0 || types::byteSize(dtype.scalar) > 8)
    return nullptr;
  int align = 0;
  for (const syntax::Keyword* keyword : call.keywords) {
    // align= is an int literal or a global int constant.
    std::optional<ConstValue> value;
    if (keyword->value->kind == syntax::ExprKind::Constant) {
      value = fromSyntax(syntax::as<syntax::ConstantExpr>(*keyword->value).value);
    } else if (keyword->value->kind == syntax::ExprKind::Name) {
      Value global = resolveDotted(*keyword->value, environment);
      value = global.constant;
    }
    int64_t n = value && value->kind == ConstValue::Kind::Int ? int64Value(*value).value_or(-1) : -1;
    if (keyword->arg != "align" || n < 1 || n > 256 || (n & (n - 1)) != 0) return nullptr;
    align = static_cast<int>(n);
  }
  return types.atomic(dtype.scalar, align);
}

}  // namespace weft::sema
