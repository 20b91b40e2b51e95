// Arrays and tuples: element access with Python's negative-index wraparound where an index
// may be negative (subscripts that make views continue in check_array_views.cpp), array
// attributes, tuple indexing, shared and local array declarations.
#include <limits>

#include "sema/checker.h"

namespace weft::sema {

bool isPure(const TypedExpr& e) {
  if (e.kind == TypedExprKind::Call) return false;
  if (e.kind == TypedExprKind::BuiltinCall && builtinHasEffects(e.builtin)) return false;
  for (const TypedExpr* operand : e.operands) {
    if (!isPure(*operand)) return false;
  }
  return true;
}

bool FunctionChecker::nonNegativeExpr(const TypedExpr& e) const {
  if (e.type->isScalar() && types::isUnsigned(e.type->scalar)) return true;
  if (e.kind == TypedExprKind::Literal) {
    if (types::isFloating(e.type->scalar)) return e.literal.floatValue >= 0;
    return types::isBool(e.type->scalar) || e.literal.intValue >= 0;
  }
  if (e.kind == TypedExprKind::Local) {
    size_t local = static_cast<size_t>(e.local);
    return local < assumed_.locals.size() && !locals_[local].isParam && assumed_.locals[local].nonNegative;
  }
  if (e.kind == TypedExprKind::Cast)
    return e.operands[0]->type->isScalar() && nonNegativeExpr(*e.operands[0]) &&
           conversionKeepsNonNegative(e.operands[0]->type->scalar, e.type->scalar);
  if (e.kind == TypedExprKind::ArrayShape || e.kind == TypedExprKind::ArraySize) return true;
  // abs() of a signed integer wraps at the type's minimum: abs(-128) is -128 as an int8.
  if (e.kind == TypedExprKind::BuiltinCall && e.builtin == Builtin::Abs && types::isSigned(e.type->scalar)) return false;
  return e.kind == TypedExprKind::BuiltinCall && builtinInfo(e.builtin).has(builtin_property::NonNegative);
}

Value FunctionChecker::tupleElement(Value tuple, int64_t index, SourceLoc loc) {
  const types::Type* type = tuple.type();
  int64_t size = static_cast<int64_t>(type->elements.size());
  int64_t normalized = index < 0 ? index + size : index;
  if (normalized < 0 || normalized >= size) {
    sink.error(diag::TupleIndex, loc, {std::to_string(index), types::toString(type)});
    return errorValue();
  }
  size_t at = static_cast<size_t>(normalized);
  std::optional<ConstValue> constant;
  if (tuple.constant && tuple.constant->kind == ConstValue::Kind::Tuple) constant = tuple.constant->elements[at];
  if (tuple.expr->kind == TypedExprKind::TupleMake && isPure(*tuple.expr)) {
    TypedExpr* element = tuple.expr->operands[at];
    Value v = runtime(element, nonNegativeExpr(*element));
    v.constant = constant;
    return v;
  }
  TypedExpr* get = make(TypedExprKind::TupleGet, type->elements[at], loc, {tuple.expr});
  get->index = static_cast<int>(at);
  Value v = runtime(get);
  v.constant = constant;
  return v;
}

Value FunctionChecker::arrayAttribute(Value array, const std::string& attr, SourceLoc loc) {
  const types::Type* type = array.type();
  const types::Type* i64 = types.scalar(types::ScalarKind::Int64);
  if (attr == "shape" || attr == "strides") {
    bool shape = attr == "shape";
    std::vector<TypedExpr*> components;
    for (int k = 0; k < type->ndim; ++k) {
      TypedExpr* e = make(shape ? TypedExprKind::ArrayShape : TypedExprKind::ArrayStride, i64, loc, {array.expr});
      e->index = k;
      components.push_back(e);
    }
    std::vector<const types::Type*> elementTypes(components.size(), i64);
    return runtime(make(TypedExprKind::TupleMake, types.tuple(elementTypes), loc, components));
  }
  if (attr == "size") return runtime(make(TypedExprKind::ArraySize, i64, loc, {array.expr}), true);
  if (attr == "ndim") {
    ConstValue ndim;
    ndim.kind = ConstValue::Kind::Int;
    ndim.intValue = type->ndim;
    return weakLiteral(ndim, loc);
  }
  if (attr == "dtype") return arrayDtype(array, loc);
  // NumPy's a.real and a.imag of a complex array: views of its parts (stores go through them).
  if ((attr == "real" || attr == "imag") && type->element == nullptr && types::isComplex(type->scalar)) {
    TypedExpr* part = make(TypedExprKind::ArrayPart, types.array(types.scalar(types::realPartOf(type->scalar)), type->ndim, type->space),
                           loc, {array.expr});
    part->index = attr == "imag";
    return runtime(part);
  }
  if (attr == "real" && type->element == nullptr && !types::isComplex(type->scalar)) return array;  // NumPy: itself
  if (attr == "view" || attr == "reshape" || attr == "astype") {
    Value method;
    method.kind = Value::Kind::Method;
    method.expr = array.expr;
    method.name = attr;
    return method;
  }
  sink.error(diag::UnknownAttribute, loc, {types::toString(type), attr});
  return errorValue();
}

bool FunctionChecker::tupleElements(Value tuple, const std::string& use, SourceLoc loc,
                                    std::vector<Value>& out) {
  if (tuple.expr->kind != TypedExprKind::Local &&
      (tuple.expr->kind != TypedExprKind::TupleMake || !isPure(*tuple.expr))) {
    sink.error(diag::UnsupportedExpression, tuple.expr->loc,
               {use + " with a tuple computed by a call", "; assign the tuple to a variable first"});
    return false;
  }
  for (size_t k = 0; k < tuple.type()->elements.size(); ++k)
    out.push_back(tupleElement(tuple, static_cast<int64_t>(k), loc));
  return true;
}

bool FunctionChecker::indexParts(const syntax::Expr& index, std::vector<IndexPart>& parts) {
  auto component = [&](const syntax::Expr& e) {
    IndexPart part;
    part.loc = e.loc;
    if (e.kind == syntax::ExprKind::Constant &&
        syntax::as<syntax::ConstantExpr>(e).value.kind == syntax::ConstantValue::Kind::Ellipsis) {
      part.kind = IndexPart::Kind::Ellipsis;
    } else if (e.kind == syntax::ExprKind::Slice) {
      part.kind = IndexPart::Kind::Slice;
      const auto& slice = syntax::as<syntax::SliceExpr>(e);
      std::pair<const syntax::Expr*, std::optional<Value>*> bounds[] = {
          {slice.lower, &part.start}, {slice.upper, &part.stop}, {slice.step, &part.step}};
      for (auto [bound, out] : bounds) {
        if (bound == nullptr) continue;
        Value v = expr(*bound);
        if (v.kind == Value::Kind::Constant && v.constant->kind == ConstValue::Kind::None)
          continue;  // a[None:n]
        *out = toRunTime(v, bound->loc);
      }
    } else {
      part.index = value(e);
    }
    parts.push_back(part);
  };
  if (index.kind == syntax::ExprKind::Tuple) {
    for (const syntax::Expr* element : syntax::as<syntax::TupleExpr>(index).elts) component(*element);
  } else if (index.kind == syntax::ExprKind::Slice || index.kind == syntax::ExprKind::Constant) {
    component(index);
  } else {
    Value v = value(index);
    if (!v.isError() && v.type()->kind == types::TypeKind::Tuple) {
      std::vector<Value> elements;
      if (!tupleElements(v, "indexing", index.loc, elements)) return false;
      for (const Value& element : elements) {
        IndexPart part;
        part.index = element;
        part.loc = index.loc;
        parts.push_back(part);
      }
    } else {
      IndexPart part;
      part.index = v;
      part.loc = index.loc;
      parts.push_back(part);
    }
  }
  for (const IndexPart& part : parts) {
    if (part.kind == IndexPart::Kind::Index && part.index.isError()) return false;
    for (const std::optional<Value>* bound : {&part.start, &part.stop, &part.step}) {
      if (*bound && (*bound)->isError()) return false;
    }
  }
  return true;
}

Value FunctionChecker::arrayIndex(Value array, const syntax::Expr& index, SourceLoc loc) {
  const types::Type* type = array.type();
  std::vector<IndexPart> parts;
  if (!indexParts(index, parts)) return errorValue();
  // An ellipsis among an index per dimension stands for no dimension: the element.
  size_t integers = 0;
  bool view = false;
  for (const IndexPart& part : parts) {
    integers += part.kind == IndexPart::Kind::Index ? 1 : 0;
    view = view || part.kind == IndexPart::Kind::Slice;
  }
  if (view || static_cast<int>(integers) < type->ndim || parts.size() > integers + 1)
    return arraySlice(array, parts, loc);
  if (static_cast<int>(integers) != type->ndim) {
    sink.error(diag::IndexCount, loc,
               {types::toString(type), std::to_string(type->ndim), std::to_string(integers)});
    return errorValue();
  }
  const types::Type* elementType = type->element != nullptr ? type->element : types.scalar(type->scalar);
  TypedExpr* element = make(TypedExprKind::ArrayElement, elementType, loc, {array.expr});
  for (const IndexPart& part : parts) {
    if (part.kind == IndexPart::Kind::Ellipsis) continue;
    const Value& v = part.index;
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::IndexType, v.expr->loc, {describe(v)});
      return errorValue();
    }
    bool nonNegative = v.nonNegative || nonNegativeExpr(*v.expr) ||
                       (v.constant && v.constant->kind == ConstValue::Kind::Int &&
                        (v.constant->aboveInt64 || v.constant->intValue >= 0));
    Value converted = promoteTo(v, types::ScalarKind::Int64, loc);
    if (converted.isError()) return errorValue();
    element->operands.push_back(converted.expr);
    element->wrapNegative.push_back(!nonNegative);
  }
  if (elementType->kind == types::TypeKind::Atomic) return atomicElement(runtime(element), loc);
  return runtime(element);
}

Value FunctionChecker::subscript(const syntax::SubscriptExpr& e) {
  Value base = expr(*e.value);
  if (base.isError()) return base;
  if (base.kind == Value::Kind::StaticTuple) return staticTupleElement(base, *e.slice, e.loc);
  if (base.kind == Value::Kind::NumberType || (base.kind == Value::Kind::Intrinsic && base.intrinsic == Intrinsic::ConstExpr)) {
    sink.error(diag::UnsupportedExpression, e.loc, {"a type expression", " outside a parameter annotation"});
    return errorValue();
  }
  base = toRunTime(base, e.value->loc);
  if (base.isError()) return base;
  if (base.type()->isArray()) return arrayIndex(base, *e.slice, e.loc);
  if (base.type()->isVector()) return vectorIndex(base, *e.slice, e.loc);
  if (base.type()->isInlineArray()) return inlineArrayIndex(base, *e.slice, e.loc);
  if (base.type()->kind == types::TypeKind::WarpMask) return warpMaskLane(base, *e.slice, e.loc);
  if (base.type()->kind == types::TypeKind::Tuple) {
    Value index = value(*e.slice);
    if (index.isError()) return index;
    // A run-time index selects among elements of one type (python_builtins.cpp).
    if (!index.constant || index.constant->kind != ConstValue::Kind::Int) return tupleAt(base, index, e.slice->loc);
    // An index beyond int64 is out of range of every tuple.
    return tupleElement(base, int64Value(*index.constant).value_or(std::numeric_limits<int64_t>::max()),
                        e.loc);
  }
  sink.error(diag::NotSubscriptable, e.loc, {describe(base)});
  return errorValue();
}

std::optional<std::vector<int64_t>> FunctionChecker::constantShape(const Value& shape) {
  if (!shape.constant) return std::nullopt;
  std::vector<int64_t> dims;
  auto add = [&](const ConstValue& c) {
    std::optional<int64_t> n = c.kind == ConstValue::Kind::Int ? int64Value(c) : std::nullopt;
    if (!n || *n <= 0) return false;
    dims.push_back(*n);
    return true;
  };
  if (shape.constant->kind == ConstValue::Kind::Tuple) {
    if (shape.constant->elements.empty()) return std::nullopt;
    for (const ConstValue& c : shape.constant->elements) {
      if (!add(c)) return std::nullopt;
    }
    return dims;
  }
  if (!add(*shape.constant)) return std::nullopt;
  return dims;
}

Value FunctionChecker::peekEntity(const syntax::Expr& e) {
  if (e.kind == syntax::ExprKind::Name) {
    const std::string& id = syntax::as<syntax::NameExpr>(e).id;
    if (localByName_.count(id) != 0 || constParams_.count(id) != 0) return errorValue();
    GlobalMeaning meaning = resolveGlobal(spec().source->globals.get(), id);
    return meaning.status == GlobalMeaning::Status::Ok ? meaning.value : errorValue();
  }
  if (e.kind == syntax::ExprKind::Attribute) {
    const auto& attribute = syntax::as<syntax::AttributeExpr>(e);
    Value base = peekEntity(*attribute.value);
    if (base.kind != Value::Kind::Module) return errorValue();
    return resolveEntity(base.name + "." + attribute.attr);
  }
  return errorValue();
}

bool FunctionChecker::declareArray(int local, const syntax::Expr& valueExpr, SourceLoc loc) {
  if (valueExpr.kind != syntax::ExprKind::Call) return false;
  const auto& call = syntax::as<syntax::CallExpr>(valueExpr);
  Value callee = peekEntity(*call.func);
  if (callee.kind != Value::Kind::Intrinsic ||
      (callee.intrinsic != Intrinsic::SharedArray && callee.intrinsic != Intrinsic::LocalArray)) {
    return false;
  }
  // numba's cuda.shared.array(0, dtype) is a view of dynamic shared memory, an ordinary value.
  if (callee.intrinsic == Intrinsic::SharedArray && callee.name == "cuda.shared.array") {
    const syntax::Expr* shapeArg = call.args.empty() ? nullptr : call.args[0];
    for (const syntax::Keyword* keyword : call.keywords)
      if (keyword->arg == "shape" && shapeArg == nullptr) shapeArg = keyword->value;
    if (shapeArg != nullptr && shapeArg->kind == syntax::ExprKind::Constant) {
      const syntax::ConstantValue& literal = syntax::as<syntax::ConstantExpr>(*shapeArg).value;
      if (literal.kind == syntax::ConstantValue::Kind::Int && literal.fitsInt64 && literal.intValue == 0) return false;
    }
    Value named = shapeArg != nullptr ? peekEntity(*shapeArg) : Value{};  // a global constant 0
    if (named.constant && named.constant->kind == ConstValue::Kind::Int && named.constant->intValue == 0) return false;
  }
  std::string what = callee.name + "()";
  const syntax::Expr* shapeExpr = call.args.size() > 0 ? call.args[0] : nullptr;
  const syntax::Expr* dtypeExpr = call.args.size() > 1 ? call.args[1] : nullptr;
  bool fortranOrder = false;
  int align = 0;
  for (const syntax::Keyword* keyword : call.keywords) {
    if (keyword->arg == "shape" && shapeExpr == nullptr) {
      shapeExpr = keyword->value;
    } else if (keyword->arg == "dtype" && dtypeExpr == nullptr) {
      dtypeExpr = keyword->value;
    } else if (keyword->arg == "order" || keyword->arg == "align") {
      if (!arrayLayoutOption(*keyword, what, fortranOrder, align)) return true;
    } else {
      sink.error(diag::KeywordArgument, keyword->loc, {what, keyword->arg});
      return true;
    }
  }
  for (size_t i = 2; i < call.args.size() && i < 4; ++i) {
    syntax::Keyword option;
    option.arg = i == 2 ? "order" : "align";
    option.value = call.args[i];
    option.loc = call.args[i]->loc;
    if (!arrayLayoutOption(option, what, fortranOrder, align)) return true;
  }
  if (shapeExpr == nullptr || dtypeExpr == nullptr || call.args.size() > 4) {
    sink.error(diag::ArgumentCount, call.loc, {what, "2 arguments (shape, dtype)", std::to_string(call.args.size() + call.keywords.size())});
    return true;
  }
  Value shape = expr(*shapeExpr);
  bool isAtomic = false;
  const types::Type* atomic = atomicDtype(*dtypeExpr, isAtomic);
  Value dtype = isAtomic ? Value{} : expr(*dtypeExpr);
  if (shape.isError() || (isAtomic ? atomic == nullptr : dtype.isError())) return true;
  auto dims = constantShape(shape);
  if (!dims) {
    sink.error(diag::ArrayShape, shapeExpr->loc,
               {what, shape.constant ? toString(*shape.constant) : "a run-time " + describe(shape)});
    return true;
  }
  const types::Type* element = atomic;
  if (!isAtomic && dtype.kind == Value::Kind::StructType) {
    element = structTypeOf(dtype, dtypeExpr->loc);
    if (element == nullptr) return true;
  } else if (!isAtomic && dtype.kind == Value::Kind::NumberType && dtype.vectorSize == 0) {
    element = types.scalar(dtype.scalar);
  } else if (!isAtomic) {
    sink.error(diag::ArrayDtype, dtypeExpr->loc, {what});
    return true;
  }
  types::MemorySpace space = callee.intrinsic == Intrinsic::SharedArray ? types::MemorySpace::Shared : types::MemorySpace::Local;
  if (space == types::MemorySpace::Local) {
    if (uint64_t bytes = arrayBytes(*dims, element); bytes > kGpuLocalMemoryBytes) {
      sink.error(diag::LocalArrayTooLarge, call.loc,
                 {what, bytes == UINT64_MAX ? "more than 2**64" : std::to_string(bytes),
                  std::to_string(kGpuLocalMemoryBytes)});
      return true;
    }
  }
  int ndim = static_cast<int>(dims->size());
  const types::Type* type = types.array(element, ndim, space);
  LocalState& state = locals_[static_cast<size_t>(local)];
  if (state.isParam) {
    sink.error(diag::ParameterRetyped, loc, {state.name, types::toString(state.fixed), types::toString(type)});
    return true;
  }
  if (state.declared && state.fixed != type) {
    sink.error(diag::ConflictingAssignment, loc, {state.name, types::toString(type), types::toString(state.fixed)})
        .notes.push_back({state.loc, "assigned " + types::toString(state.fixed) + " here"});
    return true;
  }
  if (!state.declared) state.loc = loc;
  state.declared = true;
  state.fixed = type;
  state.nonNegative = false;
  TypedStmt* s = emit(TypedStmtKind::DeclareArray, loc);
  s->local = local;
  s->shape = *dims;
  s->fortranOrder = fortranOrder;
  s->align = align;
  return true;
}

}  // namespace weft::sema
