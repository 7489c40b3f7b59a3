#include "header.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

namespace tgraph_safetensors {
namespace {

using nlohmann::json;

// The deepest any value of a valid header sits: root {} (0) > tensor {} (1) > "shape" [] (2)
// > a dim (3). Anything deeper is refused while parsing, before it is built.
constexpr int kMaxDepth = 3;

// Thrown from the parse callback to stop at the first structural problem.
struct StructureError {
  std::string message;
};

Status Corrupt(const std::string& file, std::string_view detail) {
  return DataLoss(StrCat("safetensors file '", file, "': ", detail));
}

Status CorruptTensor(const std::string& file, const std::string& name, std::string_view detail) {
  return DataLoss(StrCat("safetensors file '", file, "': tensor '", name, "': ", detail));
}

// Parses the JSON, refusing keys that repeat within an object (a JSON library keeps one of
// them silently; the file would then mean two things) and nesting deeper than kMaxDepth.
Status ParseJson(std::string_view text, const std::string& file, json* root) {
  std::vector<std::set<std::string>> open_objects;
  auto guard = [&open_objects](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) {
      throw StructureError{"values nested deeper than a safetensors header has them"};
    }
    switch (event) {
      case json::parse_event_t::object_start:
        open_objects.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        if (!open_objects.empty() && !open_objects.back().insert(key).second) {
          throw StructureError{StrCat("key '", key, "' appears twice in one object")};
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    *root = json::parse(text.begin(), text.end(), guard);
  } catch (const json::exception& e) {
    return Corrupt(file, StrCat("the header is not valid JSON (", e.what(), ")"));
  } catch (const StructureError& e) {
    return Corrupt(file, StrCat("bad header: ", e.message));
  }
  if (!root->is_object()) return Corrupt(file, "the header is not a JSON object");
  return Status();
}

// A JSON non-negative integer not above `max`.
bool ReadUnsigned(const json& value, uint64_t max, uint64_t* out) {
  if (!value.is_number_unsigned()) return false;
  *out = value.get<uint64_t>();
  return *out <= max;
}

Status ParseMetadata(const json& value, const std::string& file, Header* header) {
  if (!value.is_object()) return Corrupt(file, "'__metadata__' is not a JSON object");
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string()) {
      return Corrupt(file, StrCat("'__metadata__' value of '", key, "' is not a string"));
    }
    header->metadata.emplace(key, text.get<std::string>());
  }
  return Status();
}

Status ParseTensor(const std::string& name, const json& value, uint64_t data_size,
                   const std::string& file, TensorEntry* entry) {
  if (!value.is_object()) return CorruptTensor(file, name, "its entry is not a JSON object");
  const auto dtype = value.find("dtype");
  const auto shape = value.find("shape");
  const auto offsets = value.find("data_offsets");
  if (dtype == value.end() || shape == value.end() || offsets == value.end()) {
    return CorruptTensor(file, name, "its entry lacks one of dtype, shape and data_offsets");
  }
  if (!dtype->is_string()) return CorruptTensor(file, name, "dtype is not a string");
  const auto& dtype_name = dtype->get_ref<const std::string&>();
  entry->dtype = FindSafetensorsDtype(dtype_name);
  if (entry->dtype == nullptr) {
    return CorruptTensor(file, name, StrCat("unknown dtype '", dtype_name, "'"));
  }
  if (!shape->is_array()) return CorruptTensor(file, name, "shape is not a JSON array");
  entry->shape.clear();
  for (const json& dim : *shape) {
    uint64_t d = 0;
    if (!ReadUnsigned(dim, std::numeric_limits<int64_t>::max(), &d)) {
      return CorruptTensor(file, name, StrCat("shape ", shape->dump(),
                                              " holds something other than a dimension"));
    }
    entry->shape.push_back(static_cast<int64_t>(d));
  }
  if (!offsets->is_array() || offsets->size() != 2 ||
      !ReadUnsigned((*offsets)[0], data_size, &entry->begin) ||
      !ReadUnsigned((*offsets)[1], data_size, &entry->end) || entry->begin > entry->end) {
    return CorruptTensor(file, name,
                         StrCat("data_offsets ", offsets->dump(), " are not [begin, end] within ",
                                "the ", data_size, " bytes of data after the header"));
  }
  uint64_t expected = 0;
  if (!TensorByteSize(*entry->dtype, entry->shape, &expected)) {
    return CorruptTensor(file, name, StrCat("shape ", shape->dump(), " of ", dtype_name,
                                            " is not a whole number of bytes"));
  }
  if (entry->byte_size() != expected) {
    return CorruptTensor(file, name, StrCat("data_offsets ", offsets->dump(), " span ",
                                            entry->byte_size(), " bytes, but ", dtype_name,
                                            " of shape ", shape->dump(), " takes ", expected));
  }
  return Status();
}

// No byte of the data section belongs to two tensors.
Status CheckNoOverlap(const Header& header, const std::string& file) {
  std::vector<std::pair<const std::string*, const TensorEntry*>> ranges;
  for (const auto& [name, entry] : header.tensors) {
    if (entry.byte_size() > 0) ranges.emplace_back(&name, &entry);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    const auto& [prev_name, prev] = ranges[i - 1];
    const auto& [name, entry] = ranges[i];
    if (entry->begin < prev->end) {
      return CorruptTensor(file, *name, StrCat("its data [", entry->begin, ", ", entry->end,
                                               ") overlaps tensor '", *prev_name, "' [",
                                               prev->begin, ", ", prev->end, ")"));
    }
  }
  return Status();
}

}  // namespace

bool TensorByteSize(const SafetensorsDtype& dtype, const std::vector<int64_t>& shape,
                    uint64_t* bytes) {
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) return false;
    const auto ud = static_cast<uint64_t>(d);
    if (ud != 0 && elements > std::numeric_limits<uint64_t>::max() / ud) return false;
    elements *= ud;
  }
  const auto bits = static_cast<uint64_t>(dtype.bits);
  if (elements > std::numeric_limits<uint64_t>::max() / bits) return false;
  if (elements * bits % 8 != 0) return false;
  *bytes = elements * bits / 8;
  return true;
}

Status ParseHeader(std::string_view text, uint64_t data_size, const std::string& file,
                   Header* header) {
  json root;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(ParseJson(text, file, &root));
  header->tensors.clear();
  header->metadata.clear();
  for (const auto& [key, value] : root.items()) {
    if (key == kMetadataKey) {
      TGRAPH_SAFETENSORS_RETURN_IF_ERROR(ParseMetadata(value, file, header));
      continue;
    }
    TensorEntry entry;
    TGRAPH_SAFETENSORS_RETURN_IF_ERROR(ParseTensor(key, value, data_size, file, &entry));
    header->tensors.emplace(key, std::move(entry));
  }
  return CheckNoOverlap(*header, file);
}

Status SerializeHeader(std::vector<WriteEntry>* entries, std::string* text) {
  json root = json::object();
  uint64_t offset = 0;
  for (WriteEntry& e : *entries) {
    json name(e.name);
    try {
      (void)name.dump();  // throws on bytes that are not UTF-8
    } catch (const json::type_error&) {
      return InvalidArgument(StrCat("tensor name '", e.name, "' is not valid UTF-8, which a ",
                                    "safetensors header (JSON) cannot hold"));
    }
    uint64_t bytes = 0;
    if (!TensorByteSize(*e.entry.dtype, e.entry.shape, &bytes)) {
      return InvalidArgument(StrCat("tensor '", e.name, "': its shape has too many elements"));
    }
    e.entry.begin = offset;
    e.entry.end = offset + bytes;
    offset = e.entry.end;
    root[e.name] = json{{"dtype", e.entry.dtype->name},
                        {"shape", e.entry.shape},
                        {"data_offsets", json::array({e.entry.begin, e.entry.end})}};
  }
  *text = root.dump();
  // 8 bytes of length + the header end on an 8-byte boundary: every tensor's data then starts
  // aligned to its element size (the caller orders wider elements first). With a MiB of data
  // or more, on a 4096-byte boundary (the format allows trailing spaces in the header): the
  // data section then starts on a page, so that page-aligned tensors are written and read
  // O_DIRECT in place rather than through a staging copy (plugins/saver_io).
  const size_t boundary = offset >= (uint64_t{1} << 20) ? 4096 : 8;
  text->append((boundary - (8 + text->size()) % boundary) % boundary, ' ');
  return Status();
}

}  // namespace tgraph_safetensors
