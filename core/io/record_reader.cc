#include "core/io/record_reader.h"

#include <algorithm>

#include "common/crc32c.h"

namespace tgraph::io {
namespace {

uint64_t LittleEndian(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("Cannot open record file '", path, "'");
  return std::unique_ptr<RecordReader>(new RecordReader(path, std::move(in)));
}

Status RecordReader::Corrupt(const char* what) const {
  return DataLoss("Record file '", path_, "': ", what, " in the record at offset ", offset_);
}

StatusOr<bool> RecordReader::Next(std::string* data) {
  char header[12];
  in_.read(header, sizeof header);
  if (in_.gcount() == 0 && in_.eof()) return false;
  if (in_.gcount() != static_cast<std::streamsize>(sizeof header)) {
    return Corrupt("truncated header");
  }
  const uint64_t length = LittleEndian(header, 8);
  if (crc32c::Unmask(static_cast<uint32_t>(LittleEndian(header + 8, 4))) !=
      crc32c::Value(header, 8)) {
    return Corrupt("corrupt length (CRC mismatch)");
  }
  // The length is checked by its CRC, but it may still exceed what is left of the file:
  // read in pieces rather than trusting it with one allocation.
  data->clear();
  char chunk[1 << 16];
  for (uint64_t left = length; left > 0;) {
    const auto want = static_cast<std::streamsize>(std::min<uint64_t>(left, sizeof chunk));
    in_.read(chunk, want);
    if (in_.gcount() != want) return Corrupt("truncated data");
    data->append(chunk, static_cast<size_t>(want));
    left -= static_cast<uint64_t>(want);
  }
  char footer[4];
  in_.read(footer, sizeof footer);
  if (in_.gcount() != static_cast<std::streamsize>(sizeof footer)) {
    return Corrupt("truncated data CRC");
  }
  if (crc32c::Unmask(static_cast<uint32_t>(LittleEndian(footer, 4))) !=
      crc32c::Value(data->data(), data->size())) {
    return Corrupt("corrupt data (CRC mismatch)");
  }
  offset_ += sizeof header + length + sizeof footer;
  return true;
}

}  // namespace tgraph::io
