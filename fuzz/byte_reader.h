// Decodes fuzz input into choices (libFuzzer's FuzzedDataProvider is clang-only; the replay
// build uses GCC). Past the end every read yields zeros, so any input decodes to something.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace tgraph::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t remaining() const { return size_ - pos_; }
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(U8()) << (8 * i);
    return v;
  }
  bool Bool() { return (U8() & 1) != 0; }
  // A number in [0, n) (n > 0).
  size_t Pick(size_t n) { return n <= 256 ? U8() % n : U16() % n; }
  // Up to `max` bytes.
  std::string Bytes(size_t max) {
    size_t n = Pick(max + 1);
    if (n > remaining()) n = remaining();
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  // Fills dst[0, n) (zeros past the end).
  void Fill(void* dst, size_t n) {
    const size_t k = n < remaining() ? n : remaining();
    std::memcpy(dst, data_ + pos_, k);
    std::memset(static_cast<char*>(dst) + k, 0, n - k);
    pos_ += k;
  }
  // An integer that is usually an interesting small value (axes, indices, sizes), sometimes
  // an extreme one, sometimes raw bytes.
  int64_t Int() {
    static constexpr int64_t kValues[] = {0, 1, 2, 3, -1, -2, 4, 5, 8, 16, 1 << 20,
                                          int64_t{1} << 31, int64_t{1} << 40, INT32_MAX,
                                          INT32_MIN, INT64_MAX, INT64_MIN};
    const uint8_t k = U8();
    if (k < 200) return kValues[k % 7];
    if (k < 240) return kValues[k % (sizeof kValues / sizeof kValues[0])];
    return static_cast<int64_t>(U64());
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace tgraph::fuzz
