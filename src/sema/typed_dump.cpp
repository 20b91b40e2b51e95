#include "sema/typed_dump.h"

#include <cstdio>

#include "sema/sema.h"

namespace weft::sema {

namespace {

const char* kBuiltinNames[] = {
#define WEFT_BUILTIN(Enum, description, header, helper, properties, math, arity) #Enum,
#include "sema/builtin_kinds.def"
};

const char* binaryName(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::TrueDiv: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::LShift: return "<<";
    case BinaryOp::RShift: return ">>";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
  }
  return "?";
}

const char* compareName(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::NotEq: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::LtE: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::GtE: return ">=";
  }
  return "?";
}

std::string literalText(const TypedExpr& e) {
  if (e.type->isScalar()) {
    types::ScalarKind kind = e.type->scalar;
    if (types::isBool(kind)) return e.literal.boolValue ? "True" : "False";
    if (types::isUnsigned(kind)) return std::to_string(static_cast<uint64_t>(e.literal.intValue));
    if (types::isInteger(kind)) return std::to_string(e.literal.intValue);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", e.literal.floatValue);
    std::string text = buffer;
    if (types::isComplex(kind)) {
      std::snprintf(buffer, sizeof buffer, "%.17g", e.literal.imagValue);
      text = "(" + text + "+" + buffer + "j)";
    }
    return text;
  }
  if (e.type->kind == types::TypeKind::None) return "None";
  return "?";
}

constexpr std::string_view kTileOpNames[] = {
#define WEFT_TILE_OP(Enum, name) name,
#include "sema/tile_ops.def"
};

class Printer {
 public:
  explicit Printer(const TypedFunction& function) : function_(function) {}

  std::string expr(const TypedExpr& e) {
    std::string type = types::toString(e.type);
    auto operand = [&](size_t i) { return expr(*e.operands[i]); };
    switch (e.kind) {
      case TypedExprKind::Literal: return literalText(e) + ":" + type;
      case TypedExprKind::ConstantArray: return "constant_array[" + std::to_string(e.index) + "]:" + type;
      case TypedExprKind::Local: return function_.locals[static_cast<size_t>(e.local)].name;
      case TypedExprKind::Unary: {
        const char* op = e.unaryOp == UnaryOp::Neg ? "-" : e.unaryOp == UnaryOp::Pos ? "+" : e.unaryOp == UnaryOp::Invert ? "~" : "not ";
        return "(" + std::string(op) + operand(0) + "):" + type;
      }
      case TypedExprKind::Binary:
        return "(" + operand(0) + " " + binaryName(e.binaryOp) + " " + operand(1) + ")" +
               (e.checked ? " checked" : "") + ":" + type;
      case TypedExprKind::CompareChain: {
        std::string text = "(" + operand(0);
        for (size_t i = 0; i < e.compareOps.size(); ++i) {
          // A link that converts its operands says to what (they are of its type otherwise).
          const types::Type* in = e.compareTypes[i];
          bool converts = e.operands[i]->type != in || e.operands[i + 1]->type != in;
          text += std::string(" ") + compareName(e.compareOps[i]) + (converts ? ":" + types::toString(in) : "") + " " +
                  operand(i + 1);
        }
        return text + ")";
      }
      case TypedExprKind::And: return "(" + operand(0) + " and " + operand(1) + "):" + type;
      case TypedExprKind::Or: return "(" + operand(0) + " or " + operand(1) + "):" + type;
      case TypedExprKind::Truth: return "truth(" + operand(0) + ")";
      case TypedExprKind::Conditional: return "(" + operand(1) + " if " + operand(0) + " else " + operand(2) + "):" + type;
      case TypedExprKind::Cast: return type + "(" + operand(0) + ")";
      case TypedExprKind::Call:
      case TypedExprKind::BuiltinCall: {
        std::string text = e.kind == TypedExprKind::Call ? "call#" + std::to_string(e.callee)
                                                         : std::string(kBuiltinNames[static_cast<size_t>(e.builtin)]);
        text += "(";
        for (size_t i = 0; i < e.operands.size(); ++i) text += (i ? ", " : "") + operand(i);
        return text + "):" + type;
      }
      case TypedExprKind::ArrayElement:
      case TypedExprKind::InlineElement: {
        std::string text = operand(0) + "[";
        for (size_t i = 1; i < e.operands.size(); ++i) {
          text += (i > 1 ? ", " : "") + operand(i);
          if (e.wrapNegative[i - 1]) text += " wrap";
        }
        return text + "]:" + type;
      }
      case TypedExprKind::ArrayShape: return operand(0) + ".shape[" + std::to_string(e.index) + "]";
      case TypedExprKind::ArrayStride: return operand(0) + ".strides[" + std::to_string(e.index) + "]";
      case TypedExprKind::ArraySize: return operand(0) + ".size";
      case TypedExprKind::TupleMake: {
        std::string text = "(";
        for (size_t i = 0; i < e.operands.size(); ++i) text += (i ? ", " : "") + operand(i);
        return text + ")";
      }
      case TypedExprKind::TupleGet: return operand(0) + "[" + std::to_string(e.index) + "]";
      case TypedExprKind::MapInput: return "$" + std::to_string(e.index);
      case TypedExprKind::TileMap:
      case TypedExprKind::TileCall: {
        std::string text = e.kind == TypedExprKind::TileMap
                               ? "map(" + operand(0)
                               : "ct." + std::string(kTileOpNames[static_cast<size_t>(e.tileOp)]) + "(";
        for (size_t i = e.kind == TypedExprKind::TileMap ? 1 : 0; i < e.operands.size(); ++i)
          text += (i ? ", " : "") + operand(i);
        for (int64_t n : e.ints) text += ", " + std::to_string(n);
        return text + "):" + type;
      }
      case TypedExprKind::VectorMake: {
        std::string text = type + "(";
        for (size_t i = 0; i < e.operands.size(); ++i) text += (i ? ", " : "") + operand(i);
        return text + ")";
      }
      case TypedExprKind::VectorElement:
        return operand(0) + "[" + (e.operands.size() > 1 ? operand(1) : std::to_string(e.index)) + "]";
      case TypedExprKind::ArraySlice: {
        std::string text = operand(0) + "[";
        size_t next = 1;
        for (size_t i = 0; i < e.axes.size(); ++i) {
          const ArrayAxis& axis = e.axes[i];
          text += i ? ", " : "";
          if (axis.isIndex) {
            text += operand(next++) + (axis.wrap ? " wrap" : "");
            continue;
          }
          if (axis.hasStart) text += operand(next++);
          text += ":";
          if (axis.hasStop) text += operand(next++);
          text += ":" + operand(next++);
        }
        return text + "]" + (e.checked ? " checked" : "") + ":" + type;
      }
      case TypedExprKind::ArrayView:
        return operand(0) + ".view()" + (e.checked ? " checked" : "") + ":" + type;
      case TypedExprKind::ArrayPart: return operand(0) + (e.index == 0 ? ".real" : ".imag") + ":" + type;
      case TypedExprKind::ArrayReshape: {
        std::string text = operand(0) + ".reshape(";
        for (size_t i = 1; i < e.operands.size(); ++i) text += (i > 1 ? ", " : "") + operand(i);
        return text + ")" + (e.checked ? " checked" : "") + ":" + type;
      }
    }
    return "?";
  }

  void stmts(const std::vector<TypedStmt*>& body, int depth, std::string& out) {
    std::string indent(static_cast<size_t>(depth) * 2, ' ');
    for (const TypedStmt* s : body) {
      out += indent;
      switch (s->kind) {
        case TypedStmtKind::Assign: out += local(s->local) + " = " + expr(*s->operands[0]) + "\n"; break;
        case TypedStmtKind::Store: out += expr(*s->operands[0]) + " = " + expr(*s->operands[1]) + "\n"; break;
        case TypedStmtKind::Evaluate: out += expr(*s->operands[0]) + "\n"; break;
        case TypedStmtKind::If:
        case TypedStmtKind::While:
          out += !s->targetCondition.empty() ? "if #(" + s->targetCondition + "):\n"
                 : std::string(s->kind == TypedStmtKind::If ? "if " : "while ") + expr(*s->operands[0]) + ":\n";
          stmts(s->body, depth + 1, out);
          if (!s->orelse.empty()) {
            out += indent + "else:\n";
            stmts(s->orelse, depth + 1, out);
          }
          break;
        case TypedStmtKind::ForRange:
          out += "for " + local(s->local) + " in range(" + expr(*s->operands[0]) + ", " + expr(*s->operands[1]) + ", " +
                 expr(*s->operands[2]) + ") step " + std::to_string(s->stepSign) + ":\n";
          stmts(s->body, depth + 1, out);
          if (!s->orelse.empty()) {
            out += indent + "else:\n";
            stmts(s->orelse, depth + 1, out);
          }
          break;
        case TypedStmtKind::Break: out += "break\n"; break;
        case TypedStmtKind::Continue: out += "continue\n"; break;
        case TypedStmtKind::Return: out += "return" + (s->operands.empty() ? std::string() : " " + expr(*s->operands[0])) + "\n"; break;
        case TypedStmtKind::DeclareArray: {
          out += local(s->local) + " = array(";
          for (size_t i = 0; i < s->shape.size(); ++i) out += (i ? ", " : "") + std::to_string(s->shape[i]);
          out += ")\n";
          break;
        }
      }
    }
  }

 private:
  std::string local(int index) { return function_.locals[static_cast<size_t>(index)].name; }
  const TypedFunction& function_;
};

}  // namespace

std::string dumpTypedExpr(const TypedFunction& function, const TypedExpr& e) { return Printer(function).expr(e); }

std::string dumpTypedProgram(const TypedProgram& program) {
  std::string out;
  for (size_t f = 0; f < program.functions.size(); ++f) {
    const TypedFunction& function = program.functions[f];
    Printer printer(function);
    out += "function #" + std::to_string(f) + " " + function.name + (function.isKernel ? " (kernel)" : "") +
           (function.interop ? " (interop)" : function.hostCallable ? " (host and device)" : "") + "(";
    for (size_t i = 0; i < function.params.size(); ++i) {
      const Local& param = function.locals[static_cast<size_t>(function.params[i])];
      out += (i ? ", " : "") + param.name + ": " + types::toString(param.type);
    }
    out += ") -> " + types::toString(function.returnType) + "\n";
    for (const Local& local : function.locals) {
      out += "  local " + local.name + ": " +
             (local.type != nullptr ? types::toString(local.type) : "no storage") + "\n";
    }
    printer.stmts(function.body, 1, out);
  }
  return out;
}

}  // namespace weft::sema
