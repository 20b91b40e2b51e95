// Statements: assignments (one type per variable), control flow, range loops, returns,
// assert, and the rejection of statements device code cannot run.
#include <algorithm>

#include "sema/checker.h"

namespace weft::sema {

namespace {

// True when `e` reads no variable or memory and calls nothing, so it may be evaluated
// after other assignments of the same statement without changing its value.
bool isIndependent(const TypedExpr& e) {
  switch (e.kind) {
    case TypedExprKind::Literal:
    case TypedExprKind::ConstantArray:
    case TypedExprKind::Cast:
    case TypedExprKind::Binary:
    case TypedExprKind::Unary:
    case TypedExprKind::TupleMake:
    case TypedExprKind::VectorMake:
    case TypedExprKind::VectorElement:
    case TypedExprKind::Truth: break;
    case TypedExprKind::BuiltinCall:
      if (e.builtin == Builtin::Syncthreads) return false;
      break;
    case TypedExprKind::Local:
    case TypedExprKind::CompareChain:
    case TypedExprKind::And:
    case TypedExprKind::Or:
    case TypedExprKind::Conditional:
    case TypedExprKind::Call:
    case TypedExprKind::ArrayElement:
    case TypedExprKind::InlineElement:
    case TypedExprKind::ArrayShape:
    case TypedExprKind::ArrayStride:
    case TypedExprKind::ArraySize:
    case TypedExprKind::ArraySlice:
    case TypedExprKind::ArrayView:
    case TypedExprKind::ArrayReshape:
    case TypedExprKind::ArrayPart:
    case TypedExprKind::TileMap:
    case TypedExprKind::MapInput:
    case TypedExprKind::TileCall:
    case TypedExprKind::TupleGet: return false;
  }
  for (const TypedExpr* operand : e.operands) {
    if (!isIndependent(*operand)) return false;
  }
  return true;
}

// True when `s` holds a `return <value>` (not in a nested def or class).
bool returnsValue(const syntax::Stmt& s) {
  auto any = [](const std::vector<syntax::Stmt*>& body) {
    return std::any_of(body.begin(), body.end(),
                       [](const syntax::Stmt* inner) { return returnsValue(*inner); });
  };
  switch (s.kind) {
    case syntax::StmtKind::Return: {
      const syntax::Expr* value = syntax::as<syntax::ReturnStmt>(s).value;
      return value != nullptr &&
             !(value->kind == syntax::ExprKind::Constant &&
               syntax::as<syntax::ConstantExpr>(*value).value.kind == syntax::ConstantValue::Kind::None);
    }
    case syntax::StmtKind::If:
      return any(syntax::as<syntax::IfStmt>(s).body) || any(syntax::as<syntax::IfStmt>(s).orelse);
    case syntax::StmtKind::While:
      return any(syntax::as<syntax::WhileStmt>(s).body) || any(syntax::as<syntax::WhileStmt>(s).orelse);
    case syntax::StmtKind::For:
    case syntax::StmtKind::AsyncFor:
      return any(syntax::as<syntax::ForStmt>(s).body) || any(syntax::as<syntax::ForStmt>(s).orelse);
    case syntax::StmtKind::With:
    case syntax::StmtKind::AsyncWith: return any(syntax::as<syntax::WithStmt>(s).body);
    case syntax::StmtKind::Try:
    case syntax::StmtKind::TryStar: {
      const auto& t = syntax::as<syntax::TryStmt>(s);
      bool handlers = std::any_of(t.handlers.begin(), t.handlers.end(),
                                  [&](const syntax::ExceptHandler* handler) { return any(handler->body); });
      return any(t.body) || handlers || any(t.orelse) || any(t.finalbody);
    }
    case syntax::StmtKind::FunctionDef:
    case syntax::StmtKind::AsyncFunctionDef:
    case syntax::StmtKind::ClassDef:
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
    case syntax::StmtKind::Continue: return false;
  }
  return false;
}

bool isPureIndex(const TypedExpr& e) {
  if (e.kind == TypedExprKind::Call) return false;
  for (const TypedExpr* operand : e.operands) {
    if (!isPureIndex(*operand)) return false;
  }
  return true;
}

}  // namespace

TypedStmt* FunctionChecker::emit(TypedStmtKind kind, SourceLoc loc, std::vector<TypedExpr*> operands) {
  TypedStmt* s = nodes.makeStmt();
  s->kind = kind;
  s->loc = loc;
  s->operands = std::move(operands);
  out_->push_back(s);
  return s;
}

void FunctionChecker::block(const std::vector<syntax::Stmt*>& body, std::vector<TypedStmt*>& out) {
  std::vector<TypedStmt*>* saved = out_;
  out_ = &out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (unreachable_) {
      removed_.push_back(RemovedCode{{body.begin() + static_cast<std::ptrdiff_t>(i), body.end()},
                                     unreachableAfter_,
                                     RemovedCode::Reason::AfterReturn});
      break;
    }
    stmt(*body[i]);
  }
  unreachable_ = false;
  out_ = saved;
}

void FunctionChecker::stmt(const syntax::Stmt& s) {
  size_t reported = sink.all().size();
  size_t poisonedReads = poisonedReads_;
  checkStatement(s);
  // One mistake, one message: a statement that reported an error (or read a variable an
  // earlier error left without a value) leaves the names it binds without a value, so that
  // their uses stay silent instead of reporting them as never assigned.
  if (sink.all().size() > reported || poisonedReads_ > poisonedReads) {
    forEachBinding(s, false, [&](const std::string& name, SourceLoc, bool) {
      auto local = localByName_.find(name);
      if (local != localByName_.end()) locals_[static_cast<size_t>(local->second)].join.sawError = true;
    });
    // A value it would have returned is unknown, too: the function's callers stay silent.
    if (returnsValue(s)) sawValueReturn_ = true;
  }
}

void FunctionChecker::checkStatement(const syntax::Stmt& s) {
  using K = syntax::StmtKind;
  NestingLevel level(program.nesting);
  if (level.tooDeep()) {
    tooDeep(s.loc);
    return;
  }
  auto unsupported = [&](const char* what, const char* hint) { sink.error(diag::UnsupportedStatement, s.loc, {what, hint}); };
  const char* noExceptions = "; exceptions do not exist in device code";
  diagnosticsBeforeStatement_ = sink.all().size();
  poisonedReadsBeforeStatement_ = poisonedReads_;
  switch (s.kind) {
    case K::FunctionDef:
    case K::AsyncFunctionDef: unsupported("a nested function definition", "; define the function at module level"); return;
    case K::ClassDef: unsupported("a class definition", "; define classes at module level"); return;
    case K::Return: returnStmt(syntax::as<syntax::ReturnStmt>(s)); return;
    case K::Delete: unsupported("del", ""); return;
    case K::Assign: {
      const auto& a = syntax::as<syntax::AssignStmt>(s);
      if (a.targets.size() == 1 && a.targets[0]->kind == syntax::ExprKind::Name) {
        auto local = localByName_.find(syntax::as<syntax::NameExpr>(*a.targets[0]).id);
        if (local != localByName_.end() && declareArray(local->second, *a.value, s.loc)) return;
      }
      Value v = value(*a.value);
      // One report for `a = b = m[i]` (which would go through a temporary).
      if (a.targets.size() > 1 && copiesAtomicStruct(v, "assigning it to variables", s.loc)) return;
      if (a.targets.size() > 1 && !v.isError() && !isIndependent(*v.expr)) {
        int temporary = newTemporary(v.type(), s.loc);
        assignLocal(temporary, v, s.loc);
        TypedExpr* ref = make(TypedExprKind::Local, v.type(), s.loc);
        ref->local = temporary;
        Value copy = runtime(ref, v.nonNegative);
        copy.constant = v.constant;
        v = copy;
      }
      for (const syntax::Expr* target : a.targets) assign(*target, v, s.loc);
      return;
    }
    case K::AugAssign: augAssign(syntax::as<syntax::AugAssignStmt>(s)); return;
    case K::AnnAssign: {
      const auto& a = syntax::as<syntax::AnnAssignStmt>(s);
      if (a.value == nullptr) return;
      if (a.target->kind == syntax::ExprKind::Name) {
        auto local = localByName_.find(syntax::as<syntax::NameExpr>(*a.target).id);
        if (local != localByName_.end() && declareArray(local->second, *a.value, s.loc)) return;
      }
      assign(*a.target, value(*a.value), s.loc);
      return;
    }
    case K::For: forStmt(syntax::as<syntax::ForStmt>(s)); return;
    case K::AsyncFor: unsupported("async for", ""); return;
    case K::While: {
      const auto& w = syntax::as<syntax::WhileStmt>(s);
      Value test = condition(*w.test);
      std::vector<TypedStmt*> body, orelse;
      ++loopDepth_;
      block(w.body, body);
      --loopDepth_;
      block(w.orelse, orelse);
      if (test.isError()) return;
      TypedStmt* loop = emit(TypedStmtKind::While, s.loc, {test.expr});
      loop->body = std::move(body);
      loop->orelse = std::move(orelse);
      return;
    }
    case K::If: {
      const auto& i = syntax::as<syntax::IfStmt>(s);
      if (checkTargetIf(*this, i)) return;
      Value test = condition(*i.test);
      if (!test.isError() && test.constant && isNumber(*test.constant)) {
        // A condition known at compile time (`if p is None:` where p's type decides, a global
        // flag, a ConstExpr test): only the branch taken is checked and emitted, so the other
        // may hold code that is only valid for other types; when that branch always returns,
        // the rest of the enclosing block is dead too.
        bool truth = truthOf(*test.constant);
        const std::vector<syntax::Stmt*>& taken = truth ? i.body : i.orelse;
        const std::vector<syntax::Stmt*>& dropped = truth ? i.orelse : i.body;
        removed_.push_back(
            RemovedCode{{dropped.begin(), dropped.end()},
                        s.loc,
                        truth ? RemovedCode::Reason::AlwaysTrue : RemovedCode::Reason::AlwaysFalse});
        std::vector<TypedStmt*> live;
        block(taken, live);
        out_->insert(out_->end(), live.begin(), live.end());
        unreachable_ = alwaysReturns(taken);
        unreachableAfter_ = s.loc;
        return;
      }
      std::vector<TypedStmt*> body, orelse;
      block(i.body, body);
      block(i.orelse, orelse);
      if (test.isError()) return;
      TypedStmt* branch = emit(TypedStmtKind::If, s.loc, {test.expr});
      branch->body = std::move(body);
      branch->orelse = std::move(orelse);
      return;
    }
    case K::With:
    case K::AsyncWith: unsupported("a with statement", ""); return;
    case K::Raise: unsupported("raise", noExceptions); return;
    case K::Try:
    case K::TryStar: unsupported("try", noExceptions); return;
    case K::Assert: checkAssert(syntax::as<syntax::AssertStmt>(s)); return;
    case K::Import:
    case K::ImportFrom: unsupported("import inside a function", "; import at module level"); return;
    case K::Global: unsupported("global", "; pass values as arguments, or read module constants without declaring them"); return;
    case K::Nonlocal: unsupported("nonlocal", ""); return;
    case K::Expr: {
      const syntax::Expr& e = *syntax::as<syntax::ExprStmt>(s).value;
      if (e.kind == syntax::ExprKind::Constant &&
          syntax::as<syntax::ConstantExpr>(e).value.kind == syntax::ConstantValue::Kind::Str) {
        return;  // a string used as a comment
      }
      Value v = value(e);
      if (!v.isError()) emit(TypedStmtKind::Evaluate, s.loc, {v.expr});
      return;
    }
    case K::Pass: return;
    case K::Break:
    case K::Continue: {
      bool isBreak = s.kind == K::Break;
      if (loopDepth_ == 0) {
        sink.error(diag::OutsideLoop, s.loc, {isBreak ? "break" : "continue"});
        return;
      }
      emit(isBreak ? TypedStmtKind::Break : TypedStmtKind::Continue, s.loc);
      return;
    }
  }
}

void FunctionChecker::assign(const syntax::Expr& target, Value v, SourceLoc loc) {
  switch (target.kind) {
    case syntax::ExprKind::Name: {
      const std::string& id = syntax::as<syntax::NameExpr>(target).id;
      if (constParams_.count(id) != 0) {
        sink.error(diag::AssignTarget, target.loc, {"ConstExpr parameter '" + id + "'"});
        return;
      }
      assignLocal(localByName_.at(id), v, loc);
      return;
    }
    case syntax::ExprKind::Tuple:
    case syntax::ExprKind::List: {
      const auto& targets = syntax::as<syntax::ListExpr>(target).elts;
      for (const syntax::Expr* element : targets) {
        if (element->kind == syntax::ExprKind::Starred) {
          sink.error(diag::UnsupportedExpression, element->loc, {"starred assignment (*x)", ""});
          return;
        }
      }
      if (v.isError()) {
        for (const syntax::Expr* element : targets) assign(*element, v, loc);
        return;
      }
      const types::Type* type = v.type();
      if (type->isVector()) {
        // `x, y, z = v`: each component, from one evaluation of v.
        if (static_cast<size_t>(type->size) != targets.size()) {
          sink.error(diag::UnpackCount, target.loc, {std::to_string(type->size), std::to_string(targets.size())});
          return;
        }
        int temporary = newTemporary(type, loc);
        assignLocal(temporary, v, loc);
        for (size_t i = 0; i < targets.size(); ++i) {
          TypedExpr* ref = make(TypedExprKind::Local, type, loc);
          ref->local = temporary;
          TypedExpr* element = make(TypedExprKind::VectorElement, types.scalar(type->scalar), loc, {ref});
          element->index = static_cast<int>(i);
          assign(*targets[i], runtime(element, types::isUnsigned(type->scalar)), loc);
        }
        return;
      }
      if (type->kind != types::TypeKind::Tuple) {
        sink.error(diag::NotUnpackable, target.loc, {types::toString(type)});
        return;
      }
      if (type->elements.size() != targets.size()) {
        sink.error(diag::UnpackCount, target.loc, {std::to_string(type->elements.size()), std::to_string(targets.size())});
        return;
      }
      std::vector<Value> elements;
      if (v.expr->kind == TypedExprKind::TupleMake) {
        // Evaluate every element before assigning any target (`a, b = b, a`).
        for (size_t i = 0; i < targets.size(); ++i) {
          Value element = runtime(v.expr->operands[i], nonNegativeExpr(*v.expr->operands[i]));
          if (v.constant) element.constant = v.constant->elements[i];
          if (!isIndependent(*element.expr)) {
            int temporary = newTemporary(element.type(), loc);
            assignLocal(temporary, element, loc);
            TypedExpr* ref = make(TypedExprKind::Local, element.type(), loc);
            ref->local = temporary;
            Value copy = runtime(ref, locals_[static_cast<size_t>(temporary)].nonNegative);
            copy.constant = element.constant;
            element = copy;
          }
          elements.push_back(element);
        }
      } else {
        Value whole = v;
        if (v.expr->kind != TypedExprKind::Local) {
          int temporary = newTemporary(v.type(), loc);
          assignLocal(temporary, v, loc);
          TypedExpr* ref = make(TypedExprKind::Local, v.type(), loc);
          ref->local = temporary;
          whole = runtime(ref);
        }
        for (size_t i = 0; i < targets.size(); ++i) elements.push_back(tupleElement(whole, static_cast<int64_t>(i), loc));
      }
      for (size_t i = 0; i < targets.size(); ++i) assign(*targets[i], elements[i], loc);
      return;
    }
    case syntax::ExprKind::Subscript: {
      const auto& sub = syntax::as<syntax::SubscriptExpr>(target);
      Value base = value(*sub.value);
      if (base.isError()) return;
      if (base.type()->kind == types::TypeKind::WarpMask) {
        warpMaskAssign(sub, base, v, loc);
        return;
      }
      if (base.type()->isVector()) {
        vectorAssign(base, "", target.loc);
        return;
      }
      if (base.type()->isInlineArray()) {
        inlineArrayAssign(sub, base, v, loc);
        return;
      }
      if (!base.type()->isArray()) {
        sink.error(diag::AssignTarget, target.loc, {"an element of " + describe(base) + " (only array elements can be assigned)"});
        return;
      }
      if (!writableArray(base, target.loc)) return;
      Value element = arrayIndex(base, *sub.slice, target.loc);
      if (element.isError() || v.isError()) return;
      if (element.type()->isArray()) {
        sink.error(diag::SliceAssign, target.loc, {"a[...] that selects several elements"});
        return;
      }
      if (copiesAtomicStruct(element, "storing into an array element", loc)) return;
      Value stored = convert(v, element.type(), loc);
      if (stored.isError()) return;
      emit(TypedStmtKind::Store, loc, {element.expr, stored.expr});
      return;
    }
    case syntax::ExprKind::Attribute: attributeAssign(syntax::as<syntax::AttributeExpr>(target)); return;
    case syntax::ExprKind::BoolOp:
    case syntax::ExprKind::NamedExpr:
    case syntax::ExprKind::BinOp:
    case syntax::ExprKind::UnaryOp:
    case syntax::ExprKind::Lambda:
    case syntax::ExprKind::IfExp:
    case syntax::ExprKind::Dict:
    case syntax::ExprKind::Set:
    case syntax::ExprKind::ListComp:
    case syntax::ExprKind::SetComp:
    case syntax::ExprKind::DictComp:
    case syntax::ExprKind::GeneratorExp:
    case syntax::ExprKind::Await:
    case syntax::ExprKind::Yield:
    case syntax::ExprKind::YieldFrom:
    case syntax::ExprKind::Compare:
    case syntax::ExprKind::Call:
    case syntax::ExprKind::FormattedValue:
    case syntax::ExprKind::JoinedStr:
    case syntax::ExprKind::Constant:
    case syntax::ExprKind::Starred:
    case syntax::ExprKind::Slice:
      sink.error(diag::AssignTarget, target.loc, {"this expression"});
      return;
  }
}

void FunctionChecker::assignLocal(int local, Value v, SourceLoc loc) {
  LocalState& state = locals_[static_cast<size_t>(local)];
  if (v.isError()) {
    // Only a reported error poisons the variable (silences its later uses); an error value
    // that stands for a type not known yet in this pass does not.
    if (sink.all().size() > diagnosticsBeforeStatement_ || poisonedReads_ > poisonedReadsBeforeStatement_) {
      state.join.sawError = true;
    }
    return;
  }
  if (copiesAtomicStruct(v, "assigning it to variable '" + state.name + "'", loc)) {
    state.join.sawError = true;
    return;
  }
  state.nonNegative = state.nonNegative && (v.nonNegative || nonNegativeExpr(*v.expr));
  // A variable that receives an mma result holds it in the accumulator's layout (the layout
  // pass of DESIGN.md section 9, as far as the mma.sync path needs one).
  if (v.expr->kind == TypedExprKind::TileCall && v.expr->tileOp == TileOp::Mma && state.mmaOperands.first == nullptr)
    state.mmaOperands = {v.expr->operands[0]->type, v.expr->operands[1]->type};
  state.constantSeen = state.constantSeen || v.constant.has_value();
  state.constant = v.constant;
  if (v.type()->kind == types::TypeKind::None && v.expr->kind == TypedExprKind::Call) {
    sink.error(diag::UnsupportedExpression, loc, {"the result of a function that returns nothing", "; call it as a statement"});
    state.join.sawError = true;
    return;
  }
  if (state.declared) {
    if (state.isParam) {
      const types::Type* joined = nullptr;
      if (v.weak) {
        if (state.fixed->isScalar()) joined = types.scalar(combineWeak(state.fixed->scalar, builtinKindOf(*v.constant)));
      } else {
        joined = joinTypes(state.fixed, v.type(), types);
      }
      if (joined != state.fixed) {
        sink.error(diag::ParameterRetyped, loc, {state.name, types::toString(state.fixed), describe(v)});
        return;
      }
    }
    Value converted = convert(v, state.fixed, loc);
    if (converted.isError()) return;
    state.constant = converted.constant;
    TypedStmt* s = emit(TypedStmtKind::Assign, loc, {converted.expr});
    s->local = local;
    return;
  }
  TypeJoin& join = state.join;
  auto conflict = [&](const std::string& here, const types::Type* other, SourceLoc otherLoc) {
    if (other->isError()) return;
    sink.error(diag::ConflictingAssignment, loc, {state.name, here, types::toString(other)})
        .notes.push_back({otherLoc, "assigned " + types::toString(other) + " here"});
    join.strong = types.error();
  };
  if (join.strong != nullptr && join.strong->isError()) return;
  if (v.weak) {
    types::ScalarKind kind = builtinKindOf(*v.constant);
    if (join.strong != nullptr && !join.strong->isScalar()) {
      conflict(types::pythonName(kind), join.strong, join.strongLoc);
      return;
    }
    if (!join.weak) join.weakLoc = loc;
    join.weak = join.weak ? joinWeak(*join.weak, kind) : kind;
  } else {
    const types::Type* type = v.type();
    if (join.strong == nullptr) {
      if (join.weak && !type->isScalar()) {
        conflict(types::toString(type), types.scalar(*join.weak), join.weakLoc);
        return;
      }
      join.strong = type;
      join.strongLoc = loc;
    } else {
      const types::Type* joined = joinTypes(join.strong, type, types);
      if (joined == nullptr) {
        conflict(types::toString(type), join.strong, join.strongLoc);
        return;
      }
      join.strong = joined;
    }
  }
  const types::Type* target = localType(local);
  if (target == nullptr || target->isError()) return;
  Value converted = convert(v, target, loc);
  if (converted.isError()) return;
  // The variable holds the value converted to its type (a float literal in a float32).
  state.constant = converted.constant;
  TypedStmt* s = emit(TypedStmtKind::Assign, loc, {converted.expr});
  s->local = local;
}

void FunctionChecker::augAssign(const syntax::AugAssignStmt& s) {
  static constexpr std::pair<syntax::Operator, BinaryOp> kOps[] = {
      {syntax::Operator::Add, BinaryOp::Add},       {syntax::Operator::Sub, BinaryOp::Sub},
      {syntax::Operator::Mult, BinaryOp::Mul},      {syntax::Operator::Div, BinaryOp::TrueDiv},
      {syntax::Operator::FloorDiv, BinaryOp::FloorDiv}, {syntax::Operator::Mod, BinaryOp::Mod},
      {syntax::Operator::Pow, BinaryOp::Pow},       {syntax::Operator::LShift, BinaryOp::LShift},
      {syntax::Operator::RShift, BinaryOp::RShift}, {syntax::Operator::BitAnd, BinaryOp::BitAnd},
      {syntax::Operator::BitOr, BinaryOp::BitOr},   {syntax::Operator::BitXor, BinaryOp::BitXor},
  };
  std::optional<BinaryOp> op;
  for (const auto& [from, to] : kOps) {
    if (from == s.op) op = to;
  }
  if (!op) {
    sink.error(diag::InvalidOperands, s.loc, {"@=", "", ""});
    return;
  }
  if (s.target->kind == syntax::ExprKind::Name) {
    const std::string& id = syntax::as<syntax::NameExpr>(*s.target).id;
    if (constParams_.count(id) != 0) {
      sink.error(diag::AssignTarget, s.target->loc, {"ConstExpr parameter '" + id + "'"});
      return;
    }
    Value current = name(syntax::as<syntax::NameExpr>(*s.target));
    Value right = value(*s.value);
    assignLocal(localByName_.at(id), binary(*op, current, right, s.loc), s.loc);
    return;
  }
  if (s.target->kind != syntax::ExprKind::Subscript) {
    sink.error(diag::AssignTarget, s.target->loc, {s.target->kind == syntax::ExprKind::Attribute ? "an attribute" : "this expression"});
    return;
  }
  const auto& sub = syntax::as<syntax::SubscriptExpr>(*s.target);
  Value base = value(*sub.value);
  if (base.isError()) return;
  if (base.type()->isInlineArray()) {
    sink.error(
        diag::AssignTarget, s.target->loc,
        {"an element of a record's sub-array field with an augmented assignment; write it with =, e.g. "
         "ps[i].pos[k] = ps[i].pos[k] + v"});
    return;
  }
  if (!base.type()->isArray()) {
    sink.error(diag::AssignTarget, s.target->loc, {"an element of " + describe(base) + " (only array elements can be assigned)"});
    return;
  }
  if (!writableArray(base, s.target->loc)) return;
  Value element = arrayIndex(base, *sub.slice, s.target->loc);
  Value right = value(*s.value);
  if (element.isError() || right.isError()) return;
  if (element.type()->isArray()) {
    sink.error(diag::SliceAssign, s.target->loc, {"a[...] that selects several elements"});
    return;
  }
  // The place is evaluated once: indices computed by calls go to temporaries first.
  for (TypedExpr*& operand : element.expr->operands) {
    if (isPureIndex(*operand)) continue;
    int temporary = newTemporary(operand->type, s.loc);
    TypedStmt* save = emit(TypedStmtKind::Assign, s.loc, {operand});
    save->local = temporary;
    TypedExpr* ref = make(TypedExprKind::Local, operand->type, s.loc);
    ref->local = temporary;
    operand = ref;
  }
  TypedExpr* place = make(TypedExprKind::ArrayElement, element.type(), element.expr->loc, element.expr->operands);
  place->wrapNegative = element.expr->wrapNegative;
  Value result = binary(*op, element, right, s.loc);
  Value stored = convert(result, element.type(), s.loc);
  if (stored.isError()) return;
  emit(TypedStmtKind::Store, s.loc, {place, stored.expr});
}

void FunctionChecker::loopBodies(const syntax::ForStmt& s, std::vector<TypedStmt*>& body,
                                 std::vector<TypedStmt*>& orelse) {
  ++loopDepth_;
  block(s.body, body);
  --loopDepth_;
  block(s.orelse, orelse);
}

void FunctionChecker::forStmt(const syntax::ForStmt& s) {
  std::vector<TypedStmt*> body, orelse;
  auto checkBodies = [&]() { loopBodies(s, body, orelse); };
  const syntax::CallExpr* call = nullptr;
  bool enumerate = false;
  if (s.iter->kind == syntax::ExprKind::Call) {
    const auto& candidate = syntax::as<syntax::CallExpr>(*s.iter);
    Value callee = peekEntity(*candidate.func);
    if (callee.kind == Value::Kind::Intrinsic && callee.intrinsic == Intrinsic::Range) call = &candidate;
    enumerate = callee.kind == Value::Kind::Intrinsic && callee.intrinsic == Intrinsic::Enumerate;
  }
  if (enumerate) {
    enumerateFor(s);
    return;
  }
  if (s.iter->kind == syntax::ExprKind::Call) {
    const auto& candidate = syntax::as<syntax::CallExpr>(*s.iter);
    Value callee = peekEntity(*candidate.func);
    if (callee.kind == Value::Kind::PyBuiltin && (callee.name == "zip" || callee.name == "reversed")) {
      pyBuiltinFor(s, candidate, callee.name);
      return;
    }
  }
  if (call == nullptr) {
    Value iterable = expr(*s.iter);
    if (iterable.kind == Value::Kind::StaticTuple) {
      staticTupleFor(s, iterable);
      return;
    }
    iterable = toRunTime(iterable, s.iter->loc);
    if (!iterable.isError() && (iterable.type()->isVector() || iterable.type()->kind == types::TypeKind::Tuple)) {
      vectorFor(s, iterable, *s.target, nullptr, Value{});
      return;
    }
    if (!iterable.isError()) {
      std::string hint = ", not " + describe(iterable);
      if (iterable.type()->isArray()) hint += "; iterate over the indices: for i in range(len(a))";
      sink.error(diag::ForIterable, s.iter->loc, {hint});
    }
    checkBodies();
    return;
  }
  rangeFor(s, call->loc, [&]() -> std::optional<std::vector<Value>> {
    if (!requireArgs("range()", *call, 1, 3)) return std::nullopt;
    std::vector<Value> args;
    for (const syntax::Expr* arg : call->args) args.push_back(value(*arg));
    return args;
  });
}

namespace {

// The first break or continue of `body` that leaves its loop (not one of a loop inside it).
const syntax::Stmt* loopExit(const std::vector<syntax::Stmt*>& body) {
  for (const syntax::Stmt* s : body) {
    if (s->kind == syntax::StmtKind::Break || s->kind == syntax::StmtKind::Continue) return s;
    const syntax::Stmt* found = nullptr;
    if (s->kind == syntax::StmtKind::If) {
      found = loopExit(syntax::as<syntax::IfStmt>(*s).body);
      if (found == nullptr) found = loopExit(syntax::as<syntax::IfStmt>(*s).orelse);
    } else if (s->kind == syntax::StmtKind::With || s->kind == syntax::StmtKind::AsyncWith) {
      found = loopExit(syntax::as<syntax::WithStmt>(*s).body);
    }
    if (found != nullptr) return found;
  }
  return nullptr;
}

}  // namespace

void FunctionChecker::staticTupleFor(const syntax::ForStmt& s, const Value& tuple) {
  std::vector<TypedStmt*> body, orelse;
  if (s.target->kind != syntax::ExprKind::Name) {
    sink.error(diag::UnsupportedStatement, s.target->loc, {"a for loop target other than a name", "; unpack inside the loop"});
    return loopBodies(s, body, orelse);
  }
  // Unrolled: the body once per element, the target naming it (as a static argument's parameter
  // does); each copy is checked as its own code, so a break or continue has no loop to leave.
  if (const syntax::Stmt* exit = loopExit(s.body)) {
    sink.error(diag::UnsupportedStatement, exit->loc,
               {"break or continue in a loop over " + describe(tuple), " (it is unrolled); use an if"});
    return loopBodies(s, body, orelse);
  }
  const std::string& id = syntax::as<syntax::NameExpr>(*s.target).id;
  std::optional<Value> shadowed;
  if (auto found = constParams_.find(id); found != constParams_.end()) shadowed = found->second;
  for (Value element : tuple.elements) {
    // A number beside the functions is bound as a literal is (a ConstExpr parameter's way).
    if (element.kind == Value::Kind::Constant) {
      if (element.constant->kind == ConstValue::Kind::Str || element.constant->kind == ConstValue::Kind::None ||
          element.constant->kind == ConstValue::Kind::Tuple) {
        sink.error(diag::UnsupportedStatement, s.iter->loc,
                   {"a loop over a tuple holding " + toString(*element.constant), "; index the tuple with constants"});
        break;
      }
      element.weak = true;
    }
    constParams_[id] = element;
    std::vector<TypedStmt*> copy;
    block(s.body, copy);
    out_->insert(out_->end(), copy.begin(), copy.end());
  }
  if (shadowed) {
    constParams_[id] = *shadowed;
  } else {
    constParams_.erase(id);
  }
  std::vector<TypedStmt*> after;
  block(s.orelse, after);
  out_->insert(out_->end(), after.begin(), after.end());
}

void FunctionChecker::rangeFor(const syntax::ForStmt& s, SourceLoc callLoc,
                               const std::function<std::optional<std::vector<Value>>()>& arguments) {
  std::vector<TypedStmt*> body, orelse;
  auto checkBodies = [&]() { loopBodies(s, body, orelse); };
  if (s.target->kind != syntax::ExprKind::Name) {
    sink.error(diag::UnsupportedStatement, s.target->loc, {"a for loop target other than a name", "; unpack inside the loop"});
    checkBodies();
    return;
  }
  const std::string& id = syntax::as<syntax::NameExpr>(*s.target).id;
  if (constParams_.count(id) != 0) {
    sink.error(diag::AssignTarget, s.target->loc, {"ConstExpr parameter '" + id + "'"});
    checkBodies();
    return;
  }
  int local = localByName_.at(id);
  std::optional<std::vector<Value>> given = arguments();
  bool ok = given.has_value();
  std::vector<Value> args = given.value_or(std::vector<Value>{});
  ConstValue zero, one;
  zero.kind = one.kind = ConstValue::Kind::Int;
  one.intValue = 1;
  if (ok && args.size() == 1) args.insert(args.begin(), weakLiteral(zero, callLoc));
  if (ok && args.size() == 2) args.push_back(weakLiteral(one, callLoc));
  std::optional<types::ScalarKind> common, weakKind;
  for (size_t i = 0; ok && i < args.size(); ++i) {
    const Value& v = args[i];
    if (v.isError()) {
      ok = false;
      break;
    }
    if (!v.type()->isScalar() || !(types::isInteger(v.type()->scalar) || types::isBool(v.type()->scalar))) {
      sink.error(diag::RangeArgument, v.expr->loc, {describe(v)});
      ok = false;
      break;
    }
    if (v.weak) {
      types::ScalarKind kind = builtinKindOf(*v.constant);
      weakKind = weakKind ? joinWeak(*weakKind, kind) : kind;
      continue;
    }
    auto promoted = common ? types::promote(*common, v.type()->scalar) : v.type()->scalar;
    if (!promoted) {
      sink.error(diag::NoCommonType, callLoc, {types::pythonName(*common), types::pythonName(v.type()->scalar), "int64"});
      ok = false;
      break;
    }
    common = promoted;
  }
  int stepSign = 0;
  if (ok && args[2].constant) {
    const ConstValue& step = *args[2].constant;
    // A step beyond int64 is a uint64 step, positive.
    int64_t value = int64Value(step).value_or(1);
    if (value == 0) {
      sink.error(diag::RangeZeroStep, args[2].expr->loc);
      ok = false;
    }
    stepSign = value > 0 ? 1 : -1;
  }
  if (!ok) {
    locals_[static_cast<size_t>(local)].join.sawError = true;
    checkBodies();
    return;
  }
  types::ScalarKind kind = common ? (weakKind ? combineWeak(*common, *weakKind) : *common) : *weakKind;
  if (types::isBool(kind)) kind = types::ScalarKind::Int32;
  // The loop variable joins the range's type like an assignment would.
  LocalState& state = locals_[static_cast<size_t>(local)];
  bool nonNegative = stepSign > 0 && (args[0].nonNegative || nonNegativeExpr(*args[0].expr));
  state.nonNegative = state.nonNegative && nonNegative;
  const types::Type* rangeType = types.scalar(kind);
  if (state.declared) {
    if (!state.fixed->isScalar() || !types::isInteger(state.fixed->scalar)) {
      sink.error(diag::ConflictingAssignment, s.target->loc, {id, types::toString(rangeType), types::toString(state.fixed)})
          .notes.push_back({state.loc, "declared " + types::toString(state.fixed) + " here"});
      checkBodies();
      return;
    }
  } else if (!common) {
    if (state.join.strong == nullptr || !state.join.strong->isError()) {
      if (!state.join.weak) state.join.weakLoc = s.loc;
      state.join.weak = state.join.weak ? joinWeak(*state.join.weak, kind) : kind;
    }
  } else if (state.join.strong == nullptr) {
    state.join.strong = rangeType;
    state.join.strongLoc = s.loc;
  } else if (!state.join.strong->isError()) {
    const types::Type* joined = joinTypes(state.join.strong, rangeType, types);
    if (joined == nullptr) {
      sink.error(diag::ConflictingAssignment, s.target->loc, {id, types::toString(rangeType), types::toString(state.join.strong)})
          .notes.push_back({state.join.strongLoc, "assigned " + types::toString(state.join.strong) + " here"});
      state.join.strong = types.error();
    } else {
      state.join.strong = joined;
    }
  }
  const types::Type* varType = localType(local);
  checkBodies();
  if (varType == nullptr || varType->isError()) return;
  if (!varType->isScalar() || !types::isInteger(varType->scalar)) {
    sink.error(diag::ConflictingAssignment, s.target->loc, {id, types::toString(rangeType), types::toString(varType)});
    return;
  }
  std::vector<TypedExpr*> bounds;
  for (const Value& v : args) {
    Value converted = promoteTo(v, varType->scalar, callLoc);
    if (converted.isError()) return;
    bounds.push_back(converted.expr);
  }
  TypedStmt* loop = emit(TypedStmtKind::ForRange, s.loc, bounds);
  loop->local = local;
  loop->stepSign = stepSign;
  loop->body = std::move(body);
  loop->orelse = std::move(orelse);
}

void FunctionChecker::returnStmt(const syntax::ReturnStmt& s) {
  bool bare = s.value == nullptr || (s.value->kind == syntax::ExprKind::Constant &&
                                     syntax::as<syntax::ConstantExpr>(*s.value).value.kind == syntax::ConstantValue::Kind::None);
  if (bare) {
    noteReturn(errorValue(), s.loc, true);
    emit(TypedStmtKind::Return, s.loc);
    return;
  }
  Value v = value(*s.value);
  // `return f()` of a call that gives None (a kernel lambda's body, as numba compiles it) is
  // `f()` then `return`, as in Python.
  if (v.kind == Value::Kind::RunTime && v.type()->kind == types::TypeKind::None) {
    emit(TypedStmtKind::Evaluate, s.loc, {v.expr});
    noteReturn(errorValue(), s.loc, true);
    emit(TypedStmtKind::Return, s.loc);
    return;
  }
  if (!noteReturn(v, s.loc, false)) return;
  const types::Type* type = spec().declaredReturn;
  if (type == nullptr) type = assumed_.returnType != nullptr ? assumed_.returnType : returnJoin_.result(types);
  if (type == nullptr || type->isError() || type->kind == types::TypeKind::None) return;
  Value converted = convert(v, type, s.loc);
  if (converted.isError()) return;
  emit(TypedStmtKind::Return, s.loc, {converted.expr});
}

// `assert test, msg`: checked with debug=True (AssertionError with the message and line);
// otherwise neither `test` nor `msg` runs, as under `python -O`. The message must be a
// constant string in either mode, so that debug=True never rejects a kernel that compiles.
void FunctionChecker::checkAssert(const syntax::AssertStmt& s) {
  Value test = condition(*s.test);
  std::string message;
  if (s.msg != nullptr) {
    if (s.msg->kind == syntax::ExprKind::JoinedStr) {
      sink.error(diag::AssertMessage, s.msg->loc, {"an f-string"});
      return;
    }
    Value msg = expr(*s.msg);
    if (msg.isError()) return;
    if (!msg.constant || msg.constant->kind != ConstValue::Kind::Str) {
      sink.error(diag::AssertMessage, s.msg->loc, {msg.constant ? toString(*msg.constant) : describe(msg)});
      return;
    }
    message = msg.constant->strValue;
  }
  if (!program.debug || test.isError()) return;
  TypedExpr* failed = make(TypedExprKind::Unary, types.scalar(types::ScalarKind::Bool), s.loc, {test.expr});
  failed->unaryOp = UnaryOp::Not;
  TypedStmt* branch = emit(TypedStmtKind::If, s.loc, {failed});
  TypedExpr* trap = make(TypedExprKind::BuiltinCall, types.none(), s.loc);
  trap->builtin = Builtin::AssertFail;
  trap->text = message;
  TypedStmt* report = nodes.makeStmt();
  report->kind = TypedStmtKind::Evaluate;
  report->loc = s.loc;
  report->operands = {trap};
  branch->body.push_back(report);
}

void FunctionChecker::vectorFor(const syntax::ForStmt& s, Value vector, const syntax::Expr& element,
                                const syntax::Expr* counter, Value start) {
  SourceLoc loc = s.loc;
  const types::Type* type = vector.type();
  const types::Type* indexType = types.scalar(types::ScalarKind::Int32);
  auto local = [&](int index, const types::Type* localType) {
    TypedExpr* ref = make(TypedExprKind::Local, localType, loc);
    ref->local = index;
    return ref;
  };
  // The vector and the start of the count are evaluated once, before the loop.
  int copy = newTemporary(type, loc);
  assignLocal(copy, vector, loc);
  if (counter != nullptr && !start.weak && !isIndependent(*start.expr)) {
    int saved = newTemporary(start.type(), loc);
    assignLocal(saved, start, loc);
    start = runtime(local(saved, start.type()), start.nonNegative);
  }
  int index = newTemporary(indexType, loc);
  std::vector<TypedStmt*> body, orelse;
  std::vector<TypedStmt*>* outer = out_;
  out_ = &body;
  if (counter != nullptr) {
    Value position = runtime(local(index, indexType), true);
    bool zero = start.weak && !truthOf(*start.constant);
    assign(*counter, zero ? position : binary(BinaryOp::Add, position, start, loc), loc);
  }
  if (type->isVector()) {
    TypedExpr* component = make(TypedExprKind::VectorElement, types.scalar(type->scalar), loc,
                                {local(copy, type), local(index, indexType)});
    component->wrapNegative = {false};
    assign(element, runtime(component, types::isUnsigned(type->scalar)), loc);
  } else {
    assign(element, tupleAt(runtime(local(copy, type)), runtime(local(index, indexType), true), loc), loc);
  }
  out_ = outer;
  ++loopDepth_;
  block(s.body, body);
  --loopDepth_;
  block(s.orelse, orelse);
  ConstValue bound = intConstant(0);
  std::vector<TypedExpr*> bounds;
  int64_t count = type->isVector() ? type->size : static_cast<int64_t>(type->elements.size());
  for (int64_t value : {int64_t{0}, count, int64_t{1}}) {
    bound.intValue = value;
    bounds.push_back(typedLiteral(bound, types::ScalarKind::Int32, loc).expr);
  }
  TypedStmt* loop = emit(TypedStmtKind::ForRange, loc, bounds);
  loop->local = index;
  loop->stepSign = 1;
  loop->body = std::move(body);
  loop->orelse = std::move(orelse);
}

void FunctionChecker::enumerateFor(const syntax::ForStmt& s) {
  const auto& call = syntax::as<syntax::CallExpr>(*s.iter);
  auto checkBodies = [&]() {
    std::vector<TypedStmt*> body, orelse;
    loopBodies(s, body, orelse);
  };
  const syntax::Expr* startExpr = call.args.size() > 1 ? call.args[1] : nullptr;
  for (const syntax::Keyword* keyword : call.keywords) {
    if (keyword->arg != "start" || startExpr != nullptr) {
      sink.error(diag::KeywordArgument, keyword->loc, {"enumerate()", keyword->arg});
      return checkBodies();
    }
    startExpr = keyword->value;
  }
  if (call.args.empty() || call.args.size() > 2) {
    sink.error(diag::ArgumentCount, call.loc,
               {"enumerate()", "1 or 2 arguments", std::to_string(call.args.size())});
    return checkBodies();
  }
  const syntax::Expr& target = *s.target;
  bool pair = (target.kind == syntax::ExprKind::Tuple || target.kind == syntax::ExprKind::List) &&
              syntax::as<syntax::ListExpr>(target).elts.size() == 2;
  if (!pair) {
    sink.error(
        diag::UnsupportedStatement, target.loc,
        {"a loop over enumerate() with a target other than two names", "; write for i, x in enumerate(v):"});
    return checkBodies();
  }
  Value vector = value(*call.args[0]);
  Value start = startExpr != nullptr ? value(*startExpr) : weakLiteral(intConstant(0), call.loc);
  if (vector.isError() || start.isError()) return checkBodies();
  if (!vector.type()->isVector() && vector.type()->kind != types::TypeKind::Tuple) {
    std::string hint = ", not enumerate() of " + describe(vector);
    if (vector.type()->isArray()) hint += "; iterate over the indices: for i in range(len(a))";
    sink.error(diag::ForIterable, s.iter->loc, {hint});
    return checkBodies();
  }
  if (!start.type()->isScalar() ||
      !(types::isInteger(start.type()->scalar) || types::isBool(start.type()->scalar))) {
    sink.error(diag::ArgumentType, startExpr->loc, {"2", "enumerate()", "an integer", describe(start)});
    return checkBodies();
  }
  const auto& names = syntax::as<syntax::ListExpr>(target).elts;
  vectorFor(s, vector, *names[1], names[0], start);
}

}  // namespace weft::sema
