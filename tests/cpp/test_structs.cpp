// Structs and tuples: the machine representation (types::layoutOf), sema of @struct classes
// (construction, fields, methods, replace, immutability and definition errors), and the
// emitted C++ with its layout static_asserts, compiled for the CPU and (with nvcc) sm_90.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/codegen.h"
#include "sema/sema.h"
#include "sema/static_environment.h"
#include "syntax/syntax.h"
#include "sema_test_support.h"
#include "types/layout.h"

namespace weft {
namespace {

using types::ScalarKind;

#ifndef WEFT_SOURCE_DIR
#error "WEFT_SOURCE_DIR must name the repository (CMake defines it for weft_tests)"
#endif

using Checked = testing::CheckedKernel;

std::unique_ptr<Checked> check(const std::string& source, const std::string& kernel = "k") {
  return testing::checkAnnotated(source, kernel, "structs.py");
}

const char* kPrelude = R"(from cuda import device

@device.struct
class Vec:
    x: device.float32
    y: device.float32
    z: device.float32

    @device.func
    def dot(self, other):
        return self.x * other.x + self.y * other.y + self.z * other.z

    @device.func
    def scaled(self, s):
        return Vec(self.x * s, self.y * s, self.z * s)

@device.struct(align=16)
class Particle:
    pos: Vec
    mass: device.float64
    id: device.int8

)";

TEST(StructLayout, ScalarsTuplesStructsAndDescriptors) {
  types::TypeContext types;
  const types::Type* i8 = types.scalar(ScalarKind::Int8);
  const types::Type* f64 = types.scalar(ScalarKind::Float64);
  const types::Type* i16 = types.scalar(ScalarKind::Int16);
  const types::Type* c64 = types.scalar(ScalarKind::Complex64);
  types::Layout tuple = types::layoutOf(types.tuple({i8, f64, i16}));
  EXPECT_EQ(tuple.size, 24u);
  EXPECT_EQ(tuple.align, 8u);
  EXPECT_EQ(tuple.offsets, (std::vector<uint64_t>{0, 8, 16}));
  EXPECT_EQ(types::layoutOf(c64).align, 8u);
  EXPECT_EQ(types::layoutOf(types.scalar(ScalarKind::Complex128)).align, 16u);
  types::Type point;
  point.kind = types::TypeKind::Struct;
  point.name = "point";
  point.identity = 7;
  point.align = 16;
  point.fieldNames = {"a", "b"};
  point.elements = {i8, i16};
  const types::Type* aligned = types.structType(point);
  types::Layout layout = types::layoutOf(aligned);
  EXPECT_EQ(layout.size, 16u);
  EXPECT_EQ(layout.align, 16u);
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 2}));
  types::Layout descriptor = types::layoutOf(types.array(ScalarKind::Float32, 3));
  EXPECT_EQ(descriptor.size, 56u);
  EXPECT_EQ(descriptor.offsets, (std::vector<uint64_t>{0, 8, 32}));
  EXPECT_EQ(types::layoutOf(types.none()).size, 8u);  // void*
  EXPECT_EQ(types::layoutOf(types.tuple({})).size, 1u);
  // Arrays of structs intern by element.
  EXPECT_EQ(types.array(aligned, 1), types.array(aligned, 1));
  EXPECT_EQ(types::toString(types.array(aligned, 2)), "array(point, 2d)");
}

TEST(StructSema, ConstructionFieldsMethodsAndReplace) {
  auto checked = check(std::string(kPrelude) + R"(
@device.kernel
def k(ps: Particle[:], out: device.float32[:], v: Vec):
    i = device.tid(1)
    p = ps[i]
    a = Vec(1.0, y=2.0, z=3)
    b = a.replace(y=5.0)
    w = b.scaled(2.0)
    ps[i] = p.replace(pos=w, id=3)
    out[i] = a.dot(v) + p.pos.x + w.y + Particle(Vec(0.0, 0.0, 0.0), 1.0, 2).mass
)");
  ASSERT_EQ(checked->errors, "");
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("// @struct Vec\nstruct s_Vec_0 { float m_x_0; float m_y_1; float m_z_2; };"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("struct alignas(16) s_Particle_1 { s_Vec_0 m_pos_0; double m_mass_1; int8_t m_id_2; };"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("static_assert(sizeof(s_Particle_1) == 32 && alignof(s_Particle_1) == 16 && "
                             "__is_standard_layout(s_Particle_1)"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("#if !defined(__CUDACC_RTC__)\nstatic_assert(__builtin_offsetof(s_Particle_1, m_pos_0) == 0 && "
                             "__builtin_offsetof(s_Particle_1, m_mass_1) == 16 && "
                             "__builtin_offsetof(s_Particle_1, m_id_2) == 24"),
            std::string::npos)
      << unit.source;

  // The unit compiles for the CPU target and for sm_90 (the static_asserts hold for both).
  testing::expectUnitCompiles(unit.source, "structs");
}

TEST(StructSema, TuplesCarryLayoutAsserts) {
  auto checked = check(R"(from cuda import device

def pair(a, b):
    return (a, b)

@device.kernel
def k(out: device.float64[:], t: device.int8):
    x, y = pair(t, 2.5)
    out[0] = x + y
)");
  ASSERT_EQ(checked->errors, "");
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("struct weft_tuple_0 { int8_t f0; float f1; };\nstatic_assert(sizeof(weft_tuple_0) == 8"),
            std::string::npos)
      << unit.source;
}

void expectError(const std::string& body, const std::string& kind, const std::string& text, int line) {
  auto checked = check(std::string(kPrelude) + body);
  ASSERT_FALSE(checked->diagnostics.all().empty()) << body;
  EXPECT_EQ(checked->kinds().front(), kind) << checked->errors;
  EXPECT_NE(checked->errors.find(text), std::string::npos) << checked->errors;
  int preludeLines = 0;
  for (char c : std::string(kPrelude)) preludeLines += c == '\n' ? 1 : 0;
  EXPECT_EQ(static_cast<int>(checked->diagnostics.all().front().loc.line), preludeLines + line) << checked->errors;
}

TEST(StructErrors, ImmutableFieldsAndNoNewAttributes) {
  expectError("@device.kernel\ndef k(v: Vec):\n    v.x = 1.0\n", "StructImmutable",
              "structs are immutable: field 'x' of struct Vec cannot be assigned; make a modified copy with s.replace(x=...)", 3);
  expectError("@device.kernel\ndef k(v: Vec):\n    v.w = 1.0\n", "StructNoAttribute",
              "struct Vec has no field 'w', and attributes cannot be added", 3);
  expectError("@device.kernel\ndef k(v: Vec, o: device.float32[:]):\n    o[0] = v.w\n", "StructNoAttribute", "no field 'w'", 3);
}

TEST(StructErrors, Construction) {
  expectError("@device.kernel\ndef k(o: device.float32[:]):\n    o[0] = Vec(1.0, 2.0).x\n", "StructFieldMissing",
              "Vec() is missing a value for field 'z'", 3);
  expectError("@device.kernel\ndef k(o: device.float32[:]):\n    o[0] = Vec(1.0, 2.0, 3.0, x=1.0).x\n",
              "StructFieldTwice", "Vec() got more than one value for field 'x'", 3);
  expectError("@device.kernel\ndef k(o: device.float32[:]):\n    o[0] = Vec(1.0, 2.0, q=3.0).x\n", "KeywordArgument",
              "unexpected keyword argument 'q'", 3);
  expectError("@device.kernel\ndef k(v: Vec):\n    w = v.replace(y=1.0, y=2.0)\n", "StructFieldTwice",
              "more than one value for field 'y'", 3);
}

TEST(StructErrors, Definitions) {
  auto bad = check(R"(from cuda import device

@device.struct
class Bad:
    x: device.float32
    y: dict

@device.kernel
def k(o: device.float32[:]):
    o[0] = Bad(1.0, 2.0).x
)");
  ASSERT_FALSE(bad->kinds().empty());
  EXPECT_EQ(bad->kinds().front(), "StructField") << bad->errors;
  EXPECT_NE(bad->errors.find("field 'y' of struct 'Bad' needs a type annotation"), std::string::npos) << bad->errors;
  EXPECT_EQ(bad->diagnostics.all().front().loc.line, 6u);

  auto member = check(R"(from cuda import device

@device.struct
class Bad:
    x: device.float32
    y = 3

@device.kernel
def k(o: device.float32[:]):
    o[0] = Bad(1.0).x
)");
  ASSERT_FALSE(member->kinds().empty());
  EXPECT_EQ(member->kinds().front(), "StructMember") << member->errors;
  EXPECT_EQ(member->diagnostics.all().front().loc.line, 6u);

  auto recursive = check(R"(from cuda import device

@device.struct
class Node:
    next: Node

@device.kernel
def k(o: device.float32[:]):
    n = Node(0)
)");
  ASSERT_FALSE(recursive->kinds().empty());
  EXPECT_EQ(recursive->kinds().front(), "StructRecursive") << recursive->errors;
}

TEST(StructErrors, RecordsAndMissingSources) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  auto record = std::make_shared<sema::StructSource>();
  record->name = "record";
  record->identity = 3;
  record->fields = {{"a", "float32"}, {"b", "int8"}};
  const types::Type* type = sema::resolveStruct(record, types, sources, diagnostics);
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(types::layoutOf(type).size, 8u);
  record->fields.push_back({"c", "object"});
  record->identity = 4;
  EXPECT_EQ(sema::resolveStruct(record, types, sources, diagnostics), nullptr);
  EXPECT_EQ(std::string(diagnostics.all().back().kind), "StructRecord");
  EXPECT_NE(diagnostics.render().find("field 'c' of record has dtype 'object'"), std::string::npos);

  auto missing = std::make_shared<sema::StructSource>();
  missing->name = "Gone";
  missing->fileName = "gone.py";
  missing->fileText = "x = 1\n";
  missing->line = 1;
  missing->globals = nullptr;
  EXPECT_EQ(sema::resolveStruct(missing, types, sources, diagnostics), nullptr);
  EXPECT_EQ(std::string(diagnostics.all().back().kind), "StructNotFound");
  EXPECT_NE(diagnostics.render().find("struct class 'Gone' was not found in gone.py at line 1"), std::string::npos);
}

}  // namespace
}  // namespace weft
