// Reading operations: names, types, inputs, outputs, consumers, control edges, attrs (metadata,
// getters, iteration) and NodeDef export.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstring>

#include "c_api/src/c_api_internal.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/proto_convert.h"
#include "core/ops/op_registry.h"
#include "tgraph/proto/node_def.pb.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// The graph lock of the operation's graph.
std::recursive_mutex& MutexOf(const TG_Operation* oper) { return ToOp(oper)->graph()->mutex(); }

Status SerializeDeterministic(const google::protobuf::MessageLite& msg, std::string* out) {
  out->clear();
  {
    google::protobuf::io::StringOutputStream stream(out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!msg.SerializeToCodedStream(&coded)) return Internal("failed to serialize a proto");
  }
  return Status::OK();
}

TG_AttrType AttrTypeFromKind(const std::string& kind) {
  if (kind == "string") return TG_ATTR_STRING;
  if (kind == "int") return TG_ATTR_INT;
  if (kind == "float") return TG_ATTR_FLOAT;
  if (kind == "bool") return TG_ATTR_BOOL;
  if (kind == "type") return TG_ATTR_TYPE;
  if (kind == "shape") return TG_ATTR_SHAPE;
  if (kind == "tensor") return TG_ATTR_TENSOR;
  if (kind == "func") return TG_ATTR_FUNC;
  if (kind == "placeholder") return TG_ATTR_PLACEHOLDER;
  return TG_ATTR_STRING;
}

// The attr, or NOT_FOUND naming the op and the attr.
Status FindAttr(const char* fn, const TG_Operation* oper, const char* attr_name,
                const tf::AttrValue** out) {
  if (oper == nullptr) return NullArg(fn, "the operation");
  if (attr_name == nullptr) return NullArg(fn, "attr_name");
  const Operation* op = ToOp(oper);
  const tf::AttrValue* v = op->FindAttr(attr_name);
  if (v == nullptr) {
    return NotFound("operation '", op->name(), "' (", op->type(), ") has no attr named '",
                    attr_name, "'");
  }
  *out = v;
  return Status::OK();
}

Status WrongKind(const char* fn, const TG_Operation* oper, const char* attr_name,
                 const tf::AttrValue& v, const char* wanted) {
  return InvalidArgument(fn, ": attr '", attr_name, "' of operation '", ToOp(oper)->name(),
                         "' is ", AttrValueKind(v), ", not ", wanted);
}

// Looks up the attr and checks its kind; for lists, `list_field_size` tells whether the list
// holds the wanted kind (an empty list matches any list kind).
template <typename Body>
void AttrGetter(const char* fn, const TG_Operation* oper, const char* attr_name,
                TG_Status* status, Body&& body) {
  Guard(status, [&]() -> Status {
    if (oper == nullptr) return NullArg(fn, "the operation");
    GraphLock lock(MutexOf(oper));
    const tf::AttrValue* v = nullptr;
    TG_RETURN_IF_ERROR(FindAttr(fn, oper, attr_name, &v));
    return body(*v);
  });
}

bool ListHoldsOnly(const tf::AttrValue::ListValue& l, int wanted_size) {
  int total = l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
              l.shape_size() + l.tensor_size() + l.func_size();
  return total == wanted_size;
}

int Clamp(int max_values, int n) { return max_values < n ? (max_values < 0 ? 0 : max_values) : n; }

}  // namespace

// ---- names, types, edges ----

extern "C" const char* TG_OperationName(const TG_Operation* oper) {
  return oper == nullptr ? nullptr : ToOp(oper)->name().c_str();
}

extern "C" const char* TG_OperationOpType(const TG_Operation* oper) {
  return oper == nullptr ? nullptr : ToOp(oper)->type().c_str();
}

extern "C" const char* TG_OperationDevice(const TG_Operation* oper) {
  return oper == nullptr ? nullptr : ToOp(oper)->device().c_str();
}

extern "C" int TG_OperationNumOutputs(const TG_Operation* oper) {
  return oper == nullptr ? 0 : ToOp(oper)->num_outputs();
}

extern "C" TG_DataType TG_OperationOutputType(TG_Output oper_out) {
  if (!CheckOutput("", nullptr, oper_out).ok()) return TG_INVALID_DTYPE;
  return static_cast<TG_DataType>(ToOp(oper_out.oper)->output_type(oper_out.index));
}

namespace {
int ArgListLength(const char* fn, const TG_Operation* oper, const char* arg_name, bool input,
                  TG_Status* status) {
  return GuardValue<int>(status, -1, [&](int* out) -> Status {
    if (oper == nullptr) return NullArg(fn, "the operation");
    if (arg_name == nullptr) return NullArg(fn, "arg_name");
    const Operation* op = ToOp(oper);
    ArgRange r = input ? op->InputArgRange(arg_name) : op->OutputArgRange(arg_name);
    if (r.count < 0) {
      return InvalidArgument("operation '", op->name(), "' (", op->type(), ") has no ",
                             input ? "input" : "output", " argument named '", arg_name, "'");
    }
    *out = r.count;
    return Status::OK();
  });
}
}  // namespace

extern "C" int TG_OperationOutputListLength(const TG_Operation* oper, const char* arg_name,
                                            TG_Status* status) {
  return ArgListLength("TG_OperationOutputListLength", oper, arg_name, false, status);
}

extern "C" int TG_OperationNumInputs(const TG_Operation* oper) {
  return oper == nullptr ? 0 : ToOp(oper)->num_inputs();
}

extern "C" TG_DataType TG_OperationInputType(TG_Input oper_in) {
  if (oper_in.oper == nullptr) return TG_INVALID_DTYPE;
  const Operation* op = ToOp(oper_in.oper);
  if (oper_in.index < 0 || oper_in.index >= op->num_inputs()) return TG_INVALID_DTYPE;
  return static_cast<TG_DataType>(op->input_type(oper_in.index));
}

extern "C" int TG_OperationInputListLength(const TG_Operation* oper, const char* arg_name,
                                           TG_Status* status) {
  return ArgListLength("TG_OperationInputListLength", oper, arg_name, true, status);
}

extern "C" TG_Output TG_OperationInput(TG_Input oper_in) {
  if (oper_in.oper == nullptr) return NullOutput();
  const Operation* op = ToOp(oper_in.oper);
  if (oper_in.index < 0 || oper_in.index >= op->num_inputs()) return NullOutput();
  return ToC(op->input(oper_in.index));
}

extern "C" void TG_OperationAllInputs(const TG_Operation* oper, TG_Output* inputs,
                                      int max_inputs) {
  if (oper == nullptr || inputs == nullptr) return;
  const Operation* op = ToOp(oper);
  int n = Clamp(max_inputs, op->num_inputs());
  for (int i = 0; i < n; ++i) inputs[i] = ToC(op->input(i));
}

extern "C" int TG_OperationOutputNumConsumers(TG_Output oper_out) {
  if (!CheckOutput("", nullptr, oper_out).ok()) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(MutexOf(oper_out.oper));
    return static_cast<int>(ToOp(oper_out.oper)->consumers(oper_out.index).size());
  });
}

extern "C" int TG_OperationOutputConsumers(TG_Output oper_out, TG_Input* consumers,
                                           int max_consumers) {
  if (!CheckOutput("", nullptr, oper_out).ok()) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(MutexOf(oper_out.oper));
    const auto& list = ToOp(oper_out.oper)->consumers(oper_out.index);
    int total = static_cast<int>(list.size());
    if (consumers != nullptr) {
      int n = Clamp(max_consumers, total);
      for (int i = 0; i < n; ++i) {
        consumers[i] = TG_Input{ToC(list[static_cast<size_t>(i)].op), list[static_cast<size_t>(i)].index};
      }
    }
    return total;
  });
}

namespace {
int CopyOps(const TG_Operation* oper, bool inputs, TG_Operation** out, int max) {
  if (oper == nullptr) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(MutexOf(oper));
    const Operation* op = ToOp(oper);
    const auto& list = inputs ? op->control_inputs() : op->control_outputs();
    int total = static_cast<int>(list.size());
    if (out != nullptr) {
      int n = Clamp(max, total);
      for (int i = 0; i < n; ++i) out[i] = ToC(list[static_cast<size_t>(i)]);
    }
    return total;
  });
}
}  // namespace

extern "C" int TG_OperationNumControlInputs(const TG_Operation* oper) {
  return CopyOps(oper, true, nullptr, 0);
}

extern "C" int TG_OperationGetControlInputs(const TG_Operation* oper,
                                            TG_Operation** control_inputs,
                                            int max_control_inputs) {
  return CopyOps(oper, true, control_inputs, max_control_inputs);
}

extern "C" int TG_OperationNumControlOutputs(const TG_Operation* oper) {
  return CopyOps(oper, false, nullptr, 0);
}

extern "C" int TG_OperationGetControlOutputs(const TG_Operation* oper,
                                             TG_Operation** control_outputs,
                                             int max_control_outputs) {
  return CopyOps(oper, false, control_outputs, max_control_outputs);
}

// ---- attrs ----

extern "C" TG_AttrMetadata TG_OperationGetAttrMetadata(const TG_Operation* oper,
                                                       const char* attr_name,
                                                       TG_Status* status) {
  TG_AttrMetadata none{0, -1, TG_ATTR_STRING, -1};
  return GuardValue<TG_AttrMetadata>(status, none, [&](TG_AttrMetadata* m) -> Status {
    if (oper == nullptr) return NullArg("TG_OperationGetAttrMetadata", "the operation");
    GraphLock lock(MutexOf(oper));
    const tf::AttrValue* v = nullptr;
    TG_RETURN_IF_ERROR(FindAttr("TG_OperationGetAttrMetadata", oper, attr_name, &v));
    *m = none;
    if (v->value_case() == tf::AttrValue::kList) {
      const auto& l = v->list();
      m->is_list = 1;
      m->total_size = -1;
      if (l.s_size() > 0) {
        m->type = TG_ATTR_STRING;
        m->list_size = l.s_size();
        m->total_size = 0;
        for (const auto& s : l.s()) m->total_size += static_cast<int64_t>(s.size());
      } else if (l.i_size() > 0) {
        m->type = TG_ATTR_INT;
        m->list_size = l.i_size();
      } else if (l.f_size() > 0) {
        m->type = TG_ATTR_FLOAT;
        m->list_size = l.f_size();
      } else if (l.b_size() > 0) {
        m->type = TG_ATTR_BOOL;
        m->list_size = l.b_size();
      } else if (l.type_size() > 0) {
        m->type = TG_ATTR_TYPE;
        m->list_size = l.type_size();
      } else if (l.shape_size() > 0) {
        m->type = TG_ATTR_SHAPE;
        m->list_size = l.shape_size();
        m->total_size = 0;
        for (const auto& s : l.shape()) {
          if (!s.unknown_rank()) m->total_size += s.dim_size();
        }
      } else if (l.tensor_size() > 0) {
        m->type = TG_ATTR_TENSOR;
        m->list_size = l.tensor_size();
      } else if (l.func_size() > 0) {
        m->type = TG_ATTR_FUNC;
        m->list_size = l.func_size();
      } else {
        // An empty list: the element type the op definition declares.
        m->list_size = 0;
        for (const auto& def : ToOp(oper)->registration().op_def.attr()) {
          if (def.name() == attr_name) {
            const std::string& t = def.type();
            if (t.size() > 6 && t.rfind("list(", 0) == 0) {
              m->type = AttrTypeFromKind(t.substr(5, t.size() - 6));
            }
          }
        }
      }
      return Status::OK();
    }
    m->is_list = 0;
    m->list_size = -1;
    m->total_size = -1;
    switch (v->value_case()) {
      case tf::AttrValue::kS:
        m->type = TG_ATTR_STRING;
        m->total_size = static_cast<int64_t>(v->s().size());
        break;
      case tf::AttrValue::kI: m->type = TG_ATTR_INT; break;
      case tf::AttrValue::kF: m->type = TG_ATTR_FLOAT; break;
      case tf::AttrValue::kB: m->type = TG_ATTR_BOOL; break;
      case tf::AttrValue::kType: m->type = TG_ATTR_TYPE; break;
      case tf::AttrValue::kShape:
        m->type = TG_ATTR_SHAPE;
        m->total_size = v->shape().unknown_rank() ? -1 : v->shape().dim_size();
        break;
      case tf::AttrValue::kTensor: m->type = TG_ATTR_TENSOR; break;
      case tf::AttrValue::kFunc: m->type = TG_ATTR_FUNC; break;
      case tf::AttrValue::kPlaceholder: m->type = TG_ATTR_PLACEHOLDER; break;
      default:
        return InvalidArgument("attr '", attr_name, "' of operation '", ToOp(oper)->name(),
                               "' has no value");
    }
    return Status::OK();
  });
}

extern "C" int TG_OperationNumAttrs(const TG_Operation* oper) {
  if (oper == nullptr) return 0;
  return static_cast<int>(ToOp(oper)->attrs().size());
}

extern "C" const char* TG_OperationAttrName(const TG_Operation* oper, int i) {
  if (oper == nullptr) return nullptr;
  const AttrMap& attrs = ToOp(oper)->attrs();
  if (i < 0 || static_cast<size_t>(i) >= attrs.size()) return nullptr;
  auto it = attrs.begin();
  std::advance(it, i);
  return it->first.c_str();
}

extern "C" void TG_OperationGetAttrString(const TG_Operation* oper, const char* attr_name,
                                          void* value, size_t max_length, TG_Status* status) {
  const char* fn = "TG_OperationGetAttrString";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kS) return WrongKind(fn, oper, attr_name, v, "string");
    size_t n = std::min(max_length, v.s().size());
    if (n > 0 && value == nullptr) return NullArg(fn, "value");
    if (n > 0) std::memcpy(value, v.s().data(), n);
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrStringList(const TG_Operation* oper, const char* attr_name,
                                              void** values, size_t* lengths, int max_values,
                                              void* storage, size_t storage_size,
                                              TG_Status* status) {
  const char* fn = "TG_OperationGetAttrStringList";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kList || !ListHoldsOnly(v.list(), v.list().s_size())) {
      return WrongKind(fn, oper, attr_name, v, "list(string)");
    }
    int n = Clamp(max_values, v.list().s_size());
    if (n > 0 && (values == nullptr || lengths == nullptr)) return NullArg(fn, "values or lengths");
    size_t needed = 0;
    for (int i = 0; i < n; ++i) needed += v.list().s(i).size();
    if (needed > storage_size || (needed > 0 && storage == nullptr)) {
      return InvalidArgument(fn, ": attr '", attr_name, "' of operation '", ToOp(oper)->name(),
                             "' needs ", needed, " bytes of storage, got ", storage_size);
    }
    char* p = static_cast<char*>(storage);
    for (int i = 0; i < n; ++i) {
      const std::string& s = v.list().s(i);
      if (!s.empty()) std::memcpy(p, s.data(), s.size());
      values[i] = p;
      lengths[i] = s.size();
      p += s.size();
    }
    return Status::OK();
  });
}

// Scalar getters of one kind.
#define TG_SCALAR_GETTER(FnName, CType, Case, KindName, Expr)                                \
  extern "C" void FnName(const TG_Operation* oper, const char* attr_name, CType* value,      \
                         TG_Status* status) {                                                \
    AttrGetter(#FnName, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {     \
      if (v.value_case() != tf::AttrValue::Case) {                                           \
        return WrongKind(#FnName, oper, attr_name, v, KindName);                             \
      }                                                                                      \
      if (value == nullptr) return NullArg(#FnName, "value");                                \
      *value = (Expr);                                                                       \
      return Status::OK();                                                                   \
    });                                                                                      \
  }

TG_SCALAR_GETTER(TG_OperationGetAttrInt, int64_t, kI, "int", v.i())
TG_SCALAR_GETTER(TG_OperationGetAttrFloat, float, kF, "float", v.f())
TG_SCALAR_GETTER(TG_OperationGetAttrBool, unsigned char, kB, "bool",
                 static_cast<unsigned char>(v.b() ? 1 : 0))
#undef TG_SCALAR_GETTER

namespace {
// Stores a dtype value read from an attr. An attr set from raw AttrValue bytes may hold any
// int, which must not be materialised as a C++ enum value, so its bytes are copied.
void StoreDataType(TG_DataType* dst, int v) {
  static_assert(sizeof(TG_DataType) == sizeof(int), "C API enums are int-sized");
  std::memcpy(dst, &v, sizeof v);
}
}  // namespace

extern "C" void TG_OperationGetAttrType(const TG_Operation* oper, const char* attr_name,
                                        TG_DataType* value, TG_Status* status) {
  const char* fn = "TG_OperationGetAttrType";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kType) return WrongKind(fn, oper, attr_name, v, "type");
    if (value == nullptr) return NullArg(fn, "value");
    StoreDataType(value, static_cast<int>(v.type()));
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrTypeList(const TG_Operation* oper, const char* attr_name,
                                            TG_DataType* values, int max_values,
                                            TG_Status* status) {
  const char* fn = "TG_OperationGetAttrTypeList";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kList ||
        !ListHoldsOnly(v.list(), v.list().type_size())) {
      return WrongKind(fn, oper, attr_name, v, "list(type)");
    }
    int n = Clamp(max_values, v.list().type_size());
    if (n > 0 && values == nullptr) return NullArg(fn, "values");
    for (int i = 0; i < n; ++i) StoreDataType(&values[i], static_cast<int>(v.list().type(i)));
    return Status::OK();
  });
}

// List getters of one kind.
#define TG_LIST_GETTER(FnName, CType, Field, KindName, Conv)                                  \
  extern "C" void FnName(const TG_Operation* oper, const char* attr_name, CType* values,      \
                         int max_values, TG_Status* status) {                                \
    AttrGetter(#FnName, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {     \
      if (v.value_case() != tf::AttrValue::kList ||                                          \
          !ListHoldsOnly(v.list(), v.list().Field##_size())) {                               \
        return WrongKind(#FnName, oper, attr_name, v, KindName);                             \
      }                                                                                      \
      int n = Clamp(max_values, v.list().Field##_size());                                    \
      if (n > 0 && values == nullptr) return NullArg(#FnName, "values");                     \
      for (int i = 0; i < n; ++i) values[i] = Conv(v.list().Field(i));                       \
      return Status::OK();                                                                   \
    });                                                                                      \
  }

#define TG_CONV_SAME(x) (x)
#define TG_CONV_BOOL(x) static_cast<unsigned char>((x) ? 1 : 0)
TG_LIST_GETTER(TG_OperationGetAttrIntList, int64_t, i, "list(int)", TG_CONV_SAME)
TG_LIST_GETTER(TG_OperationGetAttrFloatList, float, f, "list(float)", TG_CONV_SAME)
TG_LIST_GETTER(TG_OperationGetAttrBoolList, unsigned char, b, "list(bool)", TG_CONV_BOOL)
#undef TG_CONV_SAME
#undef TG_CONV_BOOL
#undef TG_LIST_GETTER

extern "C" void TG_OperationGetAttrShape(const TG_Operation* oper, const char* attr_name,
                                         int64_t* value, int num_dims, TG_Status* status) {
  const char* fn = "TG_OperationGetAttrShape";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kShape) return WrongKind(fn, oper, attr_name, v, "shape");
    if (v.shape().unknown_rank()) return Status::OK();
    int n = Clamp(num_dims, v.shape().dim_size());
    if (n > 0 && value == nullptr) return NullArg(fn, "value");
    for (int i = 0; i < n; ++i) value[i] = v.shape().dim(i).size();
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrShapeList(const TG_Operation* oper, const char* attr_name,
                                             int64_t** dims, int* num_dims, int num_shapes,
                                             int64_t* storage, int storage_size,
                                             TG_Status* status) {
  const char* fn = "TG_OperationGetAttrShapeList";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kList ||
        !ListHoldsOnly(v.list(), v.list().shape_size())) {
      return WrongKind(fn, oper, attr_name, v, "list(shape)");
    }
    int n = Clamp(num_shapes, v.list().shape_size());
    if (n > 0 && (dims == nullptr || num_dims == nullptr)) return NullArg(fn, "dims or num_dims");
    int64_t needed = 0;
    for (int i = 0; i < n; ++i) {
      const auto& s = v.list().shape(i);
      if (!s.unknown_rank()) needed += s.dim_size();
    }
    if (needed > storage_size || (needed > 0 && storage == nullptr)) {
      return InvalidArgument(fn, ": attr '", attr_name, "' of operation '", ToOp(oper)->name(),
                             "' needs ", needed, " int64 entries of storage, got ", storage_size);
    }
    int64_t* p = storage;
    for (int i = 0; i < n; ++i) {
      const auto& s = v.list().shape(i);
      if (s.unknown_rank()) {
        num_dims[i] = -1;
        dims[i] = nullptr;
        continue;
      }
      num_dims[i] = s.dim_size();
      dims[i] = p;
      for (int d = 0; d < s.dim_size(); ++d) *p++ = s.dim(d).size();
    }
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrTensorShapeProto(const TG_Operation* oper,
                                                    const char* attr_name, TG_Buffer* value,
                                                    TG_Status* status) {
  const char* fn = "TG_OperationGetAttrTensorShapeProto";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kShape) return WrongKind(fn, oper, attr_name, v, "shape");
    if (value == nullptr) return NullArg(fn, "value");
    std::string bytes;
    TG_RETURN_IF_ERROR(SerializeDeterministic(v.shape(), &bytes));
    return FillBuffer(value, bytes);
  });
}

extern "C" void TG_OperationGetAttrTensorShapeProtoList(const TG_Operation* oper,
                                                        const char* attr_name,
                                                        TG_Buffer** values, int max_values,
                                                        TG_Status* status) {
  const char* fn = "TG_OperationGetAttrTensorShapeProtoList";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kList ||
        !ListHoldsOnly(v.list(), v.list().shape_size())) {
      return WrongKind(fn, oper, attr_name, v, "list(shape)");
    }
    int n = Clamp(max_values, v.list().shape_size());
    if (n > 0 && values == nullptr) return NullArg(fn, "values");
    std::vector<std::string> bytes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      TG_RETURN_IF_ERROR(SerializeDeterministic(v.list().shape(i), &bytes[static_cast<size_t>(i)]));
    }
    std::vector<TG_Buffer*> made;
    for (int i = 0; i < n; ++i) {
      TG_Buffer* b = TG_NewBufferFromString(bytes[static_cast<size_t>(i)].data(),
                                            bytes[static_cast<size_t>(i)].size());
      if (b == nullptr) {
        for (TG_Buffer* m : made) TG_DeleteBuffer(m);
        return ResourceExhausted("out of memory");
      }
      made.push_back(b);
    }
    for (int i = 0; i < n; ++i) values[i] = made[static_cast<size_t>(i)];
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrTensor(const TG_Operation* oper, const char* attr_name,
                                          TG_Tensor** value, TG_Status* status) {
  const char* fn = "TG_OperationGetAttrTensor";
  if (value != nullptr) *value = nullptr;
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kTensor) {
      return WrongKind(fn, oper, attr_name, v, "tensor");
    }
    if (value == nullptr) return NullArg(fn, "value");
    auto t = TensorFromProto(v.tensor());
    if (!t.ok()) {
      return t.status().Prepend(StrCat("attr '", attr_name, "' of operation '",
                                       ToOp(oper)->name(), "': "));
    }
    *value = new TG_Tensor{std::move(t).value()};
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrTensorList(const TG_Operation* oper, const char* attr_name,
                                              TG_Tensor** values, int max_values,
                                              TG_Status* status) {
  const char* fn = "TG_OperationGetAttrTensorList";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (v.value_case() != tf::AttrValue::kList ||
        !ListHoldsOnly(v.list(), v.list().tensor_size())) {
      return WrongKind(fn, oper, attr_name, v, "list(tensor)");
    }
    int n = Clamp(max_values, v.list().tensor_size());
    if (n > 0 && values == nullptr) return NullArg(fn, "values");
    std::vector<std::unique_ptr<TG_Tensor>> made;
    for (int i = 0; i < n; ++i) {
      auto t = TensorFromProto(v.list().tensor(i));
      if (!t.ok()) {
        return t.status().Prepend(StrCat("tensor ", i, " of attr '", attr_name,
                                         "' of operation '", ToOp(oper)->name(), "': "));
      }
      made.push_back(std::unique_ptr<TG_Tensor>(new TG_Tensor{std::move(t).value()}));
    }
    for (int i = 0; i < n; ++i) values[i] = made[static_cast<size_t>(i)].release();
    return Status::OK();
  });
}

extern "C" void TG_OperationGetAttrValueProto(const TG_Operation* oper, const char* attr_name,
                                              TG_Buffer* output, TG_Status* status) {
  const char* fn = "TG_OperationGetAttrValueProto";
  AttrGetter(fn, oper, attr_name, status, [&](const tf::AttrValue& v) -> Status {
    if (output == nullptr) return NullArg(fn, "output");
    std::string bytes;
    TG_RETURN_IF_ERROR(SerializeDeterministic(v, &bytes));
    return FillBuffer(output, bytes);
  });
}

extern "C" void TG_OperationToNodeDef(const TG_Operation* oper, TG_Buffer* output_node_def,
                                      TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (oper == nullptr) return NullArg("TG_OperationToNodeDef", "the operation");
    if (output_node_def == nullptr) return NullArg("TG_OperationToNodeDef", "output_node_def");
    GraphLock lock(MutexOf(oper));
    const Operation* op = ToOp(oper);
    tf::NodeDef node;
    node.set_name(op->name());
    node.set_op(op->type());
    for (const Output& in : op->inputs()) {
      node.add_input(in.index == 0 ? in.op->name() : in.op->name() + ":" + std::to_string(in.index));
    }
    for (const Operation* c : op->control_inputs()) node.add_input("^" + c->name());
    node.set_device(op->device());
    for (const auto& [name, value] : op->attrs()) (*node.mutable_attr())[name] = value;
    std::string bytes;
    TG_RETURN_IF_ERROR(SerializeDeterministic(node, &bytes));
    return FillBuffer(output_node_def, bytes);
  });
}
