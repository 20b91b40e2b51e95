// The spelling of user-chosen names in the emitted C++. Every name the user chose (locals,
// parameters, functions, methods, struct classes and their fields, kernels) is printed through
// userName(), so that no Python name ever reaches the C++ compiler raw: a Python name may be a
// C++ keyword, a macro of the C, C++ or CUDA headers (NAN, errno, M_PI, warpSize), a type
// (int32_t, size_t), one of weft's own helpers, or non-ASCII. Interoperable functions and
// kernels are the exception: sema validates their names (InteropName) and they stay as written.
#include "codegen/cuda_emitter.h"
#include "syntax/lexer.h"

namespace weft::codegen {

namespace {

// The readable part keeps at most this many bytes; the unique suffix keeps names apart.
constexpr size_t kMaxReadable = 64;

bool isAsciiAlnum(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// `name` as [A-Za-z0-9_] with no "__" and no '_' at either end: ASCII letters and digits as they
// are, each non-ASCII code point as u<hex> (π: u03c0), and a single '_' between any two parts
// that '_', other characters or a code point separate.
std::string readable(std::string_view name) {
  std::string out;
  bool separate = false;
  for (size_t pos = 0; pos < name.size() && out.size() < kMaxReadable;) {
    char32_t c = syntax::decodeUtf8(name, pos);
    bool ascii = c < 0x80;
    if (ascii && !isAsciiAlnum(c)) {
      separate = true;
      continue;
    }
    if ((separate || !ascii) && !out.empty() && out.back() != '_') out += '_';
    if (ascii) {
      out += static_cast<char>(c);
      separate = false;
    } else {
      static const char kDigits[] = "0123456789abcdef";
      std::string hex;
      for (char32_t rest = c; rest != 0 || hex.size() < 4; rest >>= 4)
        hex.insert(hex.begin(), kDigits[rest & 15]);
      out += "u" + hex;
      separate = true;
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

// `<prefix>_<readable>_<unique>`. The prefix says what the name names and no macro of the
// headers a unit sees starts with it (tests/python/test_identifiers.py scans them); `unique`
// is the entity's index in its C++ scope, the last '_'-separated part, so two entities of one
// kind and scope never share a name whatever their Python names; and the prefixes differ from
// each other and from weft's own names (w_<n> temporaries, w_shared_<n>, weft_tuple_<n>, f<n>).
std::string userName(NameKind kind, std::string_view pythonName, size_t unique) {
  const char* prefix = "";
  switch (kind) {
    case NameKind::Local: prefix = "v_"; break;
    case NameKind::Function: prefix = "wf_"; break;
    case NameKind::Struct: prefix = "s_"; break;
    case NameKind::Member: prefix = "m_"; break;
    case NameKind::Kernel: prefix = "weft_"; break;
  }
  std::string body = readable(pythonName);
  return prefix + body + (body.empty() ? "" : "_") + std::to_string(unique);
}

std::string commentText(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '\\') c = '?';
  }
  return out;
}

}  // namespace weft::codegen
