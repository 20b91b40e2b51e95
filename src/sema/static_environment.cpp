#include "sema/static_environment.h"

#include <functional>
#include <map>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

// The decorator kind of `def`: the last component of each decorator's dotted name.
FunctionSource::Decorator decoratorOf(const syntax::FunctionDefStmt& def, bool& interop) {
  FunctionSource::Decorator result = FunctionSource::Decorator::None;
  for (const syntax::Expr* decorator : def.decoratorList) {
    const syntax::Expr* target = decorator;
    if (target->kind == syntax::ExprKind::Call) {
      const auto& call = syntax::as<syntax::CallExpr>(*target);
      for (const syntax::Keyword* keyword : call.keywords) {
        if (keyword->arg == "interop" && keyword->value->kind == syntax::ExprKind::Constant &&
            syntax::as<syntax::ConstantExpr>(*keyword->value).value.boolValue) {
          interop = true;
        }
      }
      target = call.func;
    }
    std::string last;
    if (target->kind == syntax::ExprKind::Name) last = syntax::as<syntax::NameExpr>(*target).id;
    if (target->kind == syntax::ExprKind::Attribute) last = syntax::as<syntax::AttributeExpr>(*target).attr;
    if (last == "kernel") result = FunctionSource::Decorator::Kernel;
    if (last == "func" && result == FunctionSource::Decorator::None) result = FunctionSource::Decorator::Func;
  }
  return result;
}

class StaticEnvironment : public Environment, public std::enable_shared_from_this<StaticEnvironment> {
 public:
  // The functions and classes it hands out share one copy of the file.
  StaticEnvironment(const syntax::Module& module, const SourceFile& file)
      : file_(std::make_shared<const SourceFile>(file.name(), file.text())) {
    for (const syntax::Stmt* s : module.body) bind(*s);
  }

  GlobalValue lookup(std::string_view name) override {
    auto found = values_.find(std::string(name));
    if (found == values_.end()) return {};
    GlobalValue value = found->second.value;
    if (found->second.def != nullptr) value.function = makeFunction(*found->second.def);
    if (found->second.cls != nullptr) value.structClass = makeStruct(*found->second.cls);
    return value;
  }

  std::shared_ptr<FunctionSource> function(const std::string& name) {
    auto found = values_.find(name);
    if (found == values_.end() || found->second.def == nullptr) return nullptr;
    return makeFunction(*found->second.def);
  }

 private:
  struct Binding {
    GlobalValue value;
    const syntax::FunctionDefStmt* def = nullptr;
    const syntax::ClassDefStmt* cls = nullptr;  // a @struct class
  };

  // The struct of a class decorated `@struct`, `@device.struct` or `@weft.struct(align=N)`;
  // made per lookup, as functions are, so that the environment holds no cycle.
  std::shared_ptr<StructSource> makeStruct(const syntax::ClassDefStmt& cls) {
    auto source = std::make_shared<StructSource>();
    source->file = file_;
    source->line = cls.decoratorList.empty() ? cls.loc.line : cls.decoratorList.front()->loc.line;
    source->name = cls.name;
    source->identity =
        std::hash<std::string>{}(file_->name() + ":" + std::to_string(cls.loc.line) + ":" + cls.name);
    source->align = structAlign(cls).value_or(0);
    source->globals = shared_from_this();
    return source;
  }

  // Whether `cls` is decorated as a struct: its align= (0 when absent); nullopt when not.
  static std::optional<int> structAlign(const syntax::ClassDefStmt& cls) {
    for (const syntax::Expr* decorator : cls.decoratorList) {
      const syntax::Expr* target = decorator;
      int align = 0;
      if (target->kind == syntax::ExprKind::Call) {
        const auto& call = syntax::as<syntax::CallExpr>(*target);
        for (const syntax::Keyword* keyword : call.keywords) {
          if (keyword->arg == "align" && keyword->value->kind == syntax::ExprKind::Constant)
            align = static_cast<int>(syntax::as<syntax::ConstantExpr>(*keyword->value).value.intValue);
        }
        target = call.func;
      }
      std::string last;
      if (target->kind == syntax::ExprKind::Name) last = syntax::as<syntax::NameExpr>(*target).id;
      if (target->kind == syntax::ExprKind::Attribute) last = syntax::as<syntax::AttributeExpr>(*target).attr;
      if (last == "struct") return align;
    }
    return std::nullopt;
  }

  std::shared_ptr<FunctionSource> makeFunction(const syntax::FunctionDefStmt& def) {
    auto source = std::make_shared<FunctionSource>();
    source->file = file_;
    source->line = def.decoratorList.empty() ? def.loc.line : def.decoratorList.front()->loc.line;
    source->name = def.name;
    source->identity =
        std::hash<std::string>{}(file_->name() + ":" + std::to_string(def.loc.line) + ":" + def.name);
    source->decorator = decoratorOf(def, source->interop);
    source->face = faceOf(def);
    source->globals = shared_from_this();
    return source;
  }

  // The face of a kernel decorated `@ct.kernel` with `ct` a tile module (weft.tiles, weft.cutile).
  FunctionSource::Face faceOf(const syntax::FunctionDefStmt& def) {
    for (const syntax::Expr* decorator : def.decoratorList) {
      const syntax::Expr* target = decorator;
      if (target->kind == syntax::ExprKind::Call) target = syntax::as<syntax::CallExpr>(*target).func;
      if (target->kind != syntax::ExprKind::Attribute) continue;
      const auto& attribute = syntax::as<syntax::AttributeExpr>(*target);
      if (attribute.attr != "kernel" || attribute.value->kind != syntax::ExprKind::Name) continue;
      auto found = values_.find(syntax::as<syntax::NameExpr>(*attribute.value).id);
      if (found == values_.end() || found->second.value.kind != GlobalValue::Kind::Module) continue;
      std::string module = canonicalModule(found->second.value.qualifiedName);
      if (module == "weft.tiles") return FunctionSource::Face::Tiles;
      if (module == "weft.cutile") return FunctionSource::Face::CuTile;
    }
    return FunctionSource::Face::Simt;
  }

  void bindModule(const std::string& name, const std::string& qualified) {
    Binding binding;
    if (canonicalModule(qualified).empty()) {
      binding.value.kind = GlobalValue::Kind::Unsupported;
      binding.value.qualifiedName = "module";
    } else {
      binding.value.kind = GlobalValue::Kind::Module;
      binding.value.qualifiedName = qualified;
    }
    values_[name] = binding;
  }

  // A module-level constant expression, from literals and earlier constants.
  std::optional<ConstValue> evaluate(const syntax::Expr& e) {
    switch (e.kind) {
      case syntax::ExprKind::Constant: {
        const auto& c = syntax::as<syntax::ConstantExpr>(e).value;
        if (c.kind == syntax::ConstantValue::Kind::Bytes || c.kind == syntax::ConstantValue::Kind::Ellipsis) return std::nullopt;
        return fromSyntax(c);
      }
      case syntax::ExprKind::Name: {
        auto found = values_.find(syntax::as<syntax::NameExpr>(e).id);
        if (found == values_.end() || found->second.value.kind != GlobalValue::Kind::Constant) return std::nullopt;
        return found->second.value.constant;
      }
      case syntax::ExprKind::Tuple: {
        ConstValue tuple;
        tuple.kind = ConstValue::Kind::Tuple;
        for (const syntax::Expr* element : syntax::as<syntax::TupleExpr>(e).elts) {
          auto value = evaluate(*element);
          if (!value) return std::nullopt;
          tuple.elements.push_back(*value);
        }
        return tuple;
      }
      case syntax::ExprKind::UnaryOp: {
        const auto& u = syntax::as<syntax::UnaryOpExpr>(e);
        auto operand = evaluate(*u.operand);
        if (!operand) return std::nullopt;
        UnaryOp op = u.op == syntax::UnaryOperator::USub ? UnaryOp::Neg
                     : u.op == syntax::UnaryOperator::UAdd ? UnaryOp::Pos
                     : u.op == syntax::UnaryOperator::Not  ? UnaryOp::Not
                                                           : UnaryOp::Invert;
        Folded folded = foldUnary(op, *operand);
        if (folded.error != FoldError::None) return std::nullopt;
        return folded.value;
      }
      case syntax::ExprKind::BinOp: {
        const auto& b = syntax::as<syntax::BinOpExpr>(e);
        auto left = evaluate(*b.left);
        auto right = evaluate(*b.right);
        if (!left || !right) return std::nullopt;
        static constexpr std::pair<syntax::Operator, BinaryOp> kOps[] = {
            {syntax::Operator::Add, BinaryOp::Add},         {syntax::Operator::Sub, BinaryOp::Sub},
            {syntax::Operator::Mult, BinaryOp::Mul},        {syntax::Operator::Div, BinaryOp::TrueDiv},
            {syntax::Operator::FloorDiv, BinaryOp::FloorDiv}, {syntax::Operator::Mod, BinaryOp::Mod},
            {syntax::Operator::Pow, BinaryOp::Pow},         {syntax::Operator::LShift, BinaryOp::LShift},
            {syntax::Operator::RShift, BinaryOp::RShift},   {syntax::Operator::BitAnd, BinaryOp::BitAnd},
            {syntax::Operator::BitOr, BinaryOp::BitOr},     {syntax::Operator::BitXor, BinaryOp::BitXor},
        };
        for (const auto& [from, to] : kOps) {
          if (from != b.op) continue;
          Folded folded = foldBinary(to, *left, *right);
          if (folded.error != FoldError::None) return std::nullopt;
          return folded.value;
        }
        return std::nullopt;
      }
      case syntax::ExprKind::BoolOp:
      case syntax::ExprKind::NamedExpr:
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
      case syntax::ExprKind::Attribute:
      case syntax::ExprKind::Subscript:
      case syntax::ExprKind::Starred:
      case syntax::ExprKind::List:
      case syntax::ExprKind::Slice: return std::nullopt;
    }
    return std::nullopt;
  }

  void bindTarget(const syntax::Expr& target, std::optional<ConstValue> value) {
    if (target.kind != syntax::ExprKind::Name) return;
    Binding binding;
    if (value) {
      binding.value.kind = GlobalValue::Kind::Constant;
      binding.value.constant = *value;
    } else {
      binding.value.kind = GlobalValue::Kind::Unsupported;
      binding.value.qualifiedName = "object";
    }
    values_[syntax::as<syntax::NameExpr>(target).id] = binding;
  }

  void bind(const syntax::Stmt& s) {
    switch (s.kind) {
      case syntax::StmtKind::Import:
        for (const syntax::Alias* alias : syntax::as<syntax::ImportStmt>(s).names) {
          if (alias->hasAsname) {
            bindModule(alias->asname, alias->name);
          } else {
            std::string head = alias->name.substr(0, alias->name.find('.'));
            bindModule(head, head);
          }
        }
        return;
      case syntax::StmtKind::ImportFrom: {
        const auto& from = syntax::as<syntax::ImportFromStmt>(s);
        for (const syntax::Alias* alias : from.names) {
          if (alias->name == "*") continue;
          std::string bound = alias->hasAsname ? alias->asname : alias->name;
          std::string qualified = from.module + "." + alias->name;
          if (!canonicalModule(qualified).empty()) {
            bindModule(bound, qualified);
            continue;
          }
          Binding binding;
          if (resolveEntity(qualified).kind != Value::Kind::Error) {
            binding.value.kind = GlobalValue::Kind::Entity;
            binding.value.qualifiedName = qualified;
          } else {
            binding.value.kind = GlobalValue::Kind::Unsupported;
            binding.value.qualifiedName = "object";
          }
          values_[bound] = binding;
        }
        return;
      }
      case syntax::StmtKind::Assign: {
        const auto& assign = syntax::as<syntax::AssignStmt>(s);
        auto value = evaluate(*assign.value);
        for (const syntax::Expr* target : assign.targets) bindTarget(*target, value);
        return;
      }
      case syntax::StmtKind::AnnAssign: {
        const auto& assign = syntax::as<syntax::AnnAssignStmt>(s);
        if (assign.value != nullptr) bindTarget(*assign.target, evaluate(*assign.value));
        return;
      }
      case syntax::StmtKind::FunctionDef: {
        Binding binding;
        binding.value.kind = GlobalValue::Kind::Function;
        binding.def = &syntax::as<syntax::FunctionDefStmt>(s);
        values_[binding.def->name] = binding;
        return;
      }
      case syntax::StmtKind::ClassDef: {
        Binding binding;
        binding.value.kind = GlobalValue::Kind::Unsupported;
        binding.value.qualifiedName = "type";
        if (structAlign(syntax::as<syntax::ClassDefStmt>(s))) {
          binding.value.kind = GlobalValue::Kind::Struct;
          binding.cls = &syntax::as<syntax::ClassDefStmt>(s);
        }
        values_[syntax::as<syntax::ClassDefStmt>(s).name] = binding;
        return;
      }
      case syntax::StmtKind::AsyncFunctionDef:
      case syntax::StmtKind::Return:
      case syntax::StmtKind::Delete:
      case syntax::StmtKind::AugAssign:
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
      case syntax::StmtKind::Global:
      case syntax::StmtKind::Nonlocal:
      case syntax::StmtKind::Expr:
      case syntax::StmtKind::Pass:
      case syntax::StmtKind::Break:
      case syntax::StmtKind::Continue: return;
    }
  }

  std::shared_ptr<const SourceFile> file_;
  std::map<std::string, Binding> values_;
};

}  // namespace

std::shared_ptr<Environment> makeStaticEnvironment(const syntax::Module& module, const SourceFile& file) {
  return std::make_shared<StaticEnvironment>(module, file);
}

std::shared_ptr<FunctionSource> staticFunction(Environment& environment, const std::string& name) {
  auto* statics = dynamic_cast<StaticEnvironment*>(&environment);
  return statics != nullptr ? statics->function(name) : nullptr;
}

std::vector<ArgumentInfo> argumentsFromAnnotations(const syntax::FunctionDefStmt& def, Environment& environment,
                                                   types::TypeContext& types, Diagnostics& diagnostics) {
  std::vector<const syntax::Arg*> params(def.args->posonlyargs.begin(), def.args->posonlyargs.end());
  params.insert(params.end(), def.args->args.begin(), def.args->args.end());
  std::vector<ArgumentInfo> arguments;
  size_t firstDefault = params.size() - std::min(params.size(), def.args->defaults.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const syntax::Arg& param = *params[i];
    ArgumentInfo info;
    if (param.annotation == nullptr) {
      diagnostics.error(diag::MissingAnnotation, param.loc, {param.arg, def.name});
      info.type = types.error();
      arguments.push_back(info);
      continue;
    }
    Annotation annotation = resolveAnnotation(*param.annotation, &environment, types);
    if (annotation.kind == Annotation::Kind::Type) {
      info.type = annotation.type;
    } else if (annotation.kind == Annotation::Kind::ConstExpr && i >= firstDefault &&
               def.args->defaults[i - firstDefault]->kind == syntax::ExprKind::Constant) {
      info.constant = fromSyntax(syntax::as<syntax::ConstantExpr>(*def.args->defaults[i - firstDefault]).value);
      if (info.constant && isNumber(*info.constant)) {
        info.type = annotation.type != nullptr ? annotation.type : types.scalar(builtinKindOf(*info.constant));
      } else {
        info.constant.reset();
      }
    }
    if (info.type == nullptr) {
      diagnostics.error(diag::BadAnnotation, param.annotation->loc, {"the annotation of parameter '" + param.arg + "'"});
      info.type = types.error();
    }
    arguments.push_back(info);
  }
  return arguments;
}

bool isKernelDefinition(const syntax::FunctionDefStmt& def) {
  bool interop = false;
  return decoratorOf(def, interop) == FunctionSource::Decorator::Kernel;
}

bool isInteropDefinition(const syntax::FunctionDefStmt& def) {
  bool interop = false;
  decoratorOf(def, interop);
  return interop;
}

std::vector<const syntax::FunctionDefStmt*> listEntryPoints(const syntax::Module& module) {
  std::vector<const syntax::FunctionDefStmt*> entries;
  for (const syntax::Stmt* s : module.body) {
    if (s->kind != syntax::StmtKind::FunctionDef) continue;
    const auto& def = syntax::as<syntax::FunctionDefStmt>(*s);
    bool interop = false;
    FunctionSource::Decorator decorator = decoratorOf(def, interop);
    if (decorator == FunctionSource::Decorator::Kernel || (decorator == FunctionSource::Decorator::Func && interop))
      entries.push_back(&def);
  }
  return entries;
}

CheckEntry entryFromAnnotations(const syntax::FunctionDefStmt& def, Environment& environment,
                                types::TypeContext& types, Diagnostics& diagnostics) {
  CheckEntry entry;
  entry.function = staticFunction(environment, def.name);
  WEFT_CHECK(entry.function != nullptr, "an entry point the static environment does not have: " + def.name);
  if (entry.function->interop) {
    entry.arguments.resize(def.args->posonlyargs.size() + def.args->args.size());
  } else {
    entry.arguments = argumentsFromAnnotations(def, environment, types, diagnostics);
  }
  return entry;
}

}  // namespace weft::sema
