// SIMT builtins: each maps to one helper of include/weft/device/simt.h (collectives, bit
// intrinsics, dynamic shared memory), atomics.h (AtomicRef operations, threadfence) or
// print.h, and records which of those headers the unit must include.
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

enum class Header : uint8_t { Simt, Atomics };

// Builtins that are one helper call on their operands; `ordered` helpers take the memory
// order and scope as template arguments.
struct SimtHelper {
  Builtin builtin;
  const char* name;
  Header header;
  bool ordered;
};

constexpr SimtHelper kHelpers[] = {
    {Builtin::SyncthreadsCount, "weft::syncthreads_count", Header::Simt, false},
    {Builtin::SyncthreadsAnd, "weft::syncthreads_and", Header::Simt, false},
    {Builtin::SyncthreadsOr, "weft::syncthreads_or", Header::Simt, false},
    {Builtin::LanemaskLt, "weft::lanemask_lt", Header::Simt, false},
    {Builtin::Syncwarp, "weft::syncwarp", Header::Simt, false},
    {Builtin::AllSync, "weft::all_sync", Header::Simt, false},
    {Builtin::AnySync, "weft::any_sync", Header::Simt, false},
    {Builtin::EqSync, "weft::eq_sync", Header::Simt, false},
    {Builtin::BallotSync, "weft::ballot_sync", Header::Simt, false},
    {Builtin::ShflSync, "weft::shuffle<weft::Shuffle::Index>", Header::Simt, false},
    {Builtin::ShflUpSync, "weft::shuffle<weft::Shuffle::Up>", Header::Simt, false},
    {Builtin::ShflDownSync, "weft::shuffle<weft::Shuffle::Down>", Header::Simt, false},
    {Builtin::ShflXorSync, "weft::shuffle<weft::Shuffle::Xor>", Header::Simt, false},
    {Builtin::MatchAnySync, "weft::match_any_sync", Header::Simt, false},
    {Builtin::LaneBit, "weft::lane_bit", Header::Simt, false},
    {Builtin::WithLaneBit, "weft::with_lane_bit", Header::Simt, false},
    {Builtin::Popc, "weft::popc", Header::Simt, false},
    {Builtin::Brev, "weft::brev", Header::Simt, false},
    {Builtin::Clz, "weft::clz", Header::Simt, false},
    {Builtin::Ffs, "weft::ffs", Header::Simt, false},
    {Builtin::AtomicRefOf, "weft::atomic_ref_of", Header::Atomics, false},
    {Builtin::AtomicLoad, "weft::atomic_load", Header::Atomics, true},
    {Builtin::AtomicStore, "weft::atomic_store", Header::Atomics, true},
    {Builtin::AtomicExch, "weft::atomic_exch", Header::Atomics, true},
    {Builtin::AtomicCas, "weft::atomic_cas", Header::Atomics, true},
    {Builtin::AtomicAdd, "weft::atomic_add", Header::Atomics, true},
    {Builtin::AtomicSub, "weft::atomic_sub", Header::Atomics, true},
    {Builtin::AtomicAnd, "weft::atomic_and_", Header::Atomics, true},
    {Builtin::AtomicOr, "weft::atomic_or_", Header::Atomics, true},
    {Builtin::AtomicXor, "weft::atomic_xor", Header::Atomics, true},
    {Builtin::AtomicMax, "weft::atomic_max", Header::Atomics, true},
    {Builtin::AtomicNanmax, "weft::atomic_nanmax", Header::Atomics, true},
    {Builtin::AtomicMin, "weft::atomic_min", Header::Atomics, true},
    {Builtin::AtomicNanmin, "weft::atomic_nanmin", Header::Atomics, true},
    {Builtin::AtomicWait, "weft::atomic_wait", Header::Atomics, true},
    {Builtin::AtomicNotify, "weft::atomic_notify", Header::Atomics, false},
};

}  // namespace

std::string CudaEmitter::simtHeaders() const {
  std::string out;
  if (usesSimt_) out += "#include <weft/device/simt.h>\n";
  if (usesAtomics_) out += "#include <weft/device/atomics.h>\n";
  if (usesPrint_) out += "#include <weft/device/print.h>\n";
  // Where dynamic shared memory starts on the CPU target: after the static shared arrays.
  if (usesDynamicShared_)
    out += "#define WEFT_STATIC_SHARED_BYTES " + std::to_string((sharedBytes_ + 15) / 16 * 16) + "ull\n";
  return out;
}

std::string CudaEmitter::simtCall(const TypedExpr& e) {
  // Operands in Python's order, then the helper applied to them.
  auto helper = [&](const std::string& name) {
    return sequenced(e.operands, typeName(e.type),
                     [&](const std::vector<std::string>& codes) { return callOf(name, codes); });
  };
  if (e.builtin == Builtin::Print) return printCall(e);
  if (e.builtin == Builtin::DynamicSharedArray) {
    usesSimt_ = usesDynamicShared_ = true;
    return "weft::dynamic_shared_array(WEFT_STATIC_SHARED_BYTES)";
  }
  if (e.builtin == Builtin::Threadfence) {
    usesAtomics_ = true;
    return "weft::threadfence<" + orderAndScope(e) + ">()";
  }
  if (e.builtin == Builtin::ActiveMask) {
    // The call site tells the CPU target's lanes at different activemask calls apart.
    usesSimt_ = true;
    uint64_t site = uint64_t{e.loc.file} << 40 | uint64_t{e.loc.line} << 16 | e.loc.column;
    return "weft::activemask(" + std::to_string(site) + "ull)";
  }
  if (e.builtin == Builtin::MatchAllSync) {
    usesSimt_ = true;
    return helper("weft::match_all<" + typeName(e.type) + ">");
  }
  for (const SimtHelper& entry : kHelpers) {
    if (entry.builtin != e.builtin) continue;
    (entry.header == Header::Simt ? usesSimt_ : usesAtomics_) = true;
    return helper(std::string(entry.name) + (entry.ordered ? "<" + orderAndScope(e) + ">" : ""));
  }
  WEFT_CHECK(false, "simtCall of a builtin it does not handle");
  return {};
}

// print(): each value once, left to right, into a temporary; then one printf whose arguments
// follow the format sema built: bool %s, signed %lld, unsigned %llu, complex (%g%+gj), real
// %g%s (the suffix ".0" for integral values, as Python shows floats).
std::string CudaEmitter::printCall(const TypedExpr& e) {
  usesPrint_ = true;
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
  return body + callOf("weft::print", arguments) + "; }()";
}

}  // namespace weft::codegen
