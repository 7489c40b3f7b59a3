// The safetensors header: the JSON table after the 8-byte length, describing every tensor
// (dtype, shape, [begin, end) byte offsets into the data that follows the header) and an
// optional "__metadata__" map of strings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dtypes.h"
#include "status.h"

namespace tgraph_safetensors {

// A header may not be larger than this: the reference implementation's limit, and what
// keeps a hostile length from costing more memory than the JSON of a real checkpoint.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// The key of the metadata map, which names no tensor.
inline constexpr std::string_view kMetadataKey = "__metadata__";

struct TensorEntry {
  const SafetensorsDtype* dtype = nullptr;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // offsets into the data section (after the header)
  uint64_t end = 0;
  uint64_t byte_size() const { return end - begin; }
};

struct Header {
  std::map<std::string, TensorEntry> tensors;  // by name: `list` reports in name order
  std::map<std::string, std::string> metadata;
};

// Parses `json` and checks everything a reader relies on before touching the data: the
// JSON's syntax and structure, every dtype, shape and offset pair (in range of the
// `data_size` bytes after the header, matching dtype × shape, no two tensors overlapping).
// DATA_LOSS naming `file` (and the tensor) when anything is off.
Status ParseHeader(std::string_view json, uint64_t data_size, const std::string& file,
                   Header* header);

// The bytes of a tensor of `dtype` and `shape`; false when the product overflows or the
// elements do not fill whole bytes (a sub-byte dtype).
bool TensorByteSize(const SafetensorsDtype& dtype, const std::vector<int64_t>& shape,
                    uint64_t* bytes);

// One tensor to write, in file order; `begin`/`end` are filled by SerializeHeader.
struct WriteEntry {
  std::string name;
  TensorEntry entry;
};

// Assigns consecutive offsets to `entries` (in their order) and returns the header's JSON,
// padded with spaces so the data starts 8-byte aligned (as the reference writer does), or
// page-aligned when there is a MiB of data or more (for direct I/O).
// INVALID_ARGUMENT naming the tensor whose name is not valid UTF-8.
Status SerializeHeader(std::vector<WriteEntry>* entries, std::string* json);

}  // namespace tgraph_safetensors
