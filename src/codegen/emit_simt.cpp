// SIMT builtins: each maps to its helper (builtin_kinds.def) of include/weft/device/simt.h
// (collectives, bit intrinsics, dynamic shared memory), atomics.h (AtomicRef operations,
// threadfence) or print.h; and the #includes of the headers a unit's builtins need.
#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using sema::Builtin;
using sema::TypedExpr;
using types::ScalarKind;

namespace {

// `name(operands...)` with the codes of the operands.
std::string callOf(const std::string& name, const std::vector<std::string>& codes) {
  std::string out = name + "(";
  for (size_t i = 0; i < codes.size(); ++i) out += (i ? ", " : "") + codes[i];
  return out + ")";
}

// The memory order and scope template arguments sema encoded in `index`.
std::string orderAndScope(const TypedExpr& e) {
  return std::to_string(e.index / 4) + ", " + std::to_string(e.index % 4);
}

// A C string literal of `text` (printf formats: control characters as octal escapes).
std::string cString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      const char digits[] = {'\\', static_cast<char>('0' + (byte >> 6)),
                             static_cast<char>('0' + ((byte >> 3) & 7)), static_cast<char>('0' + (byte & 7)),
                             0};
      out += digits;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

void CudaEmitter::useHeader(sema::BuiltinHeader header) { headers_.insert(header); }

std::string CudaEmitter::builtinHeaders() const {
  std::string out;
  for (sema::BuiltinHeader header : headers_) {
    switch (header) {
      case sema::BuiltinHeader::Runtime: break;  // weft/device/runtime.h: every unit includes it
      case sema::BuiltinHeader::Math: out += "#include <weft/device/math.h>\n"; break;
      case sema::BuiltinHeader::Simt: out += "#include <weft/device/simt.h>\n"; break;
      case sema::BuiltinHeader::Atomics: out += "#include <weft/device/atomics.h>\n"; break;
      case sema::BuiltinHeader::Print: out += "#include <weft/device/print.h>\n"; break;
    }
  }
  // Where dynamic shared memory starts on the CPU target: after the static shared arrays.
  if (usesDynamicShared_)
    out += "#define WEFT_STATIC_SHARED_BYTES " + std::to_string((sharedBytes_ + 15) / 16 * 16) + "ull\n";
  return out;
}

std::string CudaEmitter::simtCall(const TypedExpr& e) {
  const sema::BuiltinInfo& info = sema::builtinInfo(e.builtin);
  std::string helper(info.helper);
  // Ordered helpers take the memory order and scope as template arguments.
  if (info.has(sema::builtin_property::Ordered)) helper += "<" + orderAndScope(e) + ">";
  // Operands in Python's order, then the helper applied to them.
  auto call = [&](const std::string& name) {
    return sequenced(e.operands, typeName(e.type),
                     [&](const std::vector<std::string>& codes) { return callOf(name, codes); });
  };
  if (e.builtin == Builtin::Print) return printCall(e);
  if (e.builtin == Builtin::DynamicSharedArray) {
    usesDynamicShared_ = true;
    return helper + "(WEFT_STATIC_SHARED_BYTES)";
  }
  if (e.builtin == Builtin::Threadfence) return helper + "()";
  if (e.builtin == Builtin::ActiveMask) {
    // The call site tells the CPU target's lanes at different activemask calls apart.
    uint64_t site = uint64_t{e.loc.file} << 40 | uint64_t{e.loc.line} << 16 | e.loc.column;
    return helper + "(" + std::to_string(site) + "ull)";
  }
  if (e.builtin == Builtin::MatchAllSync) return call(helper + "<" + typeName(e.type) + ">");
  WEFT_CHECK(!helper.empty(), "simtCall of a builtin without a helper");
  return call(helper);
}

// print(): each value once, left to right, into a temporary; then one printf whose arguments
// follow the format sema built: bool %s, signed %lld, unsigned %llu, complex (%g%+gj), real
// %g%s (the suffix ".0" for integral values, as Python shows floats).
std::string CudaEmitter::printCall(const TypedExpr& e) {
  std::string body = "[&]() -> void { ";
  std::vector<std::string> arguments{cString(e.text)};
  for (const TypedExpr* operand : e.operands) {
    WEFT_CHECK(operand->type->isScalar(), "print() of a value that is not a number");
    ScalarKind kind = operand->type->scalar;
    std::string temp = freshTemp();
    std::string code = expr(*operand);
    if (types::isBool(kind)) {
      body += "bool " + temp + " = " + code + "; ";
      arguments.push_back(temp + " ? \"True\" : \"False\"");
    } else if (types::isSigned(kind)) {
      body += "long long " + temp + " = " + code + "; ";
      arguments.push_back(temp);
    } else if (types::isUnsigned(kind)) {
      body += "unsigned long long " + temp + " = " + code + "; ";
      arguments.push_back(temp);
    } else if (types::isComplex(kind)) {
      body += typeName(operand->type) + " " + temp + " = " + code + "; ";
      arguments.push_back("static_cast<double>(" + temp + ".re)");
      arguments.push_back("static_cast<double>(" + temp + ".im)");
    } else {
      body += "double " + temp + " = " +
              (kind == ScalarKind::Float64 ? code : "weft::cast<double>(" + code + ")") + "; ";
      arguments.push_back(temp);
      arguments.push_back("weft::float_suffix(" + temp + ")");
    }
  }
  return body + callOf(std::string(sema::builtinInfo(e.builtin).helper), arguments) + "; }()";
}

}  // namespace weft::codegen
