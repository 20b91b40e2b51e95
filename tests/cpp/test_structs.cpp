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

// A record field as the host describes it.
sema::RecordField field(std::string name, uint64_t offset, std::string dtype, std::vector<int64_t> shape = {},
                        std::shared_ptr<sema::StructSource> record = nullptr) {
  return sema::RecordField{std::move(name), offset, std::move(dtype), std::move(shape), std::move(record)};
}

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
  record->fields = {field("a", 0, "float32"), field("b", 4, "int8")};
  record->itemSize = 8;
  const types::Type* type = sema::resolveStruct(record, types, sources, diagnostics);
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(types::layoutOf(type).size, 8u);
  record->fields.push_back(field("c", 5, "object"));
  record->identity = 4;
  EXPECT_EQ(sema::resolveStruct(record, types, sources, diagnostics), nullptr);
  EXPECT_EQ(std::string(diagnostics.all().back().kind), "StructRecord");
  EXPECT_NE(diagnostics.render().find("field 'c' of record has dtype 'object'"), std::string::npos);

  auto missing = std::make_shared<sema::StructSource>();
  missing->name = "Gone";
  missing->file = std::make_shared<SourceFile>("gone.py", "x = 1\n");
  missing->line = 1;
  missing->globals = nullptr;
  EXPECT_EQ(sema::resolveStruct(missing, types, sources, diagnostics), nullptr);
  EXPECT_EQ(std::string(diagnostics.all().back().kind), "StructNotFound");
  EXPECT_NE(diagnostics.render().find("struct class 'Gone' was not found in gone.py at line 1"), std::string::npos);
}

// A NumPy record as the host describes it: packed (numpy's align=False), with a sub-array field,
// a two-dimensional one, and a nested record aligned as a C struct.
std::shared_ptr<sema::StructSource> packedRecord() {
  auto inner = std::make_shared<sema::StructSource>();
  inner->name = "record";
  inner->identity = 11;
  inner->fields = {field("u", 0, "int16"), field("v", 8, "float64")};
  inner->itemSize = 16;
  auto outer = std::make_shared<sema::StructSource>();
  outer->name = "record";
  outer->identity = 12;
  outer->fields = {field("a", 0, "float64"), field("b", 8, "int8"), field("pos", 9, "float32", {3}),
                   field("m", 21, "", {}, inner), field("g", 37, "uint16", {2, 2})};
  outer->itemSize = 45;
  return outer;
}

TEST(Records, PackedLayoutSubArraysAndNestedRecords) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  const types::Type* record = sema::resolveStruct(packedRecord(), types, sources, diagnostics);
  ASSERT_NE(record, nullptr) << diagnostics.render();
  types::Layout layout = types::layoutOf(record);
  EXPECT_EQ(layout.size, 45u);
  EXPECT_EQ(layout.align, 1u);  // packed: its fields are read byte by byte
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 8, 9, 21, 37}));
  EXPECT_EQ(types::toString(record->elements[2]), "float32[3]");
  EXPECT_EQ(types::toString(record->elements[4]), "uint16[2, 2]");
  EXPECT_EQ(types::layoutOf(record->elements[4]).size, 8u);
  EXPECT_EQ(types::layoutOf(record->elements[3]).align, 8u);  // the nested record is aligned
  // An aligned record (numpy's align=True) keeps its alignment; fields may leave gaps.
  auto aligned = std::make_shared<sema::StructSource>();
  aligned->name = "record";
  aligned->identity = 13;
  aligned->fields = {field("a", 0, "int8"), field("b", 8, "float64"), field("c", 16, "int16", {3})};
  aligned->itemSize = 24;
  const types::Type* alignedType = sema::resolveStruct(aligned, types, sources, diagnostics);
  ASSERT_NE(alignedType, nullptr) << diagnostics.render();
  EXPECT_EQ(types::layoutOf(alignedType).align, 8u);
  // Fields that overlap or leave the record are reported.
  auto overlapping = std::make_shared<sema::StructSource>();
  overlapping->name = "record";
  overlapping->identity = 14;
  overlapping->fields = {field("a", 0, "float64"), field("b", 4, "int32")};
  overlapping->itemSize = 16;
  EXPECT_EQ(sema::resolveStruct(overlapping, types, sources, diagnostics), nullptr);
  EXPECT_NE(diagnostics.render().find(
                "record cannot be laid out in device code: field 'b' at byte 4 overlaps the field "
                "before it"),
            std::string::npos)
      << diagnostics.render();
}

TEST(Records, DeviceCodeReadsAndWritesSubArrayFieldsInPlace) {
  // A kernel over an array of packed records: the unit compiles for the CPU target and sm_90.
  auto checked = std::make_unique<Checked>();
  std::string text = R"(from cuda import device

@device.kernel
def k(rs, out):
    i = device.tid(1)
    if i < rs.size:
        r = rs[i]
        s = 0.0
        for j in range(len(r.pos)):
            s += r.pos[j]
        out[i] = r.a + r.b + s + r.m.v + r.g[1, -1] + r.pos.size + r.g.shape[0]
        rs[i].pos[1] = device.float32(out[i])
        rs[i].g[-1, 0] = 7
        rs[i] = r.replace(b=3)
)";
  uint32_t file = checked->sources.add("records.py", text);
  checked->module = syntax::parse(file, checked->diagnostics);
  auto environment = sema::makeStaticEnvironment(*checked->module, checked->sources.file(file));
  const types::Type* record =
      sema::resolveStruct(packedRecord(), checked->types, checked->sources, checked->diagnostics);
  ASSERT_NE(record, nullptr);
  sema::CheckRequest request;
  request.entries.push_back({sema::staticFunction(*environment, "k"), {}});
  request.entries[0].arguments = {{checked->types.array(record, 1), std::nullopt},
                                  {checked->types.array(ScalarKind::Float64, 1), std::nullopt}};
  checked->program = sema::check(request, checked->types, checked->sources, checked->diagnostics);
  ASSERT_FALSE(checked->diagnostics.hasErrors()) << checked->diagnostics.render();
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("weft::Unaligned<weft::InlineArray<float, 3>> m_pos_2;"), std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("weft::store<false>("), std::string::npos) << unit.source;
  testing::expectUnitCompiles(unit.source, "records");
}

TEST(Records, SubArrayFieldsOfACopyAreImmutable) {
  auto checked = std::make_unique<Checked>();
  std::string text =
      "from cuda import device\n\n@device.kernel\ndef k(rs):\n    r = rs[0]\n    r.pos[1] = 2.0\n"
      "    x = r.pos[3]\n    y = r.pos[0, 1]\n    rs[0].pos[1] += 1.0\n";
  uint32_t file = checked->sources.add("records.py", text);
  checked->module = syntax::parse(file, checked->diagnostics);
  auto environment = sema::makeStaticEnvironment(*checked->module, checked->sources.file(file));
  const types::Type* record =
      sema::resolveStruct(packedRecord(), checked->types, checked->sources, checked->diagnostics);
  sema::CheckRequest request;
  request.entries.push_back(
      {sema::staticFunction(*environment, "k"), {{checked->types.array(record, 1), std::nullopt}}});
  checked->program = sema::check(request, checked->types, checked->sources, checked->diagnostics);
  std::string errors = checked->diagnostics.render();
  EXPECT_EQ(checked->kinds(),
            (std::vector<std::string>{"StructImmutable", "VectorIndexRange", "IndexCount", "AssignTarget"}))
      << errors;
  EXPECT_NE(errors.find("write it with =, e.g. ps[i].pos[k] = ps[i].pos[k] + v"), std::string::npos)
      << errors;
  EXPECT_NE(
      errors.find("field 'pos' of record cannot be assigned; write the record in its array instead, e.g. "
                  "records[i].pos[k] = value"),
      std::string::npos)
      << errors;
  EXPECT_NE(errors.find("index 3 is out of range for float32[3], which has 3 elements"), std::string::npos)
      << errors;
}

}  // namespace
}  // namespace weft
