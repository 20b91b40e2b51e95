// The Python AST, node for node and field for field as CPython 3.11's `ast` module (so that
// `ast_dump` can print it exactly as `ast.dump` does). Nodes are owned by their Module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/source.h"

namespace weft::syntax {

enum class StmtKind : uint8_t {
#define WEFT_AST_STMT(Name) Name,
#include "syntax/ast_kinds.def"
};
enum class ExprKind : uint8_t {
#define WEFT_AST_EXPR(Name) Name,
#include "syntax/ast_kinds.def"
};

enum class ExprContext : uint8_t { Load, Store, Del };
enum class BoolOperator : uint8_t { And, Or };
enum class Operator : uint8_t { Add, Sub, Mult, MatMult, Div, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, FloorDiv };
enum class UnaryOperator : uint8_t { Invert, Not, UAdd, USub };
enum class CmpOperator : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

// Base of all nodes; `loc` is the node's start (lineno, col_offset) and its length on that line.
struct Node {
  SourceLoc loc;
  uint32_t endLine = 0;    // end_lineno
  uint32_t endColumn = 0;  // end_col_offset
  virtual ~Node() = default;
};

struct Expr : Node {
  explicit Expr(ExprKind k) : kind(k) {}
  const ExprKind kind;
};
struct Stmt : Node {
  explicit Stmt(StmtKind k) : kind(k) {}
  const StmtKind kind;
};

// The value of a Constant node.
struct ConstantValue {
  enum class Kind : uint8_t { None, Bool, Ellipsis, Int, Float, Complex, Str, Bytes } kind = Kind::None;
  bool boolValue = false;
  // Int: exact decimal digits with an optional leading '-' (Python ints are unbounded);
  // `fitsInt64` says whether `intValue` holds it.
  std::string intDigits;
  int64_t intValue = 0;
  bool fitsInt64 = true;
  double floatValue = 0;  // Float; Complex: the imaginary part (the real part is 0)
  std::string bytes;      // Str: UTF-8 text; Bytes: raw bytes
};

struct Arg : Node {
  std::string arg;
  Expr* annotation = nullptr;
  std::string typeComment;
  bool hasTypeComment = false;
};
struct Arguments : Node {
  std::vector<Arg*> posonlyargs, args;
  Arg* vararg = nullptr;
  std::vector<Arg*> kwonlyargs;
  std::vector<Expr*> kwDefaults;  // entries may be nullptr (no default)
  Arg* kwarg = nullptr;
  std::vector<Expr*> defaults;
};
struct Keyword : Node {
  std::string arg;  // empty with hasArg == false for `**value`
  bool hasArg = true;
  Expr* value = nullptr;
};
struct Alias : Node {
  std::string name;
  std::string asname;
  bool hasAsname = false;
};
struct WithItem : Node {
  Expr* contextExpr = nullptr;
  Expr* optionalVars = nullptr;
};
struct Comprehension : Node {
  Expr* target = nullptr;
  Expr* iter = nullptr;
  std::vector<Expr*> ifs;
  bool isAsync = false;
};
struct ExceptHandler : Node {
  Expr* type = nullptr;
  std::string name;
  bool hasName = false;
  std::vector<Stmt*> body;
};

// ---- statements ----
struct FunctionDefStmt : Stmt {
  explicit FunctionDefStmt(StmtKind k = StmtKind::FunctionDef) : Stmt(k) {}
  std::string name;
  Arguments* args = nullptr;
  std::vector<Stmt*> body;
  std::vector<Expr*> decoratorList;
  Expr* returns = nullptr;
  std::string typeComment;
  bool hasTypeComment = false;
};
struct AsyncFunctionDefStmt : FunctionDefStmt {
  AsyncFunctionDefStmt() : FunctionDefStmt(StmtKind::AsyncFunctionDef) {}
};
struct ClassDefStmt : Stmt {
  ClassDefStmt() : Stmt(StmtKind::ClassDef) {}
  std::string name;
  std::vector<Expr*> bases;
  std::vector<Keyword*> keywords;
  std::vector<Stmt*> body;
  std::vector<Expr*> decoratorList;
};
struct ReturnStmt : Stmt {
  ReturnStmt() : Stmt(StmtKind::Return) {}
  Expr* value = nullptr;
};
struct DeleteStmt : Stmt {
  DeleteStmt() : Stmt(StmtKind::Delete) {}
  std::vector<Expr*> targets;
};
struct AssignStmt : Stmt {
  AssignStmt() : Stmt(StmtKind::Assign) {}
  std::vector<Expr*> targets;
  Expr* value = nullptr;
  std::string typeComment;
  bool hasTypeComment = false;
};
struct AugAssignStmt : Stmt {
  AugAssignStmt() : Stmt(StmtKind::AugAssign) {}
  Expr* target = nullptr;
  Operator op = Operator::Add;
  Expr* value = nullptr;
};
struct AnnAssignStmt : Stmt {
  AnnAssignStmt() : Stmt(StmtKind::AnnAssign) {}
  Expr* target = nullptr;
  Expr* annotation = nullptr;
  Expr* value = nullptr;
  bool simple = false;
};
struct ForStmt : Stmt {
  explicit ForStmt(StmtKind k = StmtKind::For) : Stmt(k) {}
  Expr* target = nullptr;
  Expr* iter = nullptr;
  std::vector<Stmt*> body, orelse;
  std::string typeComment;
  bool hasTypeComment = false;
};
struct AsyncForStmt : ForStmt {
  AsyncForStmt() : ForStmt(StmtKind::AsyncFor) {}
};
struct WhileStmt : Stmt {
  WhileStmt() : Stmt(StmtKind::While) {}
  Expr* test = nullptr;
  std::vector<Stmt*> body, orelse;
};
struct IfStmt : Stmt {
  IfStmt() : Stmt(StmtKind::If) {}
  Expr* test = nullptr;
  std::vector<Stmt*> body, orelse;
};
struct WithStmt : Stmt {
  explicit WithStmt(StmtKind k = StmtKind::With) : Stmt(k) {}
  std::vector<WithItem*> items;
  std::vector<Stmt*> body;
  std::string typeComment;
  bool hasTypeComment = false;
};
struct AsyncWithStmt : WithStmt {
  AsyncWithStmt() : WithStmt(StmtKind::AsyncWith) {}
};
struct RaiseStmt : Stmt {
  RaiseStmt() : Stmt(StmtKind::Raise) {}
  Expr* exc = nullptr;
  Expr* cause = nullptr;
};
struct TryStmt : Stmt {
  explicit TryStmt(StmtKind k = StmtKind::Try) : Stmt(k) {}
  std::vector<Stmt*> body;
  std::vector<ExceptHandler*> handlers;
  std::vector<Stmt*> orelse, finalbody;
};
struct TryStarStmt : TryStmt {
  TryStarStmt() : TryStmt(StmtKind::TryStar) {}
};
struct AssertStmt : Stmt {
  AssertStmt() : Stmt(StmtKind::Assert) {}
  Expr* test = nullptr;
  Expr* msg = nullptr;
};
struct ImportStmt : Stmt {
  ImportStmt() : Stmt(StmtKind::Import) {}
  std::vector<Alias*> names;
};
struct ImportFromStmt : Stmt {
  ImportFromStmt() : Stmt(StmtKind::ImportFrom) {}
  std::string module;
  bool hasModule = false;
  std::vector<Alias*> names;
  int level = 0;
};
struct GlobalStmt : Stmt {
  GlobalStmt() : Stmt(StmtKind::Global) {}
  std::vector<std::string> names;
};
struct NonlocalStmt : Stmt {
  NonlocalStmt() : Stmt(StmtKind::Nonlocal) {}
  std::vector<std::string> names;
};
struct ExprStmt : Stmt {
  ExprStmt() : Stmt(StmtKind::Expr) {}
  Expr* value = nullptr;
};
struct PassStmt : Stmt {
  PassStmt() : Stmt(StmtKind::Pass) {}
};
struct BreakStmt : Stmt {
  BreakStmt() : Stmt(StmtKind::Break) {}
};
struct ContinueStmt : Stmt {
  ContinueStmt() : Stmt(StmtKind::Continue) {}
};

// ---- expressions ----
struct BoolOpExpr : Expr {
  BoolOpExpr() : Expr(ExprKind::BoolOp) {}
  BoolOperator op = BoolOperator::And;
  std::vector<Expr*> values;
};
struct NamedExprExpr : Expr {
  NamedExprExpr() : Expr(ExprKind::NamedExpr) {}
  Expr* target = nullptr;
  Expr* value = nullptr;
};
struct BinOpExpr : Expr {
  BinOpExpr() : Expr(ExprKind::BinOp) {}
  Expr* left = nullptr;
  Operator op = Operator::Add;
  Expr* right = nullptr;
};
struct UnaryOpExpr : Expr {
  UnaryOpExpr() : Expr(ExprKind::UnaryOp) {}
  UnaryOperator op = UnaryOperator::USub;
  Expr* operand = nullptr;
};
struct LambdaExpr : Expr {
  LambdaExpr() : Expr(ExprKind::Lambda) {}
  Arguments* args = nullptr;
  Expr* body = nullptr;
};
struct IfExpExpr : Expr {
  IfExpExpr() : Expr(ExprKind::IfExp) {}
  Expr* test = nullptr;
  Expr* body = nullptr;
  Expr* orelse = nullptr;
};
struct DictExpr : Expr {
  DictExpr() : Expr(ExprKind::Dict) {}
  std::vector<Expr*> keys;  // nullptr for `**value`
  std::vector<Expr*> values;
};
struct SetExpr : Expr {
  SetExpr() : Expr(ExprKind::Set) {}
  std::vector<Expr*> elts;
};
struct ListCompExpr : Expr {
  explicit ListCompExpr(ExprKind k = ExprKind::ListComp) : Expr(k) {}
  Expr* elt = nullptr;
  std::vector<Comprehension*> generators;
};
struct SetCompExpr : ListCompExpr {
  SetCompExpr() : ListCompExpr(ExprKind::SetComp) {}
};
struct GeneratorExpExpr : ListCompExpr {
  GeneratorExpExpr() : ListCompExpr(ExprKind::GeneratorExp) {}
};
struct DictCompExpr : Expr {
  DictCompExpr() : Expr(ExprKind::DictComp) {}
  Expr* key = nullptr;
  Expr* value = nullptr;
  std::vector<Comprehension*> generators;
};
struct AwaitExpr : Expr {
  AwaitExpr() : Expr(ExprKind::Await) {}
  Expr* value = nullptr;
};
struct YieldExpr : Expr {
  YieldExpr() : Expr(ExprKind::Yield) {}
  Expr* value = nullptr;
};
struct YieldFromExpr : Expr {
  YieldFromExpr() : Expr(ExprKind::YieldFrom) {}
  Expr* value = nullptr;
};
struct CompareExpr : Expr {
  CompareExpr() : Expr(ExprKind::Compare) {}
  Expr* left = nullptr;
  std::vector<CmpOperator> ops;
  std::vector<Expr*> comparators;
};
struct CallExpr : Expr {
  CallExpr() : Expr(ExprKind::Call) {}
  Expr* func = nullptr;
  std::vector<Expr*> args;
  std::vector<Keyword*> keywords;
};
struct FormattedValueExpr : Expr {
  FormattedValueExpr() : Expr(ExprKind::FormattedValue) {}
  Expr* value = nullptr;
  int conversion = -1;
  Expr* formatSpec = nullptr;
};
struct JoinedStrExpr : Expr {
  JoinedStrExpr() : Expr(ExprKind::JoinedStr) {}
  std::vector<Expr*> values;
};
struct ConstantExpr : Expr {
  ConstantExpr() : Expr(ExprKind::Constant) {}
  ConstantValue value;
  bool kindU = false;  // the `kind='u'` of a u"..." string
};
struct AttributeExpr : Expr {
  AttributeExpr() : Expr(ExprKind::Attribute) {}
  Expr* value = nullptr;
  std::string attr;
  ExprContext ctx = ExprContext::Load;
};
struct SubscriptExpr : Expr {
  SubscriptExpr() : Expr(ExprKind::Subscript) {}
  Expr* value = nullptr;
  Expr* slice = nullptr;
  ExprContext ctx = ExprContext::Load;
};
struct StarredExpr : Expr {
  StarredExpr() : Expr(ExprKind::Starred) {}
  Expr* value = nullptr;
  ExprContext ctx = ExprContext::Load;
};
struct NameExpr : Expr {
  NameExpr() : Expr(ExprKind::Name) {}
  std::string id;
  ExprContext ctx = ExprContext::Load;
};
struct ListExpr : Expr {
  explicit ListExpr(ExprKind k = ExprKind::List) : Expr(k) {}
  std::vector<Expr*> elts;
  ExprContext ctx = ExprContext::Load;
};
struct TupleExpr : ListExpr {
  TupleExpr() : ListExpr(ExprKind::Tuple) {}
};
struct SliceExpr : Expr {
  SliceExpr() : Expr(ExprKind::Slice) {}
  Expr* lower = nullptr;
  Expr* upper = nullptr;
  Expr* step = nullptr;
};

// A parsed file: its statements and the storage of every node.
struct Module {
  uint32_t file = 0;  // SourceManager id
  std::vector<Stmt*> body;
  std::vector<std::unique_ptr<Node>> nodes;

  // Allocates a node owned by this module.
  template <class T>
  T* make() {
    auto node = std::make_unique<T>();
    T* raw = node.get();
    nodes.push_back(std::move(node));
    return raw;
  }
};

// Checked downcasts by kind.
template <class T>
T& as(Expr& e) { return static_cast<T&>(e); }
template <class T>
const T& as(const Expr& e) { return static_cast<const T&>(e); }
template <class T>
T& as(Stmt& s) { return static_cast<T&>(s); }
template <class T>
const T& as(const Stmt& s) { return static_cast<const T&>(s); }

}  // namespace weft::syntax
