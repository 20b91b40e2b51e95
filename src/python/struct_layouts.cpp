#include "python/struct_layouts.h"

#include <nanobind/stl/string.h>

#include "python/python_environment.h"
#include "python/python_runtime.h"
#include "sema/sema.h"
#include "types/layout.h"

namespace weft::python {
namespace {

nb::object describeLayout(const types::Type* type, const std::string& owner);

// The NumPy format of one member: a number type's name, (element name, shape) for a vector, or
// a nested layout; TypeError for members NumPy cannot hold.
nb::object memberFormat(const types::Type* member, const std::string& owner, const std::string& field) {
  switch (member->kind) {
    case types::TypeKind::Scalar:
    case types::TypeKind::WarpMask:
    case types::TypeKind::Atomic: return nb::str(types::pythonName(member->scalar));
    case types::TypeKind::Vector:
      return nb::make_tuple(nb::str(types::pythonName(member->scalar)), nb::make_tuple(member->size));
    case types::TypeKind::InlineArray: {
      nb::list shape;
      for (int64_t extent : member->shape) shape.append(extent);
      return nb::make_tuple(nb::str(types::pythonName(member->scalar)), nb::tuple(shape));
    }
    case types::TypeKind::Struct:
    case types::TypeKind::Tuple: return describeLayout(member, owner + "." + field);
    case types::TypeKind::Array:
    case types::TypeKind::Tile:
    case types::TypeKind::TileView:
    case types::TypeKind::None:
    case types::TypeKind::AtomicRef:
    case types::TypeKind::Error: break;
  }
  throw nb::type_error((owner + ": field '" + field + "' is " + types::toString(member) +
                        ", which has no NumPy dtype (a struct with such a field cannot be an array element)")
                           .c_str());
}

// {"names", "formats", "offsets", "itemsize"} of a struct or tuple type, as numpy.dtype takes them.
nb::object describeLayout(const types::Type* type, const std::string& owner) {
  types::Layout layout = types::layoutOf(type);
  nb::list names, formats, offsets;
  for (size_t i = 0; i < type->elements.size(); ++i) {
    std::string field = type->isStruct() ? type->fieldNames[i] : "f" + std::to_string(i);
    names.append(nb::str(field.c_str(), field.size()));
    formats.append(memberFormat(type->elements[i], owner, field));
    offsets.append(layout.offsets[i]);
  }
  nb::dict description;
  description["names"] = names;
  description["formats"] = formats;
  description["offsets"] = offsets;
  description["itemsize"] = layout.size;
  return description;
}

nb::object structLayout(nb::handle cls) {
  nb::object runtimeObject = nb::module_::import_("weft._runtime").attr("runtime")();
  PythonRuntime& runtime = *nb::inst_ptr<PythonRuntime>(runtimeObject);
  std::shared_ptr<sema::StructSource> source = structSource(cls);
  auto lock = runtime.lockFrontEnd();
  SourceManager sources;
  Diagnostics diagnostics(sources);
  const types::Type* type = sema::resolveStruct(source, runtime.compiler().types(), sources, diagnostics);
  if (type == nullptr) raiseWeftError("CompileError", diagnostics.render());
  return describeLayout(type, source->name);
}

}  // namespace

void bindStructLayouts(nb::module_& module) {
  module.def(
      "struct_layout", &structLayout,
      "The layout of a @struct class as weft lays it out: {names, formats, offsets, itemsize}, formats "
      "being number type names, (name, shape) pairs or nested layouts");
}

}  // namespace weft::python
