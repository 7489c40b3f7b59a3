// Introspection: names, types, inputs, outputs, consumers, control edges, attrs, NodeDef.
#include <cmath>
#include <cstring>
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class IntrospectionTest : public CApiTest {};

TEST_F(IntrospectionTest, OperationBasics) {
  TG_Operation* a = Placeholder(TG_FLOAT, {2, 3}, "a");
  TG_Operation* b = Placeholder(TG_FLOAT, {3, 4}, "b");
  TG_OperationDescription* d = TG_NewOperation(g_, "MatMul", "m");
  TG_AddInput(d, Out(a));
  TG_AddInput(d, Out(b));
  TG_SetDevice(d, "/cpu:0");
  TG_Operation* m = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_STREQ(TG_OperationName(m), "m");
  EXPECT_STREQ(TG_OperationOpType(m), "MatMul");
  EXPECT_STREQ(TG_OperationDevice(m), "/device:CPU:0");
  EXPECT_STREQ(TG_OperationDevice(a), "");
  EXPECT_EQ(TG_OperationNumOutputs(m), 1);
  EXPECT_EQ(TG_OperationNumInputs(m), 2);
  EXPECT_EQ(TG_OperationOutputType(Out(m)), TG_FLOAT);
  EXPECT_EQ(TG_OperationOutputType(Out(m, 1)), TG_INVALID_DTYPE);
  EXPECT_EQ(TG_OperationInputType(TG_Input{m, 1}), TG_FLOAT);
  EXPECT_EQ(TG_OperationInputType(TG_Input{m, 2}), TG_INVALID_DTYPE);
  TG_Output in1 = TG_OperationInput(TG_Input{m, 1});
  EXPECT_EQ(in1.oper, b);
  EXPECT_EQ(in1.index, 0);
  EXPECT_EQ(TG_OperationInput(TG_Input{m, 5}).oper, nullptr);
  TG_Output all[2];
  TG_OperationAllInputs(m, all, 2);
  EXPECT_EQ(all[0].oper, a);
  EXPECT_EQ(all[1].oper, b);
  EXPECT_EQ(TG_OperationOutputListLength(m, "product", s_), 1);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(TG_OperationInputListLength(m, "b", s_), 1);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(TG_OperationInputListLength(m, "zz", s_), -1);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("'m'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("zz"), std::string::npos) << msg();
}

TEST_F(IntrospectionTest, NullOperationsAreNeutral) {
  EXPECT_EQ(TG_OperationName(nullptr), nullptr);
  EXPECT_EQ(TG_OperationOpType(nullptr), nullptr);
  EXPECT_EQ(TG_OperationDevice(nullptr), nullptr);
  EXPECT_EQ(TG_OperationNumOutputs(nullptr), 0);
  EXPECT_EQ(TG_OperationNumInputs(nullptr), 0);
  EXPECT_EQ(TG_OperationOutputType(TG_Output{nullptr, 0}), TG_INVALID_DTYPE);
  EXPECT_EQ(TG_OperationInputType(TG_Input{nullptr, 0}), TG_INVALID_DTYPE);
  EXPECT_EQ(TG_OperationInput(TG_Input{nullptr, 0}).oper, nullptr);
  EXPECT_EQ(TG_OperationOutputNumConsumers(TG_Output{nullptr, 0}), 0);
  EXPECT_EQ(TG_OperationOutputConsumers(TG_Output{nullptr, 0}, nullptr, 0), 0);
  EXPECT_EQ(TG_OperationNumControlInputs(nullptr), 0);
  EXPECT_EQ(TG_OperationNumControlOutputs(nullptr), 0);
  EXPECT_EQ(TG_OperationNumAttrs(nullptr), 0);
  EXPECT_EQ(TG_OperationAttrName(nullptr, 0), nullptr);
  TG_OperationGetAttrMetadata(nullptr, "x", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  int64_t v;
  TG_OperationGetAttrInt(nullptr, "x", &v, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_OperationToNodeDef(nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_OperationOutputListLength(nullptr, "x", s_), -1);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

TEST_F(IntrospectionTest, ConsumersAndControlEdges) {
  TG_Operation* a = ScalarConst(1, "a");
  TG_Operation* b = Binary("Add", a, a, "b");
  TG_ASSERT_OK(s_);
  TG_Operation* c = Identity(a, "c");
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_AddControlInput(d, b);
  TG_AddControlInput(d, c);
  TG_AddControlInput(d, b);  // duplicates collapse
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);

  EXPECT_EQ(TG_OperationOutputNumConsumers(Out(a)), 3);
  TG_Input consumers[3];
  EXPECT_EQ(TG_OperationOutputConsumers(Out(a), consumers, 3), 3);
  EXPECT_EQ(consumers[0].oper, b);
  EXPECT_EQ(consumers[0].index, 0);
  EXPECT_EQ(consumers[1].oper, b);
  EXPECT_EQ(consumers[1].index, 1);
  EXPECT_EQ(consumers[2].oper, c);
  // A short array gets what fits; the total is still returned.
  TG_Input one[1];
  EXPECT_EQ(TG_OperationOutputConsumers(Out(a), one, 1), 3);
  EXPECT_EQ(TG_OperationOutputNumConsumers(Out(a, 7)), 0);

  EXPECT_EQ(ControlInputNames(n), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(TG_OperationNumControlOutputs(b), 1);
  TG_Operation* outs[2] = {nullptr, nullptr};
  EXPECT_EQ(TG_OperationGetControlOutputs(b, outs, 2), 1);
  EXPECT_EQ(outs[0], n);
  EXPECT_EQ(TG_OperationNumControlInputs(a), 0);
  EXPECT_EQ(TG_OperationNumOutputs(n), 0);
}

TEST_F(IntrospectionTest, RefTypesOfVariables) {
  TG_OperationDescription* d = TG_NewOperation(g_, "VariableV2", "v");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  int64_t dims[] = {2};
  TG_SetAttrShape(d, "shape", dims, 1);
  TG_Operation* v = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_OperationOutputType(Out(v)), TG_FLOAT_REF);
  TG_Operation* init = FloatConst({2});
  TG_Operation* assign = Binary("Assign", v, init, "assign");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_OperationInputType(TG_Input{assign, 0}), TG_FLOAT_REF);
  EXPECT_EQ(TG_OperationInputType(TG_Input{assign, 1}), TG_FLOAT);
  TG_Operation* read = Identity(v, "read");
  EXPECT_EQ(TG_OperationOutputType(Out(read)), TG_FLOAT);
}

// Every scalar attr kind: set, read metadata, get.
TEST_F(IntrospectionTest, ScalarAttrsRoundTrip) {
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_SetAttrString(d, "_s", "hi\0there", 8);
  TG_SetAttrInt(d, "_i", -42);
  TG_SetAttrFloat(d, "_f", 2.5f);
  TG_SetAttrBool(d, "_b", 1);
  TG_SetAttrType(d, "_t", TG_INT64);
  int64_t dims[] = {2, -1, 3};
  TG_SetAttrShape(d, "_shape", dims, 3);
  TG_SetAttrShape(d, "_unknown", nullptr, -1);
  TG_Tensor* t = TG_AllocateTensor(TG_INT32, dims, 1, 2 * sizeof(int32_t));
  static_cast<int32_t*>(TG_TensorData(t))[1] = 7;
  TG_SetAttrTensor(d, "_tensor", t, s_);
  TG_DeleteTensor(t);
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);

  TG_AttrMetadata m = TG_OperationGetAttrMetadata(n, "_s", s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(m.is_list, 0);
  EXPECT_EQ(m.list_size, -1);
  EXPECT_EQ(m.type, TG_ATTR_STRING);
  EXPECT_EQ(m.total_size, 8);
  char buf[16] = {0};
  TG_OperationGetAttrString(n, "_s", buf, sizeof(buf), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(std::string(buf, 8), std::string("hi\0there", 8));
  char small[2] = {0, 0};
  TG_OperationGetAttrString(n, "_s", small, 2, s_);  // truncated copy
  TG_EXPECT_OK(s_);
  EXPECT_EQ(std::string(small, 2), "hi");

  int64_t i = 0;
  TG_OperationGetAttrInt(n, "_i", &i, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(i, -42);
  EXPECT_EQ(TG_OperationGetAttrMetadata(n, "_i", s_).type, TG_ATTR_INT);
  float f = 0;
  TG_OperationGetAttrFloat(n, "_f", &f, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(f, 2.5f);
  unsigned char b = 0;
  TG_OperationGetAttrBool(n, "_b", &b, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(b, 1);
  TG_DataType dt = TG_INVALID_DTYPE;
  TG_OperationGetAttrType(n, "_t", &dt, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(dt, TG_INT64);

  m = TG_OperationGetAttrMetadata(n, "_shape", s_);
  EXPECT_EQ(m.type, TG_ATTR_SHAPE);
  EXPECT_EQ(m.total_size, 3);
  int64_t got[3] = {0, 0, 0};
  TG_OperationGetAttrShape(n, "_shape", got, 3, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[2], 3);
  EXPECT_EQ(TG_OperationGetAttrMetadata(n, "_unknown", s_).total_size, -1);

  TG_Buffer* proto = TG_NewBuffer();
  TG_OperationGetAttrTensorShapeProto(n, "_shape", proto, s_);
  TG_ASSERT_OK(s_);
  EXPECT_GT(proto->length, 0u);
  // Feed the proto back through the setter: same shape.
  d = TG_NewOperation(g_, "NoOp", "n2");
  TG_SetAttrTensorShapeProto(d, "_shape", proto->data, proto->length, s_);
  TG_EXPECT_OK(s_);
  TG_Operation* n2 = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  int64_t got2[3] = {0, 0, 0};
  TG_OperationGetAttrShape(n2, "_shape", got2, 3, s_);
  EXPECT_EQ(got2[1], -1);
  EXPECT_EQ(got2[2], 3);
  TG_DeleteBuffer(proto);

  EXPECT_EQ(TG_OperationGetAttrMetadata(n, "_tensor", s_).type, TG_ATTR_TENSOR);
  TG_Tensor* back = nullptr;
  TG_OperationGetAttrTensor(n, "_tensor", &back, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_TensorType(back), TG_INT32);
  EXPECT_EQ(TG_Dim(back, 0), 2);
  EXPECT_EQ(static_cast<int32_t*>(TG_TensorData(back))[1], 7);
  TG_DeleteTensor(back);
}

TEST_F(IntrospectionTest, ListAttrsRoundTrip) {
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  const void* strs[] = {"ab", "", "cde"};
  size_t lens[] = {2, 0, 3};
  TG_SetAttrStringList(d, "_s", strs, lens, 3);
  int64_t ints[] = {1, -2, 3};
  TG_SetAttrIntList(d, "_i", ints, 3);
  float floats[] = {0.5f, 1.5f};
  TG_SetAttrFloatList(d, "_f", floats, 2);
  unsigned char bools[] = {1, 0, 1, 1};
  TG_SetAttrBoolList(d, "_b", bools, 4);
  TG_DataType types[] = {TG_FLOAT, TG_STRING};
  TG_SetAttrTypeList(d, "_t", types, 2);
  int64_t s0[] = {1, 2};
  int64_t s2[] = {-1};
  const int64_t* shapes[] = {s0, nullptr, s2};
  int ranks[] = {2, -1, 1};
  TG_SetAttrShapeList(d, "_shapes", shapes, ranks, 3);
  TG_SetAttrIntList(d, "_empty", nullptr, 0);
  TG_Tensor* t1 = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_Tensor* t2 = TG_AllocateTensor(TG_INT64, s0, 1, 8);
  const TG_Tensor* tensors[] = {t1, t2};
  TG_SetAttrTensorList(d, "_tensors", tensors, 2, s_);
  TG_DeleteTensor(t1);
  TG_DeleteTensor(t2);
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);

  EXPECT_EQ(StringListAttr(n, "_s"), (std::vector<std::string>{"ab", "", "cde"}));
  TG_AttrMetadata m = TG_OperationGetAttrMetadata(n, "_s", s_);
  EXPECT_EQ(m.is_list, 1);
  EXPECT_EQ(m.list_size, 3);
  EXPECT_EQ(m.total_size, 5);
  EXPECT_EQ(m.type, TG_ATTR_STRING);
  // Storage too small.
  void* values[3];
  size_t lengths[3];
  char storage[4];
  TG_OperationGetAttrStringList(n, "_s", values, lengths, 3, storage, 4, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);

  int64_t gi[3];
  TG_OperationGetAttrIntList(n, "_i", gi, 3, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(gi[1], -2);
  int64_t first[1];
  TG_OperationGetAttrIntList(n, "_i", first, 1, s_);  // fewer than there are
  TG_EXPECT_OK(s_);
  EXPECT_EQ(first[0], 1);
  m = TG_OperationGetAttrMetadata(n, "_i", s_);
  EXPECT_EQ(m.type, TG_ATTR_INT);
  EXPECT_EQ(m.list_size, 3);
  float gf[2];
  TG_OperationGetAttrFloatList(n, "_f", gf, 2, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(gf[1], 1.5f);
  unsigned char gb[4];
  TG_OperationGetAttrBoolList(n, "_b", gb, 4, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(gb[1], 0);
  EXPECT_EQ(gb[3], 1);
  TG_DataType gt[2];
  TG_OperationGetAttrTypeList(n, "_t", gt, 2, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(gt[1], TG_STRING);

  m = TG_OperationGetAttrMetadata(n, "_shapes", s_);
  EXPECT_EQ(m.type, TG_ATTR_SHAPE);
  EXPECT_EQ(m.list_size, 3);
  EXPECT_EQ(m.total_size, 3);
  int64_t* dims[3];
  int nd[3];
  int64_t shape_storage[3];
  TG_OperationGetAttrShapeList(n, "_shapes", dims, nd, 3, shape_storage, 3, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(nd[0], 2);
  EXPECT_EQ(dims[0][1], 2);
  EXPECT_EQ(nd[1], -1);
  EXPECT_EQ(dims[1], nullptr);
  EXPECT_EQ(nd[2], 1);
  EXPECT_EQ(dims[2][0], -1);
  TG_OperationGetAttrShapeList(n, "_shapes", dims, nd, 3, shape_storage, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);

  TG_Buffer* protos[3] = {nullptr, nullptr, nullptr};
  TG_OperationGetAttrTensorShapeProtoList(n, "_shapes", protos, 3, s_);
  TG_ASSERT_OK(s_);
  const void* proto_data[3];
  size_t proto_lens[3];
  for (int k = 0; k < 3; ++k) {
    proto_data[k] = protos[k]->data;
    proto_lens[k] = protos[k]->length;
  }
  d = TG_NewOperation(g_, "NoOp", "n2");
  TG_SetAttrTensorShapeProtoList(d, "_shapes", proto_data, proto_lens, 3, s_);
  TG_EXPECT_OK(s_);
  TG_Operation* n2 = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_OperationGetAttrMetadata(n2, "_shapes", s_).list_size, 3);
  for (TG_Buffer* p : protos) TG_DeleteBuffer(p);

  m = TG_OperationGetAttrMetadata(n, "_empty", s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(m.is_list, 1);
  EXPECT_EQ(m.list_size, 0);
  TG_OperationGetAttrIntList(n, "_empty", gi, 3, s_);
  TG_EXPECT_OK(s_);
  TG_OperationGetAttrFloatList(n, "_empty", gf, 2, s_);  // empty matches any list kind
  TG_EXPECT_OK(s_);

  TG_Tensor* got[2] = {nullptr, nullptr};
  TG_OperationGetAttrTensorList(n, "_tensors", got, 2, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_TensorType(got[0]), TG_FLOAT);
  EXPECT_EQ(TG_TensorType(got[1]), TG_INT64);
  EXPECT_EQ(TG_TensorElementCount(got[1]), 1);  // shape [1]
  TG_DeleteTensor(got[0]);
  TG_DeleteTensor(got[1]);
}

TEST_F(IntrospectionTest, EmptyListMetadataUsesTheOpDefinition) {
  // Placeholder's `shape` is a shape; no op in the core set has a list(type) default that is
  // empty, so use a '_' attr (no definition) and check that the call succeeds.
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_SetAttrTypeList(d, "_types", nullptr, 0);
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_AttrMetadata m = TG_OperationGetAttrMetadata(n, "_types", s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(m.is_list, 1);
  EXPECT_EQ(m.list_size, 0);
}

TEST_F(IntrospectionTest, AttrErrorsNameTheOpAndAttr) {
  TG_Operation* p = Placeholder(TG_FLOAT, {2}, "ph");
  int64_t v;
  TG_OperationGetAttrInt(p, "nope", &v, s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
  EXPECT_NE(msg().find("ph"), std::string::npos) << msg();
  EXPECT_NE(msg().find("nope"), std::string::npos) << msg();
  TG_OperationGetAttrInt(p, "dtype", &v, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("dtype"), std::string::npos) << msg();
  EXPECT_NE(msg().find("type"), std::string::npos) << msg();
  TG_OperationGetAttrIntList(p, "dtype", &v, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_Tensor* t = reinterpret_cast<TG_Tensor*>(0x1);
  TG_OperationGetAttrTensor(p, "shape", &t, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  TG_OperationGetAttrMetadata(p, "nope", s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
  TG_DataType dt;
  TG_OperationGetAttrType(p, "dtype", &dt, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(dt, TG_FLOAT);
}

TEST_F(IntrospectionTest, WalkAttrsInNameOrderWithDefaults) {
  TG_Operation* a = FloatConst({2, 2});
  TG_Operation* m = Binary("MatMul", a, a, "m");
  TG_ASSERT_OK(s_);
  std::vector<std::string> names;
  for (int i = 0; i < TG_OperationNumAttrs(m); ++i) names.push_back(TG_OperationAttrName(m, i));
  EXPECT_EQ(names, (std::vector<std::string>{"T", "grad_a", "grad_b", "transpose_a", "transpose_b"}));
  EXPECT_EQ(TG_OperationAttrName(m, 99), nullptr);
  EXPECT_EQ(TG_OperationAttrName(m, -1), nullptr);
  unsigned char ta = 9;
  TG_OperationGetAttrBool(m, "transpose_a", &ta, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(ta, 0);
}

TEST_F(IntrospectionTest, ValueProtoRoundTrip) {
  TG_Operation* p = Placeholder(TG_INT32, {3}, "p");
  TG_Buffer* buf = TG_NewBuffer();
  TG_OperationGetAttrValueProto(p, "shape", buf, s_);
  TG_ASSERT_OK(s_);
  TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", "q");
  TG_SetAttrType(d, "dtype", TG_INT32);
  TG_SetAttrValueProto(d, "shape", buf->data, buf->length, s_);
  TG_EXPECT_OK(s_);
  TG_Operation* q = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Shape(q), (std::vector<int64_t>{3}));
  TG_DeleteBuffer(buf);
}

TEST_F(IntrospectionTest, NodeDefHoldsNameOpInputsDeviceAttrs) {
  TG_Operation* a = ScalarConst(1, "alpha");
  TG_Operation* c = NoOp("ctl");
  TG_OperationDescription* d = TG_NewOperation(g_, "Identity", "beta");
  TG_AddInput(d, Out(a));
  TG_AddControlInput(d, c);
  TG_SetDevice(d, "/gpu:1");
  TG_Operation* b = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_Buffer* buf = TG_NewBuffer();
  TG_OperationToNodeDef(b, buf, s_);
  TG_ASSERT_OK(s_);
  std::string bytes(static_cast<const char*>(buf->data), buf->length);
  EXPECT_NE(bytes.find("beta"), std::string::npos);
  EXPECT_NE(bytes.find("Identity"), std::string::npos);
  EXPECT_NE(bytes.find("alpha"), std::string::npos);
  EXPECT_NE(bytes.find("^ctl"), std::string::npos);
  EXPECT_NE(bytes.find("/device:GPU:1"), std::string::npos);
  // The first field is `name` (field 1, length-delimited): 0x0a, 4, "beta".
  ASSERT_GE(bytes.size(), 6u);
  EXPECT_EQ(bytes[0], '\x0a');
  EXPECT_EQ(bytes[1], '\x04');
  TG_OperationToNodeDef(b, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteBuffer(buf);
}

}  // namespace
