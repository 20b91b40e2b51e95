// Views of arrays (docs/arrays.md): slicing with Python's semantics, a.view(dtype),
// a.reshape(shape), a.astype(dtype, copy=False) and a.dtype. A view is an array value like
// any other (same element type and memory space), so it is assigned, passed, sliced again and
// stored into like the array it views; include/weft/device/array_views.h computes it.
#include "sema/checker.h"
#include "support/check.h"
#include "types/layout.h"

namespace weft::sema {

namespace {

const types::Type* elementOf(const types::Type* array, types::TypeContext& types) {
  return array->element != nullptr ? array->element : types.scalar(array->scalar);
}

// The constant integer `v` holds, if any.
std::optional<int64_t> constantInt(const Value& v) {
  if (v.constant && v.constant->kind == ConstValue::Kind::Int) return int64Value(*v.constant);
  return std::nullopt;
}

}  // namespace

Value FunctionChecker::arraySlice(Value array, const std::vector<IndexPart>& parts, SourceLoc loc) {
  const types::Type* type = array.type();
  size_t ellipses = 0;
  for (const IndexPart& part : parts) {
    if (part.kind != IndexPart::Kind::Ellipsis) continue;
    if (++ellipses > 1) {
      sink.error(diag::IndexEllipsis, part.loc, {});
      return errorValue();
    }
  }
  size_t explicitAxes = parts.size() - ellipses;
  if (explicitAxes > static_cast<size_t>(type->ndim)) {
    sink.error(diag::IndexCount, loc,
               {types::toString(type), std::to_string(type->ndim), std::to_string(explicitAxes)});
    return errorValue();
  }
  const types::Type* i64 = types.scalar(types::ScalarKind::Int64);
  TypedExpr* slice = make(TypedExprKind::ArraySlice, types.error(), loc, {array.expr});
  int kept = 0;
  auto integer = [&](const Value& v) -> TypedExpr* {
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::IndexType, v.expr->loc, {describe(v)});
      return nullptr;
    }
    Value converted = promoteTo(v, types::ScalarKind::Int64, v.expr->loc);
    return converted.isError() ? nullptr : converted.expr;
  };
  // `:` — every element of the dimension.
  auto wholeAxis = [&](SourceLoc at) {
    TypedExpr* one = make(TypedExprKind::Literal, i64, at);
    one->literal.intValue = 1;
    slice->operands.push_back(one);
    slice->axes.push_back(ArrayAxis{});
    ++kept;
  };
  for (const IndexPart& part : parts) {
    switch (part.kind) {
      case IndexPart::Kind::Ellipsis:
        for (size_t k = explicitAxes; k < static_cast<size_t>(type->ndim); ++k) wholeAxis(part.loc);
        break;
      case IndexPart::Kind::Index: {
        TypedExpr* index = integer(part.index);
        if (index == nullptr) return errorValue();
        ArrayAxis axis;
        axis.isIndex = true;
        const Value& v = part.index;
        axis.wrap = !(v.nonNegative || nonNegativeExpr(*v.expr) || constantInt(v).value_or(-1) >= 0);
        slice->operands.push_back(index);
        slice->axes.push_back(axis);
        break;
      }
      case IndexPart::Kind::Slice: {
        ArrayAxis axis;
        for (const std::optional<Value>* bound : {&part.start, &part.stop}) {
          if (!*bound) continue;
          TypedExpr* e = integer(**bound);
          if (e == nullptr) return errorValue();
          slice->operands.push_back(e);
        }
        axis.hasStart = part.start.has_value();
        axis.hasStop = part.stop.has_value();
        if (!part.step) {
          wholeAxis(part.loc);
          slice->axes.back() = axis;
          break;
        }
        TypedExpr* step = integer(*part.step);
        if (step == nullptr) return errorValue();
        if (constantInt(*part.step) == 0) {
          sink.error(diag::SliceStep, part.step->expr->loc, {});
          return errorValue();
        }
        slice->operands.push_back(step);
        slice->axes.push_back(axis);
        ++kept;
        break;
      }
    }
  }
  // Dimensions after the last index are taken whole (NumPy: m[i] is row i).
  while (slice->axes.size() < static_cast<size_t>(type->ndim)) wholeAxis(loc);
  slice->type = types.array(elementOf(type, types), kept, type->space);
  slice->checked = program.debug;
  return runtime(slice);
}

Value FunctionChecker::arrayDtype(Value array, SourceLoc loc) {
  const types::Type* element = elementOf(array.type(), types);
  Value dtype;
  if (element->isScalar()) {
    dtype.kind = Value::Kind::NumberType;
    dtype.scalar = element->scalar;
    dtype.name = std::string("device.") + types::pythonName(element->scalar);
    return dtype;
  }
  if (element->isStruct()) {
    WEFT_CHECK(element->origin != nullptr, "a struct type without its definition");
    dtype.kind = Value::Kind::StructType;
    dtype.structSource = static_cast<const StructDefinition*>(element->origin.get())->source;
    dtype.name = "struct '" + element->name + "'";
    return dtype;
  }
  sink.error(
      diag::UnsupportedExpression, loc,
      {"the dtype of " + types::toString(array.type()), "; name the element type itself, e.g. device.int32"});
  return errorValue();
}

const types::Type* FunctionChecker::dtypeArgument(const syntax::Expr& e, const std::string& what) {
  Value dtype = expr(e);
  if (dtype.isError()) return nullptr;
  if (dtype.kind == Value::Kind::NumberType && dtype.vectorSize == 0) return types.scalar(dtype.scalar);
  if (dtype.kind == Value::Kind::StructType) return structTypeOf(dtype, e.loc);
  sink.error(
      diag::ArgumentType, e.loc,
      {"1", what, "a dtype: a number type such as device.float32, a @struct class or another array's .dtype",
       describe(dtype)});
  return nullptr;
}

Value FunctionChecker::arrayMethodCall(const Value& callee, const syntax::CallExpr& e) {
  Value array = runtime(callee.expr);
  for (const syntax::Expr* arg : e.args) {
    if (arg->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, arg->loc,
                 {"a starred argument (*args)", "; pass each argument"});
      return errorValue();
    }
  }
  if (callee.name == "view") return arrayView(array, e);
  if (callee.name == "reshape") return arrayReshape(array, e);
  WEFT_CHECK(callee.name == "astype", "an unknown array method " + callee.name);
  return arrayAstype(array, e);
}

Value FunctionChecker::arrayView(Value array, const syntax::CallExpr& e) {
  const syntax::Expr* dtypeExpr = e.args.empty() ? nullptr : e.args[0];
  for (const syntax::Keyword* keyword : e.keywords) {
    if (keyword->arg != "dtype" || dtypeExpr != nullptr) {
      sink.error(diag::KeywordArgument, keyword->loc, {"view()", keyword->hasArg ? keyword->arg : "**"});
      return errorValue();
    }
    dtypeExpr = keyword->value;
  }
  if (dtypeExpr == nullptr || e.args.size() > 1) {
    sink.error(diag::ArgumentCount, e.loc,
               {"view()", "1 argument (dtype)", std::to_string(e.args.size() + e.keywords.size())});
    return errorValue();
  }
  const types::Type* target = dtypeArgument(*dtypeExpr, "view()");
  if (target == nullptr) return errorValue();
  const types::Type* type = array.type();
  const types::Type* element = elementOf(type, types);
  if (element == target) return array;
  std::string from = types::toString(type);
  if (element->kind == types::TypeKind::Atomic) {
    sink.error(diag::ArrayViewDtype, e.loc,
               {from, types::toString(target),
                "its elements are atomic, and only atomic operations may access them"});
    return errorValue();
  }
  uint64_t fromSize = types::layoutOf(element).size;
  uint64_t toSize = types::layoutOf(target).size;
  if (toSize < fromSize && fromSize % toSize != 0) {
    sink.error(diag::ArrayViewDtype, e.loc,
               {from, types::toString(target),
                "when changing to a smaller dtype, its size (" + std::to_string(toSize) +
                    " bytes) must divide the element size (" + std::to_string(fromSize) + " bytes)"});
    return errorValue();
  }
  TypedExpr* view =
      make(TypedExprKind::ArrayView, types.array(target, type->ndim, type->space), e.loc, {array.expr});
  view->checked = program.debug;
  return runtime(view);
}

Value FunctionChecker::arrayReshape(Value array, const syntax::CallExpr& e) {
  const types::Type* type = array.type();
  std::vector<const syntax::Expr*> given(e.args.begin(), e.args.end());
  for (const syntax::Keyword* keyword : e.keywords) {
    Value option = keyword->arg == "order" || keyword->arg == "copy" ? expr(*keyword->value) : Value{};
    if (keyword->arg == "shape" && given.empty()) {
      given.push_back(keyword->value);
    } else if (keyword->arg == "order") {
      if (option.isError()) return errorValue();
      if (!option.constant || option.constant->kind != ConstValue::Kind::Str ||
          option.constant->strValue != "C") {
        sink.error(diag::ArgumentType, keyword->loc,
                   {"order", "reshape()", "'C' (device code reshapes in C order)",
                    option.constant ? toString(*option.constant) : describe(option)});
        return errorValue();
      }
    } else if (keyword->arg == "copy") {
      if (option.isError()) return errorValue();
      if (!option.constant || option.constant->kind == ConstValue::Kind::Str) {
        sink.error(diag::NotConstant, keyword->loc, {"copy= of reshape()"});
        return errorValue();
      }
      if (truthOf(*option.constant)) {
        sink.error(diag::ArrayAllocates, keyword->loc,
                   {"reshape(copy=True)", "reshape without it (a view: copy=False or None)"});
        return errorValue();
      }
    } else {
      sink.error(diag::KeywordArgument, keyword->loc, {"reshape()", keyword->hasArg ? keyword->arg : "**"});
      return errorValue();
    }
  }
  std::vector<Value> dims;
  for (const syntax::Expr* arg : given) {
    Value v = value(*arg);
    if (v.isError()) return errorValue();
    if (given.size() == 1 && v.type()->kind == types::TypeKind::Tuple) {
      if (!tupleElements(v, "reshape()", arg->loc, dims)) return errorValue();
    } else {
      dims.push_back(v);
    }
  }
  if (dims.empty()) {
    sink.error(diag::ReshapeShape, e.loc, {"is empty, but device code has no 0-dimensional arrays"});
    return errorValue();
  }
  TypedExpr* reshape = make(TypedExprKind::ArrayReshape, types.error(), e.loc, {array.expr});
  int unknown = 0;
  for (const Value& v : dims) {
    if (v.isError()) return errorValue();
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::ReshapeShape, v.expr->loc, {"has a dimension of type " + describe(v)});
      return errorValue();
    }
    // NumPy infers any negative dimension; a second one is an error.
    if (auto constant = constantInt(v); constant && *constant < 0 && ++unknown > 1) {
      sink.error(diag::ReshapeShape, v.expr->loc, {"has more than one -1"});
      return errorValue();
    }
    Value converted = promoteTo(v, types::ScalarKind::Int64, v.expr->loc);
    if (converted.isError()) return errorValue();
    reshape->operands.push_back(converted.expr);
  }
  reshape->type = types.array(elementOf(type, types), static_cast<int>(dims.size()), type->space);
  reshape->checked = program.debug;
  return runtime(reshape);
}

Value FunctionChecker::arrayAstype(Value array, const syntax::CallExpr& e) {
  const syntax::Expr* dtypeExpr = e.args.empty() ? nullptr : e.args[0];
  const syntax::Keyword* copy = nullptr;
  for (const syntax::Keyword* keyword : e.keywords) {
    if (keyword->arg == "dtype" && dtypeExpr == nullptr) {
      dtypeExpr = keyword->value;
    } else if (keyword->arg == "copy" && copy == nullptr) {
      copy = keyword;
    } else {
      sink.error(diag::KeywordArgument, keyword->loc, {"astype()", keyword->hasArg ? keyword->arg : "**"});
      return errorValue();
    }
  }
  if (dtypeExpr == nullptr || e.args.size() > 1) {
    sink.error(
        diag::ArgumentCount, e.loc,
        {"astype()", "1 argument (dtype) and copy=False", std::to_string(e.args.size()) + " positional"});
    return errorValue();
  }
  const types::Type* target = dtypeArgument(*dtypeExpr, "astype()");
  if (target == nullptr) return errorValue();
  const types::Type* element = elementOf(array.type(), types);
  if (target != element) {
    sink.error(diag::ArrayAllocates, e.loc,
               {"astype(" + types::toString(target) + ") of " + types::toString(array.type()),
                (target->isScalar() ? "convert each element where it is used, e.g. device." +
                                          types::toString(target) + "(a[i]), or "
                                    : std::string()) +
                    "reinterpret the bytes with a.view(dtype)"});
    return errorValue();
  }
  if (copy == nullptr) {
    sink.error(diag::ArrayAllocates, e.loc,
               {"astype() (it copies unless copy=False)",
                "write a.astype(dtype, copy=False), which returns the array itself"});
    return errorValue();
  }
  Value option = expr(*copy->value);
  if (option.isError()) return errorValue();
  if (!option.constant || option.constant->kind == ConstValue::Kind::Str) {
    sink.error(diag::NotConstant, copy->loc, {"copy= of astype()"});
    return errorValue();
  }
  if (truthOf(*option.constant)) {
    sink.error(diag::ArrayAllocates, copy->loc,
               {"astype(copy=True)", "write copy=False, which returns the array itself"});
    return errorValue();
  }
  return array;
}

}  // namespace weft::sema
