#include "core/graph/proto_convert.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace tgraph {

void ShapeToProto(const PartialShape& shape, tf::TensorShapeProto* proto) {
  proto->Clear();
  if (!shape.known_rank()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dims()) proto->add_dim()->set_size(d);
}

StatusOr<PartialShape> ShapeFromProto(const tf::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return InvalidArgument("TensorShapeProto has unknown_rank set but also ", proto.dim_size(),
                             " dims");
    }
    return PartialShape::Unknown();
  }
  std::vector<int64_t> dims;
  dims.reserve(static_cast<size_t>(proto.dim_size()));
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  TG_RETURN_IF_ERROR(ValidatePartialShapeDims(dims));
  return PartialShape(std::move(dims));
}

void TensorToProto(const Tensor& tensor, tf::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(static_cast<tf::DataType>(tensor.dtype()));
  ShapeToProto(tensor.shape(), proto->mutable_tensor_shape());
  if (tensor.dtype() == DT_STRING) {
    for (const auto& s : tensor.strings()) proto->add_string_val(s);
  } else if (tensor.ByteSize() > 0) {
    proto->set_tensor_content(tensor.data(), tensor.ByteSize());
  }
}

namespace {

// A typed field may be shorter than the shape (TF pads with its last value), so a tiny
// proto could ask for a huge tensor. Padding may not make more than this many bytes; real
// data cannot exceed it either, since a protobuf message is limited to 2 GiB.
constexpr uint64_t kMaxPaddedBytes = uint64_t{1} << 31;

// The TensorProto field that carries values of `dtype` (proto/tgraph/proto/tensor.proto).
const char* TypedFieldName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return "float_val";
    case DT_DOUBLE: return "double_val";
    case DT_INT32: case DT_INT16: case DT_INT8: case DT_UINT8: case DT_UINT16:
    case DT_QINT8: case DT_QUINT8: case DT_QINT16: case DT_QUINT16: case DT_QINT32:
    case DT_INT4: case DT_UINT4: case DT_INT2: case DT_UINT2:
      return "int_val";
    case DT_STRING: return "string_val";
    case DT_COMPLEX64: return "scomplex_val";
    case DT_INT64: return "int64_val";
    case DT_BOOL: return "bool_val";
    case DT_COMPLEX128: return "dcomplex_val";
    case DT_HALF: case DT_BFLOAT16: return "half_val";
    case DT_UINT32: return "uint32_val";
    case DT_UINT64: return "uint64_val";
    case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E4M3FNUZ:
    case DT_FLOAT8_E4M3B11FNUZ: case DT_FLOAT8_E5M2FNUZ: case DT_FLOAT4_E2M1FN:
      return "float8_val";
    default: return "";
  }
}

struct FieldSize {
  const char* name;
  int64_t size;
};

// Sizes of every typed value field, to spot values in a field the dtype does not use.
std::array<FieldSize, 15> TypedFieldSizes(const tf::TensorProto& p) {
  return {{
      {"half_val", p.half_val_size()},
      {"float_val", p.float_val_size()},
      {"double_val", p.double_val_size()},
      {"int_val", p.int_val_size()},
      {"string_val", p.string_val_size()},
      {"scomplex_val", p.scomplex_val_size()},
      {"int64_val", p.int64_val_size()},
      {"bool_val", p.bool_val_size()},
      {"dcomplex_val", p.dcomplex_val_size()},
      {"resource_handle_val", p.resource_handle_val_size()},
      {"variant_val", p.variant_val_size()},
      {"uint32_val", p.uint32_val_size()},
      {"uint64_val", p.uint64_val_size()},
      {"float8_val", static_cast<int64_t>(p.float8_val().size())},
      {"tensor_content", static_cast<int64_t>(p.tensor_content().size())},
  }};
}

// Copies `have` values (get(i) converts value i) and pads the rest with the last one. The
// tensor is zero-filled already, which covers have == 0.
template <typename T, typename Get>
void FillElements(const Tensor& t, int64_t have, Get get) {
  T* out = t.flat<T>();
  const int64_t n = t.NumElements();
  if (have == 0) return;
  const int64_t copied = std::min(have, n);
  for (int64_t i = 0; i < copied; ++i) out[i] = static_cast<T>(get(i));
  if (copied > 0) std::fill(out + copied, out + n, out[copied - 1]);
}

template <typename T, typename Field>
void FillFromField(const Tensor& t, const Field& field) {
  FillElements<T>(t, field.size(), [&](int64_t i) { return field.Get(static_cast<int>(i)); });
}

// Complex values are (real, imag) pairs in a flat repeated field.
template <typename C, typename Field>
void FillComplex(const Tensor& t, const Field& field) {
  FillElements<C>(t, field.size() / 2, [&](int64_t i) {
    return C(field.Get(static_cast<int>(2 * i)), field.Get(static_cast<int>(2 * i + 1)));
  });
}

struct Complex64 {
  float re, im;
  Complex64() = default;
  Complex64(float r, float i) : re(r), im(i) {}
};
struct Complex128 {
  double re, im;
  Complex128() = default;
  Complex128(double r, double i) : re(r), im(i) {}
};

void FillTypedValues(const tf::TensorProto& p, const Tensor& t) {
  switch (t.dtype()) {
    case DT_FLOAT: FillFromField<float>(t, p.float_val()); break;
    case DT_DOUBLE: FillFromField<double>(t, p.double_val()); break;
    case DT_INT32: case DT_QINT32: FillFromField<int32_t>(t, p.int_val()); break;
    case DT_INT16: case DT_QINT16: FillFromField<int16_t>(t, p.int_val()); break;
    case DT_UINT16: case DT_QUINT16: FillFromField<uint16_t>(t, p.int_val()); break;
    case DT_INT8: case DT_QINT8: case DT_INT4: case DT_INT2:
      FillFromField<int8_t>(t, p.int_val());
      break;
    case DT_UINT8: case DT_QUINT8: case DT_UINT4: case DT_UINT2:
      FillFromField<uint8_t>(t, p.int_val());
      break;
    case DT_INT64: FillFromField<int64_t>(t, p.int64_val()); break;
    case DT_UINT32: FillFromField<uint32_t>(t, p.uint32_val()); break;
    case DT_UINT64: FillFromField<uint64_t>(t, p.uint64_val()); break;
    case DT_BOOL: FillFromField<bool>(t, p.bool_val()); break;
    // The 16-bit pattern sits in the low bits of an int32.
    case DT_HALF: case DT_BFLOAT16: FillFromField<uint16_t>(t, p.half_val()); break;
    case DT_COMPLEX64: FillComplex<Complex64>(t, p.scomplex_val()); break;
    case DT_COMPLEX128: FillComplex<Complex128>(t, p.dcomplex_val()); break;
    default: {  // float8 / float4: one byte per element in a bytes field
      const std::string& bytes = p.float8_val();
      FillElements<uint8_t>(t, static_cast<int64_t>(bytes.size()), [&](int64_t i) {
        return static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
      });
      break;
    }
  }
}

std::string Describe(DataType dtype, const PartialShape& shape) {
  return StrCat("TensorProto of dtype ", DataTypeName(dtype), " and shape ", shape.ToString());
}

// What a valid TensorProto decodes to, worked out without allocating the tensor.
struct TensorLayout {
  DataType dtype = DT_INVALID;
  PartialShape shape;
  int64_t num_elements = 0;
  bool from_content = false;  // tensor_content (raw bytes) rather than a typed field
};

Status CheckTensorProto(const tf::TensorProto& proto, TensorLayout* layout) {
  const int raw_dtype = proto.dtype();
  if (!IsValidDataType(raw_dtype) || IsRefType(static_cast<DataType>(raw_dtype))) {
    return InvalidArgument("TensorProto has invalid dtype ", raw_dtype);
  }
  const auto dtype = static_cast<DataType>(raw_dtype);
  if (dtype != DT_STRING && !IsPlainDataType(dtype)) {
    return InvalidArgument("cannot decode a TensorProto of dtype ", DataTypeName(dtype));
  }

  auto shape_or = ShapeFromProto(proto.tensor_shape());
  if (!shape_or.ok()) return shape_or.status().Prepend("TensorProto has a bad shape: ");
  const PartialShape& shape = shape_or.value();
  if (!shape.IsFullyDefined()) {
    return InvalidArgument("TensorProto of dtype ", DataTypeName(dtype), " has shape ",
                           shape.ToString(), "; a tensor's shape must be fully defined");
  }
  auto n_or = NumElementsOf(shape.dims());
  if (!n_or.ok()) return n_or.status().Prepend("TensorProto: ");
  const int64_t n = n_or.value();
  layout->dtype = dtype;
  layout->shape = shape;
  layout->num_elements = n;

  // Exactly one representation: tensor_content or the dtype's own typed field.
  const std::string own_field = TypedFieldName(dtype);
  int64_t have = 0;
  for (const FieldSize& f : TypedFieldSizes(proto)) {
    if (own_field == f.name) have = f.size;
    if (f.size == 0 || own_field == f.name) continue;
    if (std::strcmp(f.name, "tensor_content") == 0 && dtype != DT_STRING) continue;
    return InvalidArgument(Describe(dtype, shape), " has values in ", f.name,
                           ", which is not the field for that dtype (", own_field, ")");
  }

  if (dtype == DT_STRING) {
    if (have > n) {
      return InvalidArgument(Describe(dtype, shape), " has ", have, " string_val values for ",
                             n, " elements");
    }
    if (have < n) {
      const uint64_t last = have > 0 ? proto.string_val(static_cast<int>(have - 1)).size() : 0;
      if (static_cast<uint64_t>(n - have) > kMaxPaddedBytes / (sizeof(std::string) + last)) {
        return InvalidArgument(Describe(dtype, shape), " has only ", have,
                               " string_val values; padding to ", n,
                               " elements exceeds the limit of ", kMaxPaddedBytes, " bytes");
      }
    }
    return Status::OK();
  }

  const size_t elem = DataTypeSize(dtype);
  if (static_cast<uint64_t>(n) > std::numeric_limits<uint64_t>::max() / elem) {
    return InvalidArgument(Describe(dtype, shape), " is too large");
  }
  const uint64_t bytes = static_cast<uint64_t>(n) * elem;
  const std::string& content = proto.tensor_content();
  if (!content.empty()) {
    if (have > 0) {
      return InvalidArgument(Describe(dtype, shape), " sets both tensor_content and ", own_field);
    }
    if (content.size() != bytes) {
      return InvalidArgument(Describe(dtype, shape), " has ", content.size(),
                             " bytes of tensor_content; expected ", bytes);
    }
    layout->from_content = true;
    return Status::OK();
  }
  if (dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128) {
    if (have % 2 != 0) {
      return InvalidArgument(Describe(dtype, shape), " has an odd number (", have, ") of ",
                             own_field, " values; complex values come in (real, imag) pairs");
    }
    have /= 2;
  }
  if (have > n) {
    return InvalidArgument(Describe(dtype, shape), " has ", have, " values in ", own_field,
                           " for ", n, " elements");
  }
  if (have < n && bytes > kMaxPaddedBytes) {
    return InvalidArgument(Describe(dtype, shape), " holds ", have, " values but needs ", bytes,
                           " bytes; filling in the rest is limited to ", kMaxPaddedBytes,
                           " bytes");
  }
  return Status::OK();
}

}  // namespace

Status ValidateTensorProto(const tf::TensorProto& proto) {
  TensorLayout layout;
  return CheckTensorProto(proto, &layout);
}

StatusOr<Tensor> TensorFromProto(const tf::TensorProto& proto) {
  TensorLayout layout;
  TG_RETURN_IF_ERROR(CheckTensorProto(proto, &layout));
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(layout.dtype, layout.shape.dims()));
  if (layout.dtype == DT_STRING) {
    auto& out = t.strings();
    const int have = proto.string_val_size();
    for (int i = 0; i < have; ++i) out[static_cast<size_t>(i)] = proto.string_val(i);
    if (have > 0) std::fill(out.begin() + have, out.end(), out[static_cast<size_t>(have - 1)]);
  } else if (layout.from_content) {
    std::memcpy(t.data(), proto.tensor_content().data(), t.ByteSize());
    if (layout.dtype == DT_BOOL) {
      // Any byte other than 0/1 is not a valid bool; normalise instead of trusting it.
      auto* b = static_cast<uint8_t*>(t.data());
      for (size_t i = 0; i < t.ByteSize(); ++i) b[i] = b[i] != 0 ? 1 : 0;
    }
  } else {
    FillTypedValues(proto, t);
  }
  return t;
}

}  // namespace tgraph
