#include "slice_key.h"

namespace tgraph::saver_tf {

// A length byte, then the value's big-endian bytes without leading zeros (0 is one 0x00).
void AppendNumIncreasing(std::string* out, uint64_t value) {
  unsigned char bytes[8];
  int n = 0;
  for (; value != 0; value >>= 8) bytes[n++] = static_cast<unsigned char>(value & 0xff);
  out->push_back(static_cast<char>(n));
  while (n > 0) out->push_back(static_cast<char>(bytes[--n]));
}

// n bytes hold 7n - 1 bits of magnitude: the first n bits of the first bytes say the length
// (1 → 10xxxxxx, 2 → 110xxxxx xxxxxxxx, ...; 9 → 0xff 0xxxxxxx, 10 → 0xff 10xxxxxx), and
// a negative value is written inverted so that it sorts first.
void AppendSignedNumIncreasing(std::string* out, int64_t value) {
  const uint64_t bits = static_cast<uint64_t>(value);
  const uint64_t magnitude = value < 0 ? ~bits : bits;
  int length = 1;
  while (length < 10 && (length * 7 - 1 < 64) && (magnitude >> (length * 7 - 1)) != 0) ++length;
  // The value, sign-extended, as 10 big-endian bytes; keep the last `length`.
  unsigned char bytes[10];
  const unsigned char sign = value < 0 ? 0xff : 0x00;
  bytes[0] = bytes[1] = sign;
  for (int i = 0; i < 8; ++i) {
    bytes[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(value) >> (8 * (7 - i)));
  }
  unsigned char* begin = bytes + 10 - length;
  // The header: `length` one-bits then a zero-bit, over the first one or two bytes.
  static const unsigned char kHeader[11][2] = {
      {0, 0},       {0x80, 0},    {0xc0, 0},    {0xe0, 0},    {0xf0, 0},   {0xf8, 0},
      {0xfc, 0},    {0xfe, 0},    {0xff, 0},    {0xff, 0x80}, {0xff, 0xc0}};
  begin[0] ^= kHeader[length][0];
  if (length > 1) begin[1] ^= kHeader[length][1];
  out->append(reinterpret_cast<const char*>(begin), static_cast<size_t>(length));
}

// 0x00 → 0x00 0xff, 0xff → 0xff 0x00, then the terminator 0x00 0x01.
void AppendOrderedString(std::string* out, const std::string& value) {
  for (char c : value) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
    if (c == '\xff') out->push_back('\0');
  }
  out->append("\x00\x01", 2);
}

std::string SliceKey(const std::string& name, const tf::TensorSliceProto& slice) {
  std::string key;
  AppendNumIncreasing(&key, 0);
  AppendOrderedString(&key, name);
  AppendNumIncreasing(&key, static_cast<uint64_t>(slice.extent_size()));
  for (const auto& extent : slice.extent()) {
    AppendSignedNumIncreasing(&key, extent.start());
    AppendSignedNumIncreasing(&key, extent.has_length() ? extent.length() : -1);
  }
  return key;
}

}  // namespace tgraph::saver_tf
