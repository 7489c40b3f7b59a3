// UTF-8 encoding of code points: 'U' arrays of .npy files and \u escapes of literals become
// UTF-8 bytes in TG_STRING elements.
#ifndef TGRAPH_TOOLS_IO_UTF8_H_
#define TGRAPH_TOOLS_IO_UTF8_H_

#include <cstdint>
#include <string>

namespace tgraph::tool {

// Whether `code_point` is a Unicode scalar value (not a surrogate, at most U+10FFFF).
bool IsUnicodeScalar(uint32_t code_point);
// Appends the UTF-8 bytes of a Unicode scalar value.
void AppendUtf8(uint32_t code_point, std::string* out);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_UTF8_H_
