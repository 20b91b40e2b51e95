// The host side of sema's Environment for Python: global names resolved in a function's
// `__globals__` dict, and the source of Python functions.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <string_view>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "sema/environment.h"

namespace weft::python {

namespace nb = nanobind;

// The free names of one Python function: the cells it captures from enclosing functions
// (`cells`, a dict from name to cell, or None) and its module's globals. Values are classified as
// DESIGN.md section 2 describes: constants, functions (kernels, @func, plain), modules, weft
// entities (`__weft_name__`), math functions, NumPy scalar types; anything else is Unsupported
// with its type name.
class PythonEnvironment : public sema::Environment {
 public:
  explicit PythonEnvironment(nb::object globals, nb::object cells = nb::none())
      : globals_(std::move(globals)), cells_(std::move(cells)) {}
  // Drops the dict reference under the GIL (sema may release environments anywhere).
  ~PythonEnvironment() override;
  sema::GlobalValue lookup(std::string_view name) override;
  // The object bound to `name` now (borrowed): a captured cell's content, else the global; null
  // when unbound.
  PyObject* current(PyObject* name) const;
  // The module globals dict (borrowed), and whether the function captures variables.
  PyObject* globals() const { return globals_.ptr(); }
  bool capturesVariables() const { return !cells_.is_none(); }

 private:
  // The cell of captured variable `name` (borrowed), or null when `name` is not captured.
  PyObject* cell(PyObject* name) const;

  nb::object globals_;
  nb::object cells_;
};

// Watches every lookup of every PythonEnvironment on this thread while it lives (one at a time):
// the front-end records (python/front_end_records.h) learn from it what a compilation read.
class LookupObserver {
 public:
  LookupObserver();
  virtual ~LookupObserver();
  LookupObserver(const LookupObserver&) = delete;
  LookupObserver& operator=(const LookupObserver&) = delete;
  virtual void looked(const PythonEnvironment& environment, std::string_view name,
                      const sema::GlobalValue& value) = 0;

 private:
  LookupObserver* previous_;
};

// Classifies one Python object as sema sees a global bound to it; `depth`: the tuples it is
// nested in (a tuple of functions deeper than kMaxNestingDepth is unsupported, not a crash).
sema::GlobalValue classifyGlobal(nb::handle value, int depth = 0);

// The FunctionSource of Python function `function` (its file, whole text, first line, name,
// identity and globals); nullptr when its source text is not available.
std::shared_ptr<sema::FunctionSource> functionSource(nb::handle function,
                                                     sema::FunctionSource::Decorator decorator, bool interop);

// The StructSource of @struct class `cls` (its source, align and module globals); its
// identity is the class object's address, so aligned copies (device.align) are distinct.
std::shared_ptr<sema::StructSource> structSource(nb::handle cls);

// Registers SourceText: a file's text as functions and classes share it (made and cached by
// weft._runtime.source_text).
void bindSourceTexts(nb::module_& module);

}  // namespace weft::python
