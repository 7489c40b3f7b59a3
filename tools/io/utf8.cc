#include "utf8.h"

namespace tgraph::tool {

bool IsUnicodeScalar(uint32_t code_point) {
  return code_point <= 0x10ffff && (code_point < 0xd800 || code_point > 0xdfff);
}

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
    return;
  }
  // Lead byte marker and continuation bytes (6 bits each) by encoded length.
  const int continuation = code_point < 0x800 ? 1 : code_point < 0x10000 ? 2 : 3;
  static constexpr unsigned char kLead[] = {0, 0xc0, 0xe0, 0xf0};
  out->push_back(static_cast<char>(kLead[continuation] | (code_point >> (6 * continuation))));
  for (int k = continuation - 1; k >= 0; --k) {
    out->push_back(static_cast<char>(0x80 | ((code_point >> (6 * k)) & 0x3f)));
  }
}

}  // namespace tgraph::tool
