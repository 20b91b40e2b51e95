#include "python/front_end_records.h"

#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>

#include "support/hash.h"

namespace weft::python {

using sema::ConstValue;
using sema::GlobalValue;

namespace {

// Records are written by this build only (the key holds the build), so the format is plain:
// little-endian numbers and length-prefixed strings, read back with every length checked.
class Writer {
 public:
  void number(uint64_t value) { bytes.append(reinterpret_cast<const char*>(&value), sizeof value); }
  void text(std::string_view value) {
    number(value.size());
    bytes.append(value);
  }
  std::string bytes;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  uint64_t number() {
    uint64_t value = 0;
    if (bytes_.size() < sizeof value) {
      failed = true;
      return 0;
    }
    std::memcpy(&value, bytes_.data(), sizeof value);
    bytes_.remove_prefix(sizeof value);
    return value;
  }
  std::string text() {
    uint64_t size = number();
    if (failed || size > bytes_.size()) {
      failed = true;
      return {};
    }
    std::string value(bytes_.substr(0, size));
    bytes_.remove_prefix(size);
    return value;
  }
  bool done() const { return !failed && bytes_.empty(); }
  bool failed = false;

 private:
  std::string_view bytes_;
};

enum class TypeTag : uint8_t { None, Scalar, Array, Tuple, Vector };

// The types a parameter of a recordable kernel has: numbers, arrays of numbers, tuples and
// vectors of them. A struct (known by its class's identity in one process) is not recordable.
bool writeType(Writer& out, const types::Type* type) {
  switch (type->kind) {
    case types::TypeKind::None: out.number(static_cast<uint64_t>(TypeTag::None)); return true;
    case types::TypeKind::Scalar:
      out.number(static_cast<uint64_t>(TypeTag::Scalar));
      out.number(static_cast<uint64_t>(type->scalar));
      return true;
    case types::TypeKind::Array:
      if (type->element != nullptr) return false;
      out.number(static_cast<uint64_t>(TypeTag::Array));
      out.number(static_cast<uint64_t>(type->scalar));
      out.number(static_cast<uint64_t>(type->ndim));
      out.number(static_cast<uint64_t>(type->space));
      out.number(type->facts);
      return true;
    case types::TypeKind::Tuple:
      out.number(static_cast<uint64_t>(TypeTag::Tuple));
      out.number(type->elements.size());
      for (const types::Type* element : type->elements)
        if (!writeType(out, element)) return false;
      return true;
    case types::TypeKind::Vector:
      out.number(static_cast<uint64_t>(TypeTag::Vector));
      out.number(static_cast<uint64_t>(type->scalar));
      out.number(static_cast<uint64_t>(type->size));
      return true;
    default: return false;
  }
}

const types::Type* readType(Reader& in, types::TypeContext& types, int depth = 0) {
  auto scalar = [&] {
    uint64_t kind = in.number();
    if (kind >= types::kScalarKindCount) in.failed = true;
    return static_cast<types::ScalarKind>(in.failed ? 0 : kind);
  };
  if (depth > 64) in.failed = true;
  if (in.failed) return nullptr;
  switch (static_cast<TypeTag>(in.number())) {
    case TypeTag::None: return types.none();
    case TypeTag::Scalar: {
      types::ScalarKind kind = scalar();
      return in.failed ? nullptr : types.scalar(kind);
    }
    case TypeTag::Array: {
      types::ScalarKind kind = scalar();
      uint64_t ndim = in.number(), space = in.number(), facts = in.number();
      if (in.failed || ndim > 64 || space > static_cast<uint64_t>(types::MemorySpace::Constant)) return nullptr;
      const types::Type* array = types.array(kind, static_cast<int>(ndim), static_cast<types::MemorySpace>(space));
      return facts == 0 ? array : types.withFacts(array, static_cast<unsigned>(facts));
    }
    case TypeTag::Tuple: {
      uint64_t count = in.number();
      std::vector<const types::Type*> elements;
      for (uint64_t i = 0; i < count && !in.failed; ++i) elements.push_back(readType(in, types, depth + 1));
      return in.failed ? nullptr : types.tuple(elements);
    }
    case TypeTag::Vector: {
      types::ScalarKind kind = scalar();
      uint64_t size = in.number();
      return in.failed || size < 1 || size > 4 ? nullptr : types.vector(kind, static_cast<int>(size));
    }
  }
  in.failed = true;
  return nullptr;
}

// Whether `environment` resolves names as `kernel`'s own globals do: the same module dict, no
// captured variables (a fresh process finds them by the kernel's __globals__ alone).
bool kernelModule(const sema::Environment* environment, const sema::FunctionSource& kernel) {
  auto* python = dynamic_cast<const PythonEnvironment*>(environment);
  auto* own = dynamic_cast<const PythonEnvironment*>(kernel.globals.get());
  return python && own && python->globals() == own->globals() && !python->capturesVariables();
}

// What a lookup found, as a fresh process would find it again; nullopt when it cannot be
// compared across processes (a captured variable, a struct class, an array, another file's
// function, a function with captured variables...).
std::optional<std::string> describeFound(const GlobalValue& value, const sema::FunctionSource& kernel) {
  if (value.captured) return std::nullopt;
  std::string found(1, static_cast<char>('a' + static_cast<int>(value.kind)));
  switch (value.kind) {
    case GlobalValue::Kind::Undefined: return found;
    case GlobalValue::Kind::Constant: appendConstant(found, value.constant); return found;
    case GlobalValue::Kind::Module:
    case GlobalValue::Kind::Entity: return found + value.qualifiedName;
    case GlobalValue::Kind::Function: {
      const sema::FunctionSource& function = *value.function;
      // Another function of the kernel's file, as the kernel's text (in the key) defines it.
      if (function.file != kernel.file || !function.capturedLocals.empty() ||
          !kernelModule(function.globals.get(), kernel))
        return std::nullopt;
      Writer out;
      out.number(function.line);
      out.text(function.name);
      out.number(function.bodyLine);
      out.number(function.bodyColumn);
      out.number(static_cast<uint64_t>(function.decorator));
      out.number(function.interop);
      return found + out.bytes;
    }
    default: return std::nullopt;
  }
}

// Whether every lookup of `entries` finds the same in `kernel`'s globals now.
bool lookupsHold(Reader& in, const sema::FunctionSource& kernel) {
  uint64_t count = in.number();
  for (uint64_t i = 0; i < count && !in.failed; ++i) {
    std::string name = in.text(), expected = in.text();
    if (in.failed) return false;
    std::optional<std::string> found = describeFound(kernel.globals->lookup(name), kernel);
    if (!found || *found != expected) return false;
  }
  return !in.failed;
}

}  // namespace

void appendConstant(std::string& key, const ConstValue& value) {
  key.push_back(static_cast<char>('A' + static_cast<int>(value.kind)));
  auto appendBytes = [&](const void* data, size_t size) { key.append(static_cast<const char*>(data), size); };
  switch (value.kind) {
    case ConstValue::Kind::None: break;
    case ConstValue::Kind::Bool: key.push_back(value.boolValue ? '1' : '0'); break;
    case ConstValue::Kind::Int:
      appendBytes(&value.intValue, sizeof value.intValue);
      key.push_back(value.aboveInt64 ? '+' : '=');
      break;
    case ConstValue::Kind::Float: appendBytes(&value.floatValue, sizeof value.floatValue); break;
    case ConstValue::Kind::Complex:
      appendBytes(&value.floatValue, sizeof value.floatValue);
      appendBytes(&value.imagValue, sizeof value.imagValue);
      break;
    case ConstValue::Kind::Str: {
      uint64_t size = value.strValue.size();
      appendBytes(&size, sizeof size);
      key += value.strValue;
      break;
    }
    case ConstValue::Kind::Tuple: {
      uint64_t size = value.elements.size();
      appendBytes(&size, sizeof size);
      for (const ConstValue& element : value.elements) appendConstant(key, element);
      break;
    }
  }
}

namespace {

// The hash of a file's text, once per file: the kernels of a file of thousands of functions hash
// it once, not once each. Entries are checked against their file's weak pointer (an address can
// be reused by a later file) and dropped when their file is gone. Called with the front end's
// lock held (every caller of recordKey holds it).
std::string textHash(const std::shared_ptr<const SourceFile>& file) {
  static std::unordered_map<const SourceFile*, std::pair<std::weak_ptr<const SourceFile>, std::string>> hashes;
  if (auto found = hashes.find(file.get()); found != hashes.end() && found->second.first.lock() == file)
    return found->second.second;
  std::erase_if(hashes, [](const auto& entry) { return entry.second.first.expired(); });
  std::string hash = ContentHash().add(file->name()).add(file->text()).hex();
  hashes[file.get()] = {file, hash};
  return hash;
}

}  // namespace

std::string recordKey(const sema::FunctionSource& kernel, const std::string& buildIdentity, std::string_view what) {
  ContentHash hash;
  hash.add("weft front-end record").add(buildIdentity).add(textHash(kernel.file));
  hash.add(kernel.line).add(kernel.name).add(kernel.bodyLine).add(kernel.bodyColumn);
  hash.add(static_cast<uint64_t>(kernel.decorator)).add(static_cast<uint64_t>(kernel.face)).add(kernel.interop);
  hash.add(what);
  return "frontend-" + hash.hex();
}

std::optional<std::string> specializationSubject(const std::string& specializationKey,
                                                 const runtime::CompilerOptions& options,
                                                 const std::vector<const types::Type*>& declared) {
  Writer out;
  out.text(specializationKey);
  out.number(options.debug);
  out.number(options.fastMath);
  out.number(static_cast<uint64_t>(options.boundsCheck));
  out.number(static_cast<uint64_t>(options.pipelineStages));
  for (const types::Type* type : declared) {
    out.number(type != nullptr);
    if (type != nullptr && !writeType(out, type)) return std::nullopt;
  }
  return out.bytes;
}

LookupLog::LookupLog(const sema::FunctionSource& kernel) : kernel_(kernel) {}

void LookupLog::looked(const PythonEnvironment& environment, std::string_view name, const GlobalValue& value) {
  if (!repeatable_) return;
  std::optional<std::string> found = describeFound(value, kernel_);
  if (!found || !kernelModule(&environment, kernel_)) {
    repeatable_ = false;
    return;
  }
  Writer out;
  out.text(name);
  out.text(*found);
  entries_ += out.bytes;
  ++count_;
}

std::optional<std::string> LookupLog::entries() const {
  if (!repeatable_) return std::nullopt;
  Writer out;
  out.number(count_);
  return out.bytes + entries_;
}

std::optional<std::string> encodeDescription(const std::vector<sema::ParameterDescription>& parameters,
                                             const std::string& lookups) {
  Writer out;
  out.bytes = lookups;
  out.number(parameters.size());
  for (const sema::ParameterDescription& parameter : parameters) {
    out.text(parameter.name);
    out.number(static_cast<uint64_t>(parameter.kind));
    out.number(parameter.type != nullptr);
    if (parameter.type != nullptr && !writeType(out, parameter.type)) return std::nullopt;
  }
  return out.bytes;
}

std::optional<std::vector<sema::ParameterDescription>> decodeDescription(std::string_view record,
                                                                         const sema::FunctionSource& kernel,
                                                                         types::TypeContext& types) {
  Reader in(record);
  if (!lookupsHold(in, kernel)) return std::nullopt;
  std::vector<sema::ParameterDescription> parameters(in.number());
  for (sema::ParameterDescription& parameter : parameters) {
    parameter.name = in.text();
    uint64_t kind = in.number();
    if (kind > static_cast<uint64_t>(sema::ParameterDescription::Kind::ConstExpr)) return std::nullopt;
    parameter.kind = static_cast<sema::ParameterDescription::Kind>(kind);
    if (in.number() != 0) parameter.type = readType(in, types);
    if (in.failed) return std::nullopt;
  }
  if (!in.done()) return std::nullopt;
  return parameters;
}

// encodeFrontEnd and decodeFrontEnd write and read every field of a front-end result; a field
// added to these structs and left out of them would silently be missing from every warm launch
// (its default value instead of the front end's). Their sizes on the platform CI builds stand for
// the field lists: a new field fails here until it is recorded and the sizes are updated.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(runtime::FrontEndResult) == 440 && sizeof(codegen::EmittedUnit) == 184 &&
                  sizeof(codegen::EmittedUnit::TensorMap) == 64 && sizeof(codegen::EmittedUnit::CheckSite) == 136 &&
                  sizeof(codegen::EmittedUnit::Kernel) == 64,
              "a front-end result has a field the records do not keep: record it, then update these sizes");
#endif

std::optional<std::string> encodeFrontEnd(const runtime::FrontEndResult& result, const sema::FunctionSource& kernel,
                                          const std::string& lookups) {
  if (!result.ok || !result.diagnostics.diagnostics.empty() || !result.internalError.empty()) return std::nullopt;
  Writer out;
  out.bytes = lookups;
  const codegen::EmittedUnit& unit = result.unit;
  out.text(unit.source);
  out.text(unit.kernelSymbol);
  out.text(unit.hostEntrySymbol);
  out.number(unit.kernels.size());
  for (const codegen::EmittedUnit::Kernel& kernelSymbol : unit.kernels) {
    out.text(kernelSymbol.pythonName);
    out.text(kernelSymbol.symbol);
  }
  out.number(unit.hostSharedBytes);
  out.number(unit.checkSites.size());
  for (const codegen::EmittedUnit::CheckSite& site : unit.checkSites) {
    out.text(site.file);
    out.number(site.line);
    out.text(site.function);
    out.text(site.source);
    out.text(site.message);
  }
  out.number(unit.hasInteropAbiCheck);
  out.number(static_cast<uint64_t>(unit.features));
  out.number(unit.tensorMaps.size());
  for (const codegen::EmittedUnit::TensorMap& map : unit.tensorMaps) {
    out.number(static_cast<uint64_t>(map.parameter));
    for (const std::vector<uint32_t>* extents : {&map.box, &map.elementStrides}) {
      out.number(extents->size());
      for (uint32_t extent : *extents) out.number(extent);
    }
    for (uint8_t field : {map.interleave, map.swizzle, map.l2Promotion, map.oobFill}) out.number(field);
  }
  out.text(result.kernelName);
  out.number(result.parameterTypes.size());
  for (const types::Type* type : result.parameterTypes)
    if (!writeType(out, type)) return std::nullopt;
  out.number(result.parameterNames.size());
  for (const std::string& name : result.parameterNames) out.text(name);
  out.number(result.argumentToParam.size());
  for (int param : result.argumentToParam) out.number(static_cast<uint64_t>(static_cast<int64_t>(param)));
  // A dependency is a constant of the kernel's globals, whose value the lookups hold: the record
  // keeps its name, and a process that uses the record reads the value it found.
  out.number(result.globals.size());
  for (const sema::GlobalDependency& dependency : result.globals) {
    if (dependency.byIdentity || !kernelModule(dependency.environment.get(), kernel)) return std::nullopt;
    out.text(dependency.name);
  }
  out.number(result.localArrayBytes);
  out.number(static_cast<uint64_t>(result.tileThreads));
  out.number(result.tileSharedBytes);
  return out.bytes;
}

std::optional<runtime::FrontEndResult> decodeFrontEnd(std::string_view record, const sema::FunctionSource& kernel,
                                                      types::TypeContext& types) {
  Reader in(record);
  if (!lookupsHold(in, kernel)) return std::nullopt;
  runtime::FrontEndResult result;
  codegen::EmittedUnit& unit = result.unit;
  unit.source = in.text();
  unit.kernelSymbol = in.text();
  unit.hostEntrySymbol = in.text();
  auto count = [&](uint64_t limit) {
    uint64_t value = in.number();
    if (value > limit) in.failed = true;
    return in.failed ? 0 : value;
  };
  unit.kernels.resize(count(record.size()));
  for (codegen::EmittedUnit::Kernel& kernelSymbol : unit.kernels) {
    kernelSymbol.pythonName = in.text();
    kernelSymbol.symbol = in.text();
  }
  unit.hostSharedBytes = in.number();
  unit.checkSites.resize(count(record.size()));
  for (codegen::EmittedUnit::CheckSite& site : unit.checkSites) {
    site.file = in.text();
    site.line = static_cast<uint32_t>(in.number());
    site.function = in.text();
    site.source = in.text();
    site.message = in.text();
  }
  unit.hasInteropAbiCheck = in.number() != 0;
  unit.features = static_cast<sema::FeatureSet>(count(static_cast<uint64_t>(sema::FeatureSet::Specific)));
  unit.tensorMaps.resize(count(record.size()));
  for (codegen::EmittedUnit::TensorMap& map : unit.tensorMaps) {
    map.parameter = static_cast<int>(count(1u << 20));
    for (std::vector<uint32_t>* extents : {&map.box, &map.elementStrides}) {
      extents->resize(count(64));
      for (uint32_t& extent : *extents) extent = static_cast<uint32_t>(in.number());
    }
    for (uint8_t* field : {&map.interleave, &map.swizzle, &map.l2Promotion, &map.oobFill})
      *field = static_cast<uint8_t>(count(255));
  }
  result.kernelName = in.text();
  result.parameterTypes.resize(count(record.size()));
  for (const types::Type*& type : result.parameterTypes) type = readType(in, types);
  result.parameterNames.resize(count(record.size()));
  for (std::string& name : result.parameterNames) name = in.text();
  result.argumentToParam.resize(count(record.size()));
  for (int& param : result.argumentToParam) param = static_cast<int>(static_cast<int64_t>(in.number()));
  result.globals.resize(count(record.size()));
  for (sema::GlobalDependency& dependency : result.globals) {
    dependency.environment = kernel.globals;
    dependency.name = in.text();
    if (in.failed) return std::nullopt;
    GlobalValue value = kernel.globals->lookup(dependency.name);
    if (value.kind != GlobalValue::Kind::Constant) return std::nullopt;
    dependency.value = std::move(value.constant);
  }
  result.localArrayBytes = in.number();
  result.tileThreads = static_cast<int>(in.number());
  result.tileSharedBytes = static_cast<uint32_t>(in.number());
  if (!in.done()) return std::nullopt;
  result.ok = true;
  return result;
}

}  // namespace weft::python
