// Front-end records: what the front end decided for a kernel (its parameters' description, and
// each specialization's FrontEndResult), kept in the disk cache so that the first launch of a
// fresh process with a warm cache neither parses nor checks the kernel (docs/architecture.md,
// "Front-end records"). A record holds, beside the result, every global name the compilation
// looked up and what it found; it is used only when each lookup finds the same now. A
// compilation whose lookups a fresh process cannot repeat exactly (another module's globals, a
// captured variable, a struct class, a global array) or that reported anything keeps no record:
// it runs the front end in every process, as before.
#pragma once

#include <Python.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/python_environment.h"
#include "runtime/runtime.h"
#include "sema/sema.h"

namespace weft::python {

// Appends a ConstExpr value (or a global constant) to a key, unambiguously.
void appendConstant(std::string& key, const sema::ConstValue& value);

// The disk cache key of a record of `kernel`: its file's name and text, its position and
// decorations, and weft's build (runtime::Compiler::buildIdentity), then `what` the record is
// of ("" for the parameters' description; a specialization's key, options and declared types
// for a front-end result, see specializationSubject). The one function that decides record keys;
// call it with the front end's lock held (PythonRuntime::lockFrontEnd).
std::string recordKey(const sema::FunctionSource& kernel, const std::string& buildIdentity, std::string_view what);

// What decides a specialization's front-end result beside the kernel's source: its key
// (Kernel::specialize), the options sema reads and the declared parameter types; nullopt when a
// declared type cannot be written down (a struct).
std::optional<std::string> specializationSubject(const std::string& specializationKey,
                                                 const runtime::CompilerOptions& options,
                                                 const std::vector<const types::Type*>& declared);

// Notes every lookup made while it lives (on this thread), for a record of `kernel`.
class LookupLog : public LookupObserver {
 public:
  explicit LookupLog(const sema::FunctionSource& kernel);
  void looked(const PythonEnvironment& environment, std::string_view name, const sema::GlobalValue& value) override;
  // The lookups, encoded; nullopt when one of them cannot be repeated in a fresh process.
  std::optional<std::string> entries() const;

 private:
  const sema::FunctionSource& kernel_;
  std::string entries_;
  uint64_t count_ = 0;
  bool repeatable_ = true;
};

// What `compute()` returns, or what the record under `key` holds when `decode` finds that it
// still holds; a computed result that `encode` writes down with the lookups `compute` made
// (nullopt: it keeps no record) is stored under `key`. An empty key reads and keeps no record.
template <class Result, class Decode, class Compute, class Encode>
Result recordedOrComputed(const backend::DiskCache& cache, const std::string& key,
                          const sema::FunctionSource& kernel, Decode decode, Compute compute, Encode encode) {
  if (!key.empty()) {
    if (std::optional<std::string> record = cache.load(key)) {
      if (std::optional<Result> recorded = decode(*record)) return std::move(*recorded);
    }
  }
  LookupLog lookups(kernel);
  Result result = compute();
  if (std::optional<std::string> entries = lookups.entries(); entries && !key.empty()) {
    if (std::optional<std::string> record = encode(result, *entries)) cache.store(key, *record);
  }
  return result;
}

// A parameters' description as a record (nullopt: not recordable), and back: nullopt unless
// every lookup of the record finds the same in `kernel`'s globals now.
std::optional<std::string> encodeDescription(const std::vector<sema::ParameterDescription>& parameters,
                                             const std::string& lookups);
std::optional<std::vector<sema::ParameterDescription>> decodeDescription(std::string_view record,
                                                                         const sema::FunctionSource& kernel,
                                                                         types::TypeContext& types);

// A specialization's front-end result as a record (nullopt: not recordable), and back.
std::optional<std::string> encodeFrontEnd(const runtime::FrontEndResult& result, const sema::FunctionSource& kernel,
                                          const std::string& lookups);
std::optional<runtime::FrontEndResult> decodeFrontEnd(std::string_view record, const sema::FunctionSource& kernel,
                                                      types::TypeContext& types);

}  // namespace weft::python
