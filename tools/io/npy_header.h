// The header of a .npy file (numpy's format 1.0/2.0/3.0): the Python dict literal that names
// the element type, the order and the shape, and the 'descr' string inside it.
#ifndef TGRAPH_TOOLS_IO_NPY_HEADER_H_
#define TGRAPH_TOOLS_IO_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io_error.h"

namespace tgraph::tool {

inline constexpr std::string_view kNpyMagic = "\x93NUMPY";
// numpy's own limit on the rank of an array; deeper headers are rejected before allocating.
inline constexpr size_t kMaxNpyRank = 64;

struct NpyHeader {
  std::string descr;  // e.g. "<f4", "|S5"
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// An element type as a descr spells it.
struct NpyDescr {
  char byte_order;  // '<', '>' or '|' ('=' is resolved to the host's order)
  char kind;        // 'f', 'i', 'u', 'b', 'c', 'S', 'U', ...
  size_t itemsize;  // bytes per element
};

// numpy's repr of a shape tuple: "()", "(3,)", "(2, 3)".
std::string ShapeRepr(const std::vector<int64_t>& shape);

// Parses the dict text of a header (after the length field, padding included).
IoError ParseNpyHeader(std::string_view text, NpyHeader* header);
// Parses a descr such as "<f4"; object, structured and other types tgraph cannot hold are
// TG_UNIMPLEMENTED.
IoError ParseNpyDescr(std::string_view descr, NpyDescr* out);

// The complete preamble numpy writes for `header`: magic, version, length and the dict padded
// so that the data starts at a multiple of 64 bytes (version 2.0 when 1.0's length field is
// too small).
std::string EncodeNpyPreamble(const NpyHeader& header);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_NPY_HEADER_H_
