#include "checkpoint_info.h"

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "npy_files.h"
#include "tensor_io.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

using ReaderPtr = std::unique_ptr<TG_CheckpointReader, Deleter<TG_DeleteCheckpointReader>>;

struct TensorListing {
  std::string name;
  TG_DataType dtype = TG_INVALID_DTYPE;
  std::vector<int64_t> dims;
};

TensorListing Listing(const TG_CheckpointReader* reader, int index) {
  TensorListing t;
  t.name = TG_CheckpointReaderTensorName(reader, index);
  t.dtype = TG_CheckpointReaderTensorType(reader, index);
  t.dims.resize(static_cast<size_t>(TG_CheckpointReaderTensorNumDims(reader, index)));
  StatusPtr status = NewStatus();
  TG_CheckpointReaderTensorDims(reader, index, t.dims.data(), static_cast<int>(t.dims.size()),
                                status.get());
  Check(status.get(), t.name);
  return t;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

// Bytes of the tensor's elements; -1 for strings, whose size the listing does not know.
int64_t ByteSize(const TensorListing& t) {
  const size_t element = TG_DataTypeSize(t.dtype);
  if (element == 0) return -1;
  int64_t n = 1;
  for (int64_t d : t.dims) n *= d;
  return n * static_cast<int64_t>(element);
}

TensorPtr Read(const TG_CheckpointReader* reader, const std::string& prefix,
               const std::string& name) {
  StatusPtr status = NewStatus();
  TensorPtr tensor(TG_CheckpointReaderRead(reader, name.c_str(), status.get()));
  Check(status.get(), prefix);
  return tensor;
}

}  // namespace

std::string CheckpointPrefixOf(const std::string& path) {
  if (TG_CheckpointExists(path.c_str()) != 0) return path;
  static const std::regex kBundleFile(R"((.+)\.(index|data-\d{5}-of-\d{5}))");
  std::smatch match;
  if (std::regex_match(path, match, kBundleFile) && TG_CheckpointExists(match[1].str().c_str())) {
    return match[1].str();
  }
  return "";
}

void PrintCheckpointInfo(const CheckpointInfoOptions& options) {
  StatusPtr status = NewStatus();
  ReaderPtr reader(TG_NewCheckpointReader(options.prefix.c_str(), status.get()));
  Check(status.get(), options.prefix);
  const int count = TG_CheckpointReaderNumTensors(reader.get());
  std::vector<TensorListing> listing;
  int64_t total = 0;
  for (int i = 0; i < count; ++i) {
    listing.push_back(Listing(reader.get(), i));
    total += std::max<int64_t>(ByteSize(listing.back()), 0);
  }
  std::cout << options.prefix << ": checkpoint (" << TG_CheckpointReaderFormat(reader.get())
            << "), " << count << " tensor" << (count == 1 ? "" : "s") << ", " << total
            << " bytes (strings not counted)\n";
  for (const TensorListing& t : listing) {
    const int64_t bytes = ByteSize(t);
    std::cout << "  " << t.name << ": " << TG_DataTypeName(t.dtype) << " " << ShapeText(t.dims)
              << " (" << (bytes < 0 ? std::string("strings") : std::to_string(bytes) + " bytes")
              << ")\n";
  }
  for (const std::string& name : options.tensors) {
    TensorPtr tensor = Read(reader.get(), options.prefix, name);
    std::cout << name << " = " << FormatTensor(tensor.get()) << "\n";
  }
  if (options.npy_dir.empty()) return;
  if (options.tensors.empty()) {
    for (const TensorListing& t : listing) {
      WriteNpyFile(Read(reader.get(), options.prefix, t.name).get(), options.npy_dir, t.name);
    }
  } else {
    for (const std::string& name : options.tensors) {
      WriteNpyFile(Read(reader.get(), options.prefix, name).get(), options.npy_dir, name);
    }
  }
}

}  // namespace tgraph::tool
