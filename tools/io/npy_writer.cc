// WriteNpy: a tensor as a .npy file, byte for byte what numpy's np.save writes for the same
// array (native byte order, C order; TG_STRING as fixed-width bytes).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "npy_header.h"
#include "numpy_dtype.h"
#include "owned_handles.h"
#include "tensor_io.h"

namespace tgraph::tool {
namespace {

IoError Write(std::FILE* file, const void* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file) != size) {
    return Fail(TG_UNKNOWN, "write failed (disk full?)");
  }
  return Ok();
}

// The strings of a TG_STRING tensor, which numpy stores padded with NULs to the longest
// (at least one byte: numpy has no zero-width 'S').
IoError StringElements(const TG_Tensor* t, std::vector<std::string_view>* elements, size_t* width) {
  const int64_t count = TG_TensorElementCount(t);
  StatusPtr status(TG_NewStatus());
  *width = 1;
  for (int64_t i = 0; i < count; ++i) {
    const char* data = nullptr;
    size_t len = 0;
    TG_TensorGetString(t, i, &data, &len, status.get());
    if (IoError e = ErrorOf(status.get()); !e.ok()) return e;
    elements->emplace_back(data, len);
    *width = std::max(*width, len);
  }
  return Ok();
}

IoError WriteStringData(std::FILE* file, const std::vector<std::string_view>& elements,
                        size_t width) {
  const std::string padding(width, '\0');
  for (std::string_view s : elements) {
    if (IoError e = Write(file, s.data(), s.size()); !e.ok()) return e;
    if (IoError e = Write(file, padding.data(), width - s.size()); !e.ok()) return e;
  }
  return Ok();
}

IoError WriteNpyFile(const std::string& path, const TG_Tensor* t) {
  if (t == nullptr) return Fail(TG_INVALID_ARGUMENT, "the tensor is NULL");
  const TG_DataType dtype = TG_TensorType(t);
  const std::optional<NumpyType> numpy = NumpyTypeOf(dtype);
  if (!numpy) {
    const char* name = TG_DataTypeName(dtype);
    return Fail(TG_UNIMPLEMENTED, std::string("numpy has no type for tgraph's ") +
                                      (name != nullptr ? name : "unknown dtype") +
                                      " (.npy cannot hold it)");
  }
  NpyHeader header;
  for (int i = 0; i < TG_NumDims(t); ++i) header.shape.push_back(TG_Dim(t, i));
  std::vector<std::string_view> strings;
  size_t itemsize = numpy->itemsize;
  if (dtype == TG_STRING) {
    if (IoError e = StringElements(t, &strings, &itemsize); !e.ok()) return e;
  }
  const char native_order = std::endian::native == std::endian::little ? '<' : '>';
  const char order = dtype == TG_STRING || itemsize == 1 ? '|' : native_order;
  header.descr = std::string(1, order) + numpy->kind + std::to_string(itemsize);

  FilePtr file;
  if (IoError e = OpenFile(path, "wb", &file); !e.ok()) return e;
  const std::string preamble = EncodeNpyPreamble(header);
  IoError e = Write(file.get(), preamble.data(), preamble.size());
  if (e.ok()) {
    e = dtype == TG_STRING ? WriteStringData(file.get(), strings, itemsize)
                           : Write(file.get(), TG_TensorData(t), TG_TensorByteSize(t));
  }
  if (std::fclose(file.release()) != 0 && e.ok()) e = Fail(TG_UNKNOWN, "write failed on close");
  // A partial file would read back as truncated; better none at all (but never remove what
  // is not a plain file, such as /dev/full).
  std::error_code ec;
  if (!e.ok() && std::filesystem::is_regular_file(path, ec)) std::filesystem::remove(path, ec);
  return e;
}

}  // namespace

bool WriteNpy(const std::string& path, const TG_Tensor* t, TG_Status* status) {
  if (IoError e = WriteNpyFile(path, t); !e.ok()) {
    Report(e, "npy file '" + path + "'", status);
    return false;
  }
  TG_SetStatus(status, TG_OK, "");
  return true;
}

}  // namespace tgraph::tool
