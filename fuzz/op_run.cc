// Fuzz target: one op of the registry built through the C API with fuzzed attrs and fuzzed
// Const inputs (dtypes, shapes, values: axes, indices, sizes, empty and extreme dims), and,
// when the graph accepts it, run on the CPU plugin. Covers attr validation, shape functions
// and the kernels' input checks: every outcome must be a status, never a crash, a hang, an
// uncaught exception or an allocation of what an input value claims.
//
// The input decodes as: op (4 bytes), then per attr (in definition order) whether to set it
// and its value, then per input argument its dtype (where the op leaves a choice), shape and
// values (fuzz/byte_reader.h). Ops that touch files or print are left out.
//
// The op is named by a hash of its name, not by its place in the registry: the 4 bytes are a
// point on a ring of the ops' 32-bit FNV-1a hashes, and the op is the first at or after it
// (OpHash, PickOp). An input whose 4 bytes are an op's hash runs that op whatever ops are
// added later (make_corpus.py writes the seeds so, one per op); any other value runs the op
// after it on the ring, which a new op changes only for the values just before its hash.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "byte_reader.h"
#include "tgraph/c_api.h"

namespace {

using tgraph::fuzz::ByteReader;

const std::map<std::string, TG_DataType>& TypeNames() {
  static const auto* names = new std::map<std::string, TG_DataType>{
      {"float", TG_FLOAT},     {"double", TG_DOUBLE},       {"int32", TG_INT32},
      {"uint8", TG_UINT8},     {"int16", TG_INT16},         {"int8", TG_INT8},
      {"string", TG_STRING},   {"complex64", TG_COMPLEX64}, {"int64", TG_INT64},
      {"bool", TG_BOOL},       {"qint8", TG_QINT8},         {"quint8", TG_QUINT8},
      {"qint32", TG_QINT32},   {"bfloat16", TG_BFLOAT16},   {"qint16", TG_QINT16},
      {"quint16", TG_QUINT16}, {"uint16", TG_UINT16},       {"complex128", TG_COMPLEX128},
      {"half", TG_HALF},       {"resource", TG_RESOURCE},   {"variant", TG_VARIANT},
      {"uint32", TG_UINT32},   {"uint64", TG_UINT64}};
  return *names;
}

// The dtypes tried where an attr allows any type.
constexpr TG_DataType kCommonTypes[] = {TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64, TG_BOOL,
                                        TG_STRING, TG_UINT8, TG_INT8, TG_HALF, TG_COMPLEX64};

enum class AttrKind { kType, kTypeList, kInt, kIntList, kFloat, kFloatList, kBool, kString,
                      kStringList, kShape, kTensor, kOther };

struct AttrSpec {
  std::string name;
  AttrKind kind = AttrKind::kOther;
  std::vector<TG_DataType> types;     // allowed types (empty: any)
  std::vector<std::string> strings;   // allowed strings (empty: any)
  bool has_default = false;
  TG_DataType default_type = TG_INVALID_DTYPE;  // "= int32" of a type attr
  bool is_count = false;                        // "N" of an input "N * T"
};

struct ArgSpec {
  bool is_ref = false;
  std::string count_attr;  // "N * T": N
  std::string type_attr;   // T, or a list(type) attr
  TG_DataType fixed = TG_INVALID_DTYPE;
};

struct OpSpec {
  std::string name;
  std::vector<ArgSpec> inputs;
  std::vector<AttrSpec> attrs;
};

std::string Trim(std::string s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "T: {float, double} = float", "N: int >= 1", "padding: {'SAME', 'VALID'} = 'SAME'".
AttrSpec ParseAttr(const std::string& spec) {
  AttrSpec a;
  const auto colon = spec.find(':');
  a.name = Trim(spec.substr(0, colon));
  std::string rest = Trim(spec.substr(colon + 1));
  const auto eq = rest.find(" = ");
  a.has_default = eq != std::string::npos;
  if (a.has_default) {
    if (auto it = TypeNames().find(Trim(rest.substr(eq + 3))); it != TypeNames().end()) {
      a.default_type = it->second;
    }
    rest = Trim(rest.substr(0, eq));
  }
  if (!rest.empty() && rest[0] == '{') {
    const std::string body = rest.substr(1, rest.find('}') - 1);
    size_t pos = 0;
    bool quoted = false;
    while (pos <= body.size()) {
      size_t comma = body.find(',', pos);
      if (comma == std::string::npos) comma = body.size();
      std::string item = Trim(body.substr(pos, comma - pos));
      if (!item.empty() && item[0] == '\'') {
        quoted = true;
        a.strings.push_back(item.substr(1, item.size() - 2));
      } else if (auto it = TypeNames().find(item); it != TypeNames().end()) {
        a.types.push_back(it->second);
      }
      pos = comma + 1;
    }
    a.kind = quoted ? AttrKind::kString : AttrKind::kType;
    return a;
  }
  const std::string kind = rest.substr(0, rest.find(' '));
  static const std::map<std::string, AttrKind> kKinds = {
      {"type", AttrKind::kType},         {"list(type)", AttrKind::kTypeList},
      {"int", AttrKind::kInt},           {"list(int)", AttrKind::kIntList},
      {"float", AttrKind::kFloat},       {"list(float)", AttrKind::kFloatList},
      {"bool", AttrKind::kBool},         {"string", AttrKind::kString},
      {"list(string)", AttrKind::kStringList}, {"shape", AttrKind::kShape},
      {"tensor", AttrKind::kTensor}};
  if (auto it = kKinds.find(kind); it != kKinds.end()) a.kind = it->second;
  return a;
}

// "x: T", "values: N * T", "ref: Ref(T)", "y: float", "outputs: Tout".
ArgSpec ParseArg(const std::string& spec) {
  ArgSpec arg;
  std::string type = Trim(spec.substr(spec.find(':') + 1));
  if (const auto star = type.find(" * "); star != std::string::npos) {
    arg.count_attr = Trim(type.substr(0, star));
    type = Trim(type.substr(star + 3));
  }
  if (type.rfind("Ref(", 0) == 0) {
    arg.is_ref = true;
    type = type.substr(4, type.size() - 5);
  }
  if (auto it = TypeNames().find(type); it != TypeNames().end()) {
    arg.fixed = it->second;
  } else {
    arg.type_attr = type;
  }
  return arg;
}

bool Excluded(const std::string& op) {
  // Files, the console, and ops that wait for others.
  static const char* const kWords[] = {"Save", "Restore", "File", "Print", "Merge", "Sharded",
                                       "Writer", "Queue", "Barrier"};
  for (const char* w : kWords) {
    if (op.find(w) != std::string::npos) return true;
  }
  return false;
}

// FNV-1a, 32 bits: the op's name as fuzz inputs give it (make_corpus.py computes the same).
uint32_t OpHash(const std::string& name) {
  uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return h;
}

struct Registry {
  std::vector<OpSpec> ops;  // ordered by (OpHash(name), name): the ring PickOp walks
  std::vector<uint32_t> hashes;
};

const Registry& Ops() {
  static const Registry* registry = [] {
    auto* r = new Registry;
    TG_Status* status = TG_NewStatus();
    for (int i = 0; i < TG_NumRegisteredOps(); ++i) {
      const std::string name = TG_RegisteredOpName(i);
      if (Excluded(name)) continue;
      TG_OpInfo* info = TG_NewOpInfo(name.c_str(), status);
      if (info == nullptr) continue;
      OpSpec op;
      op.name = name;
      for (int k = 0; k < TG_OpInfoNumInputs(info); ++k) {
        op.inputs.push_back(ParseArg(TG_OpInfoInput(info, k)));
      }
      for (int k = 0; k < TG_OpInfoNumAttrs(info); ++k) {
        op.attrs.push_back(ParseAttr(TG_OpInfoAttr(info, k)));
      }
      TG_DeleteOpInfo(info);
      for (AttrSpec& a : op.attrs) {
        for (const ArgSpec& arg : op.inputs) a.is_count |= arg.count_attr == a.name;
      }
      r->ops.push_back(std::move(op));
    }
    TG_DeleteStatus(status);
    std::sort(r->ops.begin(), r->ops.end(), [](const OpSpec& a, const OpSpec& b) {
      const uint32_t ha = OpHash(a.name), hb = OpHash(b.name);
      return ha != hb ? ha < hb : a.name < b.name;
    });
    for (const OpSpec& op : r->ops) r->hashes.push_back(OpHash(op.name));
    return r;
  }();
  return *registry;
}

// The first op on the ring at or after `point` (wrapping around).
const OpSpec& PickOp(uint32_t point) {
  const Registry& r = Ops();
  const auto it = std::lower_bound(r.hashes.begin(), r.hashes.end(), point);
  return r.ops[it == r.hashes.end() ? 0 : static_cast<size_t>(it - r.hashes.begin())];
}

// Attr values as decided, for the inputs' dtypes and counts.
struct Decided {
  std::map<std::string, TG_DataType> types;
  std::map<std::string, std::vector<TG_DataType>> type_lists;
  std::map<std::string, int64_t> ints;
};

TG_DataType PickType(ByteReader& in, const std::vector<TG_DataType>& allowed) {
  if (!allowed.empty() && in.U8() < 240) return allowed[in.Pick(allowed.size())];
  return kCommonTypes[in.Pick(std::size(kCommonTypes))];
}

// A small tensor of `dtype`: rank 0-4, each dim 0-4 (at most 64 elements), values from the
// input (integers biased to axes and indices).
// The shape of the input made last: most ops want inputs of one shape, so half the time the
// next input reuses it. Reset for each fuzz input.
struct LastShape {
  bool set = false;
  int rank = 0;
  int64_t dims[4] = {0, 0, 0, 0};
};
LastShape g_last_shape;

TG_Tensor* MakeTensor(ByteReader& in, TG_DataType dtype, TG_Status* status) {
  LastShape& last = g_last_shape;
  const bool reuse = last.set && in.U8() < 128;
  const int rank = reuse ? last.rank : static_cast<int>(in.Pick(5));
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    dims[i] = reuse ? last.dims[i] : static_cast<int64_t>(in.Pick(5));
    count *= dims[i];
  }
  last.set = true;
  last.rank = rank;
  std::copy(dims, dims + 4, last.dims);
  if (dtype == TG_STRING) {
    std::vector<std::string> values(static_cast<size_t>(count));
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (auto& v : values) {
      v = in.Bytes(8);
      ptrs.push_back(v.data());
      lens.push_back(v.size());
    }
    return TG_NewStringTensor(dims, rank, ptrs.data(), lens.data(), status);
  }
  const size_t unit = TG_DataTypeSize(dtype);
  if (unit == 0) return nullptr;
  std::vector<unsigned char> bytes(static_cast<size_t>(count) * unit);
  for (int64_t i = 0; i < count; ++i) {
    unsigned char* p = bytes.data() + static_cast<size_t>(i) * unit;
    if (dtype == TG_INT32) {
      const auto v = static_cast<int32_t>(in.Int());
      std::memcpy(p, &v, sizeof v);
    } else if (dtype == TG_INT64) {
      const int64_t v = in.Int();
      std::memcpy(p, &v, sizeof v);
    } else if (dtype == TG_BOOL) {
      *p = in.U8() & 1;
    } else if (dtype == TG_FLOAT) {
      static constexpr float kFloats[] = {0.f, 1.f, -1.f, 0.5f, 2.f, 1e30f, -1e-30f};
      const uint8_t k = in.U8();
      float v;
      if (k < 224) {
        v = kFloats[k % std::size(kFloats)];
      } else {
        in.Fill(&v, sizeof v);  // NaN, inf, denormals
      }
      std::memcpy(p, &v, sizeof v);
    } else {
      in.Fill(p, unit);
    }
  }
  return TG_NewTensorFromCopy(dtype, dims, rank, bytes.data(), bytes.size());
}

void SetAttr(ByteReader& in, TG_OperationDescription* desc, const AttrSpec& a, Decided* d,
             TG_Status* status) {
  const char* name = a.name.c_str();
  switch (a.kind) {
    case AttrKind::kType: {
      const TG_DataType t = PickType(in, a.types);
      d->types[a.name] = t;
      TG_SetAttrType(desc, name, t);
      break;
    }
    case AttrKind::kTypeList: {
      std::vector<TG_DataType> types(in.Pick(4));
      for (auto& t : types) t = PickType(in, a.types);
      d->type_lists[a.name] = types;
      TG_SetAttrTypeList(desc, name, types.data(), static_cast<int>(types.size()));
      break;
    }
    case AttrKind::kInt: {
      // A list length is mostly small, so that the inputs can match it.
      const int64_t v = a.is_count && in.U8() < 240 ? static_cast<int64_t>(in.Pick(5)) : in.Int();
      d->ints[a.name] = v;
      TG_SetAttrInt(desc, name, v);
      break;
    }
    case AttrKind::kIntList: {
      std::vector<int64_t> v(in.Pick(6));
      for (auto& x : v) x = in.Int();
      TG_SetAttrIntList(desc, name, v.data(), static_cast<int>(v.size()));
      break;
    }
    case AttrKind::kFloat: {
      float v;
      in.Fill(&v, sizeof v);
      TG_SetAttrFloat(desc, name, in.Bool() ? v : static_cast<float>(in.Int()));
      break;
    }
    case AttrKind::kFloatList: {
      std::vector<float> v(in.Pick(4));
      for (auto& x : v) x = static_cast<float>(in.Int());
      TG_SetAttrFloatList(desc, name, v.data(), static_cast<int>(v.size()));
      break;
    }
    case AttrKind::kBool:
      TG_SetAttrBool(desc, name, in.Bool() ? 1 : 0);
      break;
    case AttrKind::kString: {
      const std::string v = !a.strings.empty() && in.U8() < 240
                                ? a.strings[in.Pick(a.strings.size())]
                                : in.Bytes(16);
      TG_SetAttrString(desc, name, v.data(), v.size());
      break;
    }
    case AttrKind::kStringList: {
      std::vector<std::string> v(in.Pick(3));
      std::vector<const void*> ptrs;
      std::vector<size_t> lens;
      for (auto& s : v) {
        s = in.Bytes(8);
        ptrs.push_back(s.data());
        lens.push_back(s.size());
      }
      TG_SetAttrStringList(desc, name, ptrs.data(), lens.data(), static_cast<int>(v.size()));
      break;
    }
    case AttrKind::kShape: {
      const int rank = static_cast<int>(in.Pick(6)) - 1;  // -1: unknown rank
      int64_t dims[4] = {0, 0, 0, 0};
      for (int i = 0; i < rank && i < 4; ++i) dims[i] = in.Int();
      TG_SetAttrShape(desc, name, dims, std::min(rank, 4));
      break;
    }
    case AttrKind::kTensor: {
      const TG_DataType t = d->types.count("dtype") ? d->types["dtype"] : PickType(in, {});
      TG_Tensor* v = MakeTensor(in, t, status);
      if (v != nullptr) TG_SetAttrTensor(desc, name, v, status);
      TG_DeleteTensor(v);
      break;
    }
    case AttrKind::kOther:
      break;
  }
}

// TGRAPH_FUZZ_DEBUG=1 prints each op and how far it got (to tune the decoder and seeds).
bool Debug() {
  static const bool on = std::getenv("TGRAPH_FUZZ_DEBUG") != nullptr;
  return on;
}

void Report(const OpSpec& op, const char* stage, const TG_Status* status) {
  if (Debug()) std::fprintf(stderr, "%s: %s: %s\n", op.name.c_str(), stage, TG_Message(status));
}

TG_Operation* AddConst(TG_Graph* g, const std::string& name, TG_Tensor* value,
                       TG_Status* status) {
  TG_OperationDescription* desc = TG_NewOperation(g, "Const", name.c_str());
  TG_SetAttrTensor(desc, "value", value, status);
  TG_SetAttrType(desc, "dtype", TG_TensorType(value));
  return TG_FinishOperation(desc, status);
}

// A VariableV2 holding `init`'s value (its Assign goes to `inits`, run before the op): what a
// Ref input (Assign, Apply*, Scatter*) needs.
TG_Operation* AddVariable(TG_Graph* g, const std::string& name, const TG_Tensor* value,
                          TG_Operation* init, std::vector<const TG_Operation*>* inits,
                          TG_Status* status) {
  std::vector<int64_t> dims(static_cast<size_t>(TG_NumDims(value)));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = TG_Dim(value, static_cast<int>(i));
  TG_OperationDescription* desc = TG_NewOperation(g, "VariableV2", (name + "_var").c_str());
  TG_SetAttrType(desc, "dtype", TG_TensorType(value));
  TG_SetAttrShape(desc, "shape", dims.data(), static_cast<int>(dims.size()));
  TG_Operation* var = TG_FinishOperation(desc, status);
  if (var == nullptr) return nullptr;
  desc = TG_NewOperation(g, "Assign", (name + "_assign").c_str());
  TG_AddInput(desc, TG_Output{var, 0});
  TG_AddInput(desc, TG_Output{init, 0});
  TG_Operation* assign = TG_FinishOperation(desc, status);
  if (assign == nullptr) return nullptr;
  inits->push_back(assign);
  return var;
}

void RunOne(ByteReader& in, const OpSpec& op, TG_Graph* g, TG_Status* status) {
  std::vector<const TG_Operation*> init_ops;
  auto* inits = &init_ops;
  // Attrs first (their values decide the inputs' dtypes and counts), set on the description
  // after the inputs. An attr with a default is sometimes left to it.
  Decided d;
  TG_OperationDescription* desc = TG_NewOperation(g, op.name.c_str(), "op");
  for (const AttrSpec& a : op.attrs) {
    if (a.has_default && in.U8() < 64) {
      if (a.default_type != TG_INVALID_DTYPE) d.types[a.name] = a.default_type;
      continue;
    }
    SetAttr(in, desc, a, &d, status);
  }
  int const_index = 0;
  for (const ArgSpec& arg : op.inputs) {
    std::vector<TG_DataType> dtypes;
    const bool is_list = !arg.count_attr.empty() || d.type_lists.count(arg.type_attr) > 0;
    if (!arg.count_attr.empty()) {
      const int64_t n = d.ints.count(arg.count_attr) ? d.ints[arg.count_attr] : 1;
      const TG_DataType t = arg.fixed != TG_INVALID_DTYPE ? arg.fixed
                            : d.types.count(arg.type_attr) ? d.types[arg.type_attr]
                                                           : PickType(in, {});
      dtypes.assign(static_cast<size_t>(std::clamp<int64_t>(n, 0, 4)), t);
    } else if (d.type_lists.count(arg.type_attr)) {
      dtypes = d.type_lists[arg.type_attr];
    } else {
      dtypes.push_back(arg.fixed != TG_INVALID_DTYPE ? arg.fixed
                       : d.types.count(arg.type_attr) ? d.types[arg.type_attr]
                                                      : PickType(in, {}));
    }
    std::vector<TG_Output> outputs;
    for (TG_DataType t : dtypes) {
      TG_Tensor* value = MakeTensor(in, t, status);
      if (value == nullptr) {
        TG_AbandonOperation(desc);
        return;
      }
      std::string name = "c";
      name.append(std::to_string(const_index++));
      TG_Operation* c = AddConst(g, name, value, status);
      if (c != nullptr && arg.is_ref) c = AddVariable(g, name, value, c, inits, status);
      TG_DeleteTensor(value);
      if (c == nullptr) {
        Report(op, "input", status);
        TG_AbandonOperation(desc);
        return;
      }
      outputs.push_back(TG_Output{c, 0});
    }
    if (is_list) {
      TG_AddInputList(desc, outputs.data(), static_cast<int>(outputs.size()));
    } else {
      TG_AddInput(desc, outputs[0]);
    }
  }
  TG_Operation* oper = TG_FinishOperation(desc, status);
  if (oper == nullptr) {
    Report(op, "build", status);
    return;
  }

  // Run it: fetch every output (a stateful op with none is run as a target).
  std::vector<TG_Output> fetches;
  for (int i = 0; i < TG_OperationNumOutputs(oper); ++i) {
    if (static_cast<int>(TG_OperationOutputType(TG_Output{oper, i})) <
        TG_DATA_TYPE_REF_OFFSET) {
      fetches.push_back(TG_Output{oper, i});
    }
  }
  TG_SessionOptions* options = TG_NewSessionOptions();
  TG_SetSessionInterOpThreads(options, 1);
  TG_SetSessionIntraOpThreads(options, 1);
  TG_SetSessionAllowSoftPlacement(options, 1);
  TG_Session* session = TG_NewSession(g, options, status);
  TG_DeleteSessionOptions(options);
  if (session == nullptr) return;
  if (!init_ops.empty()) {
    TG_SessionRun(session, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, init_ops.data(),
                  static_cast<int>(init_ops.size()), nullptr, status);
    if (TG_GetCode(status) != TG_OK) {
      Report(op, "init", status);
      TG_DeleteSession(session, status);
      return;
    }
  }
  std::vector<TG_Tensor*> values(fetches.size(), nullptr);
  const TG_Operation* targets[] = {oper};
  TG_SessionRun(session, nullptr, nullptr, nullptr, 0, fetches.data(), values.data(),
                static_cast<int>(fetches.size()), targets, 1, nullptr, status);
  Report(op, "run", status);
  for (TG_Tensor* v : values) TG_DeleteTensor(v);
  TG_DeleteSession(session, status);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Kernels' outputs are sized by input values (Fill, Range, Tile, ...): a cap on one
  // tensor turns an absurd size into RESOURCE_EXHAUSTED long before the fuzzer's RSS limit.
  setenv("TGRAPH_MAX_TENSOR_BYTES", "268435456", 0);
  const char* plugin = std::getenv("TGRAPH_FUZZ_CPU_PLUGIN");
  if (plugin == nullptr || *plugin == '\0') plugin = TGRAPH_FUZZ_CPU_PLUGIN_PATH;
  if (*plugin == '\0') {
    std::fprintf(stderr, "op_run: no CPU plugin (set TGRAPH_FUZZ_CPU_PLUGIN)\n");
    std::exit(1);
  }
  TG_Status* status = TG_NewStatus();
  if (TG_LoadPlugin(plugin, status) == nullptr) {
    std::fprintf(stderr, "op_run: cannot load %s: %s\n", plugin, TG_Message(status));
    std::exit(1);
  }
  TG_DeleteStatus(status);
  if (Ops().ops.empty()) {
    std::fprintf(stderr, "op_run: no ops registered\n");
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  g_last_shape = LastShape();
  const uint32_t low = in.U16();
  const OpSpec& op = PickOp(low | static_cast<uint32_t>(in.U16()) << 16);
  TG_Status* status = TG_NewStatus();
  TG_Graph* g = TG_NewGraph();
  RunOne(in, op, g, status);
  TG_DeleteGraph(g);
  TG_DeleteStatus(status);
  return 0;
}
