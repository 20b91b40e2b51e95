// `_weft.struct_layout(cls)`: the machine representation of a @struct class as sema resolves
// and types/layout.h lays it out, for `S.dtype` (python/weft/_structs.py builds the NumPy dtype
// from it and computes no layout of its own).
#pragma once

#include <nanobind/nanobind.h>

namespace weft::python {

namespace nb = nanobind;

// Registers struct_layout() in `module`.
void bindStructLayouts(nb::module_& module);

}  // namespace weft::python
