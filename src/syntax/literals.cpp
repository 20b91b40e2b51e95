#include "syntax/literals.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "syntax/lexer.h"

namespace weft::syntax {

namespace {

int digitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Converts digits in `base` to exact decimal digits through base-1e9 limbs.
std::string toDecimal(std::string_view digits, uint32_t base) {
  constexpr uint64_t kLimb = 1000000000;
  std::vector<uint32_t> limbs;  // least significant first
  for (char c : digits) {
    uint64_t carry = static_cast<uint64_t>(digitValue(c));
    for (uint32_t& limb : limbs) {
      uint64_t value = static_cast<uint64_t>(limb) * base + carry;
      limb = static_cast<uint32_t>(value % kLimb);
      carry = value / kLimb;
    }
    while (carry != 0) {
      limbs.push_back(static_cast<uint32_t>(carry % kLimb));
      carry /= kLimb;
    }
  }
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs[i]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

void setInt(ConstantValue& value, std::string digits) {
  value.kind = ConstantValue::Kind::Int;
  constexpr std::string_view kMax = "9223372036854775807";
  value.fitsInt64 = digits.size() < kMax.size() || (digits.size() == kMax.size() && digits <= kMax);
  value.intValue = value.fitsInt64 ? std::strtoll(digits.c_str(), nullptr, 10) : 0;
  value.intDigits = std::move(digits);
}

int hexValue(std::string_view body, size_t at, size_t count) {
  if (at + count > body.size()) return -1;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    int d = digitValue(body[at + i]);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

}  // namespace

ConstantValue numberValue(std::string_view spelling) {
  std::string s;
  s.reserve(spelling.size());
  for (char c : spelling) {
    if (c != '_') s += c;
  }
  ConstantValue value;
  char last = s.empty() ? '0' : s.back();
  if (last == 'j' || last == 'J') {
    s.pop_back();
    value.kind = ConstantValue::Kind::Complex;
    value.floatValue = std::strtod(s.c_str(), nullptr);
    return value;
  }
  if (s.size() > 1 && s[0] == '0') {
    char x = static_cast<char>(s[1] | 0x20);
    uint32_t base = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 0;
    if (base != 0) {
      setInt(value, toDecimal(std::string_view(s).substr(2), base));
      return value;
    }
  }
  if (s.find_first_of(".eE") != std::string::npos) {
    value.kind = ConstantValue::Kind::Float;
    value.floatValue = std::strtod(s.c_str(), nullptr);
    return value;
  }
  size_t nonZero = s.find_first_not_of('0');
  setInt(value, nonZero == std::string::npos ? "0" : s.substr(nonZero));
  return value;
}

bool decodeLiteralBody(std::string_view body, bool raw, bool bytes, std::string& out, EscapeError& error) {
  out.reserve(out.size() + body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\r') {
      out += '\n';
      if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
      continue;
    }
    if (bytes && static_cast<unsigned char>(c) >= 0x80) {
      error.offset = i;
      error.message = "bytes can only contain ASCII literal characters";
      return false;
    }
    if (c != '\\' || raw) {
      out += c;
      continue;
    }
    size_t at = i;
    if (++i >= body.size()) {
      error.offset = at;
      error.message = "\\ at end of string";
      return false;
    }
    char e = body[i];
    switch (e) {
      case '\n': break;
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
        break;
      case '\\':
      case '\'':
      case '"': out += e; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        uint32_t value = static_cast<uint32_t>(e - '0');
        for (int n = 1; n < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++n) {
          value = value * 8 + static_cast<uint32_t>(body[++i] - '0');
        }
        if (bytes) out += static_cast<char>(value & 0xFF);
        else appendUtf8(out, value);
        break;
      }
      case 'x': {
        int value = hexValue(body, i + 1, 2);
        if (value < 0) {
          error.offset = at;
          error.message = bytes ? "(value error) invalid \\x escape at position " + std::to_string(at)
                                : "'unicodeescape' codec can't decode bytes in position " + std::to_string(at) + "-" +
                                      std::to_string(std::min(body.size(), at + 3) - 1) + ": truncated \\xXX escape";
          return false;
        }
        i += 2;
        if (bytes) out += static_cast<char>(value);
        else appendUtf8(out, static_cast<char32_t>(value));
        break;
      }
      case 'u':
      case 'U':
      case 'N':
        if (bytes) {
          out += '\\';
          out += e;
          break;
        }
        if (e == 'N') {
          error.offset = at;
          error.unsupportedNamedEscape = true;
          return false;
        }
        {
          size_t count = e == 'u' ? 4 : 8;
          uint32_t value = 0;
          bool ok = true;
          for (size_t k = 1; ok && k <= count; ++k) {
            int d = i + k < body.size() ? digitValue(body[i + k]) : -1;
            if (d < 0) ok = false;
            else value = value * 16 + static_cast<uint32_t>(d);
          }
          if (!ok || value > 0x10FFFF) {
            error.offset = at;
            std::string range = std::to_string(at) + "-" + std::to_string(std::min(body.size(), at + 2 + count) - 1);
            error.message = "'unicodeescape' codec can't decode bytes in position " + range + ": " +
                            (!ok ? (e == 'u' ? "truncated \\uXXXX escape" : "truncated \\UXXXXXXXX escape")
                                 : "illegal Unicode character");
            return false;
          }
          i += count;
          appendUtf8(out, value);
        }
        break;
      default:
        // An unknown escape keeps its backslash; the character is then copied as usual.
        out += '\\';
        --i;
        break;
    }
  }
  return true;
}

}  // namespace weft::syntax
