// ReadNpy: a .npy file into a new tensor. Sizes come from the file's header, so every one is
// checked against the file's actual size before anything is allocated.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "byte_order.h"
#include "npy_header.h"
#include "numpy_dtype.h"
#include "owned_handles.h"
#include "tensor_io.h"
#include "utf8.h"

namespace tgraph::tool {
namespace {

// Header lengths beyond this are not something numpy writes; refusing them bounds the memory a
// hostile file can make us take before the shape is checked.
constexpr uint64_t kMaxHeaderLength = 1 << 20;

IoError OpenForReading(const std::string& path, FilePtr* file, uint64_t* size) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return Fail(TG_NOT_FOUND, "no such file");
  if (st.type() == fs::file_type::directory) return Fail(TG_INVALID_ARGUMENT, "is a directory");
  if (!ec && st.type() != fs::file_type::regular) {
    return Fail(TG_INVALID_ARGUMENT, "is not a regular file");
  }
  if (IoError e = OpenFile(path, "rb", file); !e.ok()) return e;
  *size = fs::file_size(path, ec);
  if (ec) return Fail(TG_UNKNOWN, "cannot get the size: " + ec.message());
  return Ok();
}

IoError ReadExactly(std::FILE* file, void* out, size_t size) {
  if (size > 0 && std::fread(out, 1, size, file) != size) {
    return Fail(TG_DATA_LOSS, "read failed (was the file changed while being read?)");
  }
  return Ok();
}

uint64_t LittleEndianValue(const unsigned char* bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = count; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

// The magic string, version and header length; on return the file is at the header's text.
IoError ReadPreamble(std::FILE* file, uint64_t file_size, uint64_t* header_length,
                     uint64_t* preamble_size) {
  unsigned char start[12] = {};
  const size_t available = static_cast<size_t>(std::min<uint64_t>(file_size, 12));
  if (IoError e = ReadExactly(file, start, available); !e.ok()) return e;
  const size_t magic_seen = std::min(available, kNpyMagic.size());
  if (std::memcmp(start, kNpyMagic.data(), magic_seen) != 0) {
    return Fail(TG_INVALID_ARGUMENT, "not a .npy file (no \\x93NUMPY magic string)");
  }
  if (available < 8) {
    return Fail(TG_DATA_LOSS,
                "truncated: " + std::to_string(file_size) + " bytes, shorter than a .npy preamble");
  }
  const int major = start[6], minor = start[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Fail(TG_UNIMPLEMENTED, "unsupported .npy format version " + std::to_string(major) + "." +
                                      std::to_string(minor) + " (1.0, 2.0, 3.0 are)");
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  *preamble_size = 8 + length_bytes;
  if (available < *preamble_size) {
    return Fail(TG_DATA_LOSS, "truncated inside the header length");
  }
  *header_length = LittleEndianValue(start + 8, length_bytes);
  if (*header_length > file_size - *preamble_size) {
    return Fail(TG_DATA_LOSS, "header length " + std::to_string(*header_length) +
                                  " exceeds the file's remaining " +
                                  std::to_string(file_size - *preamble_size) + " bytes");
  }
  if (*header_length > kMaxHeaderLength) {
    return Fail(TG_INVALID_ARGUMENT,
                "header length " + std::to_string(*header_length) + " is implausibly large");
  }
  // Position after what was read ahead of the header text.
  if (std::fseek(file, static_cast<long>(*preamble_size), SEEK_SET) != 0) {
    return Fail(TG_UNKNOWN, "cannot seek in the file");
  }
  return Ok();
}

IoError ElementCount(const std::vector<int64_t>& shape, size_t itemsize, int64_t* count,
                     uint64_t* bytes) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) {
      return Fail(TG_INVALID_ARGUMENT, "the shape " + ShapeRepr(shape) + " has too many elements");
    }
  }
  uint64_t b;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), static_cast<uint64_t>(itemsize), &b)) {
    return Fail(TG_INVALID_ARGUMENT, "the data of shape " + ShapeRepr(shape) + " overflows");
  }
  *count = n;
  *bytes = b;
  return Ok();
}

// Calls fn(c_index, fortran_index) for every element: where the element at row-major position
// c_index is stored in a column-major (Fortran-order) buffer.
template <typename Fn>
void ForEachFortranIndex(const std::vector<int64_t>& shape, int64_t count, Fn fn) {
  const size_t rank = shape.size();
  std::vector<int64_t> stride(rank), position(rank, 0);
  int64_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= shape[k];
  }
  int64_t fortran_index = 0;
  for (int64_t c_index = 0; c_index < count; ++c_index) {
    fn(c_index, fortran_index);
    for (size_t k = rank; k-- > 0;) {  // odometer over the row-major index, last axis fastest
      fortran_index += stride[k];
      if (++position[k] < shape[k]) break;
      fortran_index -= stride[k] * shape[k];
      position[k] = 0;
    }
  }
}

// One element of an 'S' (bytes) or 'U' (UCS-4, stored as UTF-8 in tgraph) array; numpy drops
// trailing NULs from both.
IoError DecodeStringElement(const char* data, const NpyDescr& descr, std::string* out) {
  if (descr.kind == 'S') {
    size_t len = descr.itemsize;
    while (len > 0 && data[len - 1] == '\0') --len;
    out->assign(data, len);
    return Ok();
  }
  size_t chars = descr.itemsize / 4;
  std::vector<uint32_t> code_points(chars);
  for (size_t i = 0; i < chars; ++i) {
    char word[4];
    std::memcpy(word, data + 4 * i, 4);
    if (NeedsSwap(descr.byte_order)) SwapWords(word, 4, 4);
    std::memcpy(&code_points[i], word, 4);
  }
  while (chars > 0 && code_points[chars - 1] == 0) --chars;
  out->clear();
  for (size_t i = 0; i < chars; ++i) {
    const uint32_t c = code_points[i];
    if (!IsUnicodeScalar(c)) {
      return Fail(TG_INVALID_ARGUMENT,
                  "a 'U' element holds an invalid code point " + std::to_string(c));
    }
    AppendUtf8(c, out);
  }
  return Ok();
}

IoError ReadStrings(std::FILE* file, const NpyHeader& header, const NpyDescr& descr, int64_t count,
                    uint64_t bytes, TensorPtr* out) {
  std::vector<char> data(static_cast<size_t>(bytes));
  if (IoError e = ReadExactly(file, data.data(), data.size()); !e.ok()) return e;
  std::vector<std::string> elements(static_cast<size_t>(count));
  IoError error = Ok();
  auto decode = [&](int64_t c_index, int64_t stored_index) {
    if (!error.ok()) return;
    error = DecodeStringElement(data.data() + static_cast<size_t>(stored_index) * descr.itemsize,
                                descr, &elements[static_cast<size_t>(c_index)]);
  };
  if (header.fortran_order) {
    ForEachFortranIndex(header.shape, count, decode);
  } else {
    for (int64_t i = 0; i < count; ++i) decode(i, i);
  }
  if (!error.ok()) return error;
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  pointers.reserve(elements.size());
  lengths.reserve(elements.size());
  for (const std::string& s : elements) {
    pointers.push_back(s.data());
    lengths.push_back(s.size());
  }
  StatusPtr status(TG_NewStatus());
  out->reset(TG_NewStringTensor(header.shape.data(), static_cast<int>(header.shape.size()),
                                pointers.data(), lengths.data(), status.get()));
  return ErrorOf(status.get());
}

IoError ReadNumbers(std::FILE* file, const NpyHeader& header, const NpyDescr& descr,
                    TG_DataType dtype, int64_t count, uint64_t bytes, TensorPtr* out) {
  const size_t size = static_cast<size_t>(bytes);
  out->reset(
      TG_AllocateTensor(dtype, header.shape.data(), static_cast<int>(header.shape.size()), size));
  if (*out == nullptr) {
    return Fail(TG_RESOURCE_EXHAUSTED,
                "cannot allocate a tensor of " + std::to_string(bytes) + " bytes");
  }
  char* target = static_cast<char*>(TG_TensorData(out->get()));
  if (size == 0) return Ok();
  if (header.fortran_order) {
    std::vector<char> stored(size);
    if (IoError e = ReadExactly(file, stored.data(), size); !e.ok()) return e;
    ForEachFortranIndex(header.shape, count, [&](int64_t c_index, int64_t stored_index) {
      std::memcpy(target + static_cast<size_t>(c_index) * descr.itemsize,
                  stored.data() + static_cast<size_t>(stored_index) * descr.itemsize,
                  descr.itemsize);
    });
  } else if (IoError e = ReadExactly(file, target, size); !e.ok()) {
    return e;
  }
  if (NeedsSwap(descr.byte_order)) {
    // A complex number is two floats, each in the file's byte order.
    SwapWords(target, size, descr.kind == 'c' ? descr.itemsize / 2 : descr.itemsize);
  }
  if (dtype == TG_BOOL) {
    // numpy reads any nonzero byte as True; tgraph's bools are 0 or 1.
    for (size_t i = 0; i < size; ++i) target[i] = target[i] != 0;
  }
  return Ok();
}

IoError ReadNpyFile(const std::string& path, TensorPtr* out) {
  FilePtr file;
  uint64_t file_size = 0;
  if (IoError e = OpenForReading(path, &file, &file_size); !e.ok()) return e;
  uint64_t header_length = 0, preamble_size = 0;
  if (IoError e = ReadPreamble(file.get(), file_size, &header_length, &preamble_size); !e.ok()) {
    return e;
  }
  std::string text(static_cast<size_t>(header_length), '\0');
  if (IoError e = ReadExactly(file.get(), text.data(), text.size()); !e.ok()) return e;
  NpyHeader header;
  if (IoError e = ParseNpyHeader(text, &header); !e.ok()) return e;
  NpyDescr descr;
  if (IoError e = ParseNpyDescr(header.descr, &descr); !e.ok()) return e;
  const bool is_string = descr.kind == 'S' || descr.kind == 'U';
  const TG_DataType dtype = is_string ? TG_STRING : DataTypeOfNumpy(descr.kind, descr.itemsize);
  if (dtype == TG_INVALID_DTYPE) {
    return Fail(TG_UNIMPLEMENTED, "descr '" + header.descr + "' has no tgraph type");
  }
  int64_t count = 0;
  uint64_t bytes = 0;
  if (IoError e = ElementCount(header.shape, descr.itemsize, &count, &bytes); !e.ok()) return e;
  const uint64_t remaining = file_size - preamble_size - header_length;
  if (bytes != remaining) {
    const std::string sizes = "the shape " + ShapeRepr(header.shape) + " of '" + header.descr +
                              "' needs " + std::to_string(bytes) + " bytes of data, the file has " +
                              std::to_string(remaining);
    return bytes > remaining ? Fail(TG_DATA_LOSS, "truncated: " + sizes)
                             : Fail(TG_INVALID_ARGUMENT, "trailing bytes: " + sizes);
  }
  return is_string ? ReadStrings(file.get(), header, descr, count, bytes, out)
                   : ReadNumbers(file.get(), header, descr, dtype, count, bytes, out);
}

}  // namespace

TG_Tensor* ReadNpy(const std::string& path, TG_Status* status) {
  TensorPtr tensor;
  if (IoError e = ReadNpyFile(path, &tensor); !e.ok()) {
    Report(e, "npy file '" + path + "'", status);
    return nullptr;
  }
  TG_SetStatus(status, TG_OK, "");
  return tensor.release();
}

}  // namespace tgraph::tool
