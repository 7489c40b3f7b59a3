// Byte-order helpers for .npy data, which may be stored in either order.
#ifndef TGRAPH_TOOLS_IO_BYTE_ORDER_H_
#define TGRAPH_TOOLS_IO_BYTE_ORDER_H_

#include <algorithm>
#include <bit>
#include <cstddef>

namespace tgraph::tool {

// Whether data in `byte_order` ('<', '>' or '|') must be swapped to be read on this host.
inline bool NeedsSwap(char byte_order) {
  const char native = std::endian::native == std::endian::little ? '<' : '>';
  return byte_order != '|' && byte_order != native;
}

// Reverses the bytes of each `unit`-byte word in data[0, size).
inline void SwapWords(char* data, size_t size, size_t unit) {
  if (unit < 2) return;
  for (size_t i = 0; i + unit <= size; i += unit) std::reverse(data + i, data + i + unit);
}

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_BYTE_ORDER_H_
