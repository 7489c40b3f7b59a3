// The TG_CoreApi table called directly, as a plugin would: every member is set; registration
// only inside a load; struct_size rules (too small refused, fields beyond it absent, larger
// accepted); validation of registrations; statuses, tensors, attr getters, shape contexts.
#include "core/plugin/core_api.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/ops/op_registry.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"
#include "tests/core/plugin/plugin_test_util.h"

namespace tgraph {
namespace {

using testing::StatusIs;

const TG_CoreApi* api() { return CoreApi(); }

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void NoopCompute(void*, TG_KernelContext*) {}

TEST(CoreApiTest, EveryMemberIsSet) {
  const TG_CoreApi* a = api();
  EXPECT_EQ(a->struct_size, sizeof(TG_CoreApi));
  EXPECT_EQ(a->abi_version, TG_PLUGIN_ABI_VERSION);
  // Every pointer-sized slot after abi_version holds a function.
  const size_t first = offsetof(TG_CoreApi, set_status);
  for (size_t off = first; off + sizeof(void*) <= sizeof(TG_CoreApi); off += sizeof(void*)) {
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(a) + off, sizeof slot);
    EXPECT_NE(slot, nullptr) << "TG_CoreApi member at offset " << off << " is NULL";
  }
}

// A backend asks before registering a device type another backend may have taken (ABI 3).
TEST(CoreApiTest, DeviceTypeRegistered) {
  ASSERT_NE(testing::LoadGoodPlugin(), nullptr);
  EXPECT_EQ(api()->device_type_registered("TESTDEV"), 1);  // the good test plugin's device
  EXPECT_EQ(api()->device_type_registered("CPU_BUT_NOT_LOADED"), 0);
  EXPECT_EQ(api()->device_type_registered(""), 0);
  EXPECT_EQ(api()->device_type_registered(nullptr), 0);
}

TEST(CoreApiTest, RegistrationOutsideInitIsRefused) {
  TG_Status st;
  TG_OpDefinition op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "CoreApiTestOutsideInit";
  api()->register_op(&op, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(st.status.message(), "TG_PluginInit")) << st.status.message();
  EXPECT_EQ(OpRegistry::Global()->Find("CoreApiTestOutsideInit"), nullptr);
}

TEST(CoreApiTest, StatusCodes) {
  TG_Status st;
  api()->set_status(&st, TG_NOT_FOUND, "gone");
  EXPECT_EQ(api()->status_code(&st), TG_NOT_FOUND);
  EXPECT_EQ(st.status.message(), "gone");
  api()->set_status(&st, static_cast<TG_Code>(99), "odd");
  EXPECT_EQ(st.status.code(), Code::kUnknown);
  EXPECT_TRUE(Contains(st.status.message(), "invalid status code 99")) << st.status.message();
  api()->set_status(&st, TG_OK, "ignored");
  EXPECT_TRUE(st.status.ok());
  api()->set_status(&st, TG_INTERNAL, nullptr);
  EXPECT_EQ(st.status.code(), Code::kInternal);
  api()->set_status(nullptr, TG_INTERNAL, "nobody listens");
  EXPECT_EQ(api()->status_code(nullptr), TG_INVALID_ARGUMENT);
  api()->log(TG_LOG_INFO, "info is quiet unless TGRAPH_LOG_PLUGIN_INFO is set");
}

TEST(CoreApiTest, HostTensors) {
  TG_Status st;
  const int64_t dims[] = {2, 3};
  TG_Tensor* t = api()->new_host_tensor(TG_FLOAT, dims, 2, &st);
  ASSERT_NE(t, nullptr) << st.status.ToString();
  EXPECT_EQ(api()->tensor_dtype(t), TG_FLOAT);
  EXPECT_EQ(api()->tensor_num_dims(t), 2);
  EXPECT_EQ(api()->tensor_dim(t, 1), 3);
  EXPECT_EQ(api()->tensor_dim(t, 2), -1);
  EXPECT_EQ(api()->tensor_num_elements(t), 6);
  EXPECT_EQ(api()->tensor_byte_size(t), 24u);
  EXPECT_NE(api()->tensor_data(t), nullptr);
  api()->delete_host_tensor(t);

  const int64_t empty_dims[] = {0};
  TG_Tensor* empty = api()->new_host_tensor(TG_INT32, empty_dims, 1, &st);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(api()->tensor_data(empty), nullptr);  // zero bytes
  api()->delete_host_tensor(empty);

  const int64_t one[] = {2};
  TG_Tensor* s = api()->new_host_tensor(TG_STRING, one, 1, &st);
  ASSERT_NE(s, nullptr);
  api()->tensor_set_string(s, 1, "a\0b", 3);
  api()->tensor_set_string(s, 5, "out of range", 12);  // ignored
  const char* data = nullptr;
  size_t len = 0;
  api()->tensor_get_string(s, 1, &data, &len);
  EXPECT_EQ(std::string(data, len), std::string("a\0b", 3));
  api()->tensor_get_string(s, 9, &data, &len);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(len, 0u);
  api()->delete_host_tensor(s);

  const int64_t bad[] = {-1};
  EXPECT_EQ(api()->new_host_tensor(TG_FLOAT, bad, 1, &st), nullptr);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_EQ(api()->new_host_tensor(static_cast<TG_DataType>(77), one, 1, &st), nullptr);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_EQ(api()->new_host_tensor(TG_FLOAT, nullptr, 2, &st), nullptr);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_EQ(api()->tensor_dtype(nullptr), TG_INVALID_DTYPE);
  EXPECT_EQ(api()->tensor_num_dims(nullptr), -1);
}

// tensor_info and input_info (ABI 4): what several calls read, in one.
TEST(CoreApiTest, TensorInfo) {
  TG_Status st;
  const int64_t dims[] = {2, 3};
  TG_Tensor* t = api()->new_host_tensor(TG_FLOAT, dims, 2, &st);
  ASSERT_NE(t, nullptr) << st.status.ToString();
  TG_TensorInfo info{sizeof info, TG_INVALID_DTYPE, -1, nullptr, 0, nullptr};
  api()->tensor_info(t, &info);
  EXPECT_EQ(info.struct_size, sizeof info);
  EXPECT_EQ(info.dtype, TG_FLOAT);
  ASSERT_EQ(info.num_dims, 2);
  EXPECT_EQ(info.dims[0], 2);
  EXPECT_EQ(info.dims[1], 3);
  EXPECT_EQ(info.num_elements, 6);
  EXPECT_EQ(info.data, api()->tensor_data(t));
  EXPECT_NE(info.data, nullptr);

  // A plugin whose struct stops after num_dims gets nothing written past it.
  TG_TensorInfo small{offsetof(TG_TensorInfo, dims), TG_INVALID_DTYPE, -1, nullptr, -7, nullptr};
  api()->tensor_info(t, &small);
  EXPECT_EQ(small.dtype, TG_FLOAT);
  EXPECT_EQ(small.num_dims, 2);
  EXPECT_EQ(small.dims, nullptr);
  EXPECT_EQ(small.num_elements, -7);
  api()->delete_host_tensor(t);

  // Scalars have no dims pointer; zero-byte tensors no data; NULL reads as TG_INVALID_DTYPE.
  TG_Tensor* scalar = api()->new_host_tensor(TG_INT64, nullptr, 0, &st);
  ASSERT_NE(scalar, nullptr) << st.status.ToString();
  api()->tensor_info(scalar, &info);
  EXPECT_EQ(info.dtype, TG_INT64);
  EXPECT_EQ(info.num_dims, 0);
  EXPECT_EQ(info.dims, nullptr);
  EXPECT_EQ(info.num_elements, 1);
  EXPECT_NE(info.data, nullptr);
  api()->delete_host_tensor(scalar);
  const int64_t zero[] = {0};
  TG_Tensor* empty = api()->new_host_tensor(TG_INT32, zero, 1, &st);
  ASSERT_NE(empty, nullptr);
  api()->tensor_info(empty, &info);
  EXPECT_EQ(info.num_elements, 0);
  EXPECT_EQ(info.data, nullptr);
  api()->delete_host_tensor(empty);
  api()->tensor_info(nullptr, &info);
  EXPECT_EQ(info.dtype, TG_INVALID_DTYPE);
  EXPECT_EQ(info.num_dims, -1);
  EXPECT_EQ(info.dims, nullptr);
  api()->tensor_info(nullptr, nullptr);  // nothing to fill: no crash

  TG_KernelContext ctx;
  ctx.inputs.resize(1);
  ctx.inputs[0].value = &ctx.inputs[0].own;
  ctx.inputs[0].own.tensor = Tensor::Allocate(DT_DOUBLE, {4}).value();
  TG_TensorInfo in{sizeof in, TG_INVALID_DTYPE, -1, nullptr, 0, nullptr};
  EXPECT_EQ(api()->input_info(&ctx, 0, &in), ctx.inputs[0].value);
  EXPECT_EQ(in.dtype, TG_DOUBLE);
  ASSERT_EQ(in.num_dims, 1);
  EXPECT_EQ(in.dims[0], 4);
  EXPECT_EQ(in.data, ctx.inputs[0].own.tensor.data());
  TG_TensorInfo untouched{sizeof untouched, TG_INVALID_DTYPE, -5, nullptr, 0, nullptr};
  EXPECT_EQ(api()->input_info(&ctx, 1, &untouched), nullptr);
  EXPECT_EQ(api()->input_info(&ctx, -1, &untouched), nullptr);
  EXPECT_EQ(api()->input_info(nullptr, 0, &untouched), nullptr);
  EXPECT_EQ(untouched.num_dims, -5);
}

TEST(CoreApiTest, PoolFunctionsWithoutAPool) {
  EXPECT_EQ(api()->pool_num_threads(nullptr), 1);
  EXPECT_EQ(api()->pool_num_threads(ThreadPool::InlineHandle()), 1);
  EXPECT_EQ(api()->pool_current_thread_id(ThreadPool::InlineHandle()), -1);
  int64_t covered = 0;
  api()->parallel_for(nullptr, 10, 1e9,
                      [](void* arg, int64_t b, int64_t e) { *static_cast<int64_t*>(arg) += e - b; },
                      &covered);
  EXPECT_EQ(covered, 10);
  int ran = 0;
  api()->pool_schedule(nullptr, [](void* arg) { ++*static_cast<int*>(arg); }, &ran);
  EXPECT_EQ(ran, 1);
  ThreadPool pool(2);
  EXPECT_EQ(api()->pool_num_threads(pool.c_handle()), 2);
}

// ---- registration records, inside a (fake) load ----

class RegistrationTest : public ::testing::Test {
 protected:
  RegistrationTest() : regs_("/fake/libtest.so"), scope_(&regs_) {}

  static TG_KernelDefinition Kernel(const char* op) {
    TG_KernelDefinition k;
    std::memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.op_type = op;
    k.device_type = "CPU";
    k.compute = NoopCompute;
    return k;
  }
  Status Register(const TG_KernelDefinition& k) {
    TG_Status st;
    api()->register_kernel(&k, &st);
    return st.status;
  }
  Status Register(const TG_OpDefinition& op) {
    TG_Status st;
    api()->register_op(&op, &st);
    return st.status;
  }

  PluginRegistrations regs_;
  PluginRegistrations::Scope scope_;
};

TEST_F(RegistrationTest, StructSizeTooSmallIsRefused) {
  TG_KernelDefinition k = Kernel("Identity");
  k.struct_size = offsetof(TG_KernelDefinition, compute);  // compute not covered
  Status s = Register(k);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "/fake/libtest.so")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "struct_size")) << s.message();
  EXPECT_EQ(regs_.first_error().code(), Code::kInvalidArgument);
}

TEST_F(RegistrationTest, FieldsBeyondStructSizeAreAbsent) {
  // A plugin whose TG_KernelDefinition ends before `priority`: whatever lies beyond (here
  // garbage) must read as 0.
  TG_KernelDefinition k = Kernel("Identity");
  k.device_type = "STRUCTSIZE_TEST";
  k.priority = 77;
  k.cost_ns_per_element = 5;
  k.user_data = reinterpret_cast<void*>(0x1234);
  k.struct_size = offsetof(TG_KernelDefinition, user_data);
  ASSERT_TRUE(Register(k).ok()) << regs_.first_error().ToString();
  // A larger struct (a plugin with fields this core does not know) is fine too.
  std::vector<char> bigger(sizeof(TG_KernelDefinition) + 64, 0x5a);
  TG_KernelDefinition k2 = Kernel("Identity");
  k2.device_type = "STRUCTSIZE_TEST";
  k2.priority = 3;
  k2.struct_size = bigger.size();
  std::memcpy(bigger.data(), &k2, sizeof k2);
  TG_Status st;
  api()->register_kernel(reinterpret_cast<const TG_KernelDefinition*>(bigger.data()), &st);
  ASSERT_TRUE(st.status.ok()) << st.status.ToString();

  static LoadedPlugin fake;
  fake.name = "fake";
  ASSERT_TRUE(regs_.Commit(&fake).ok());
  std::vector<const KernelRegistration*> ks;
  for (const KernelRegistration* r : KernelRegistry::Global()->KernelsFor("Identity")) {
    if (r->device_type == "STRUCTSIZE_TEST") ks.push_back(r);
  }
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0]->priority, 0);
  EXPECT_EQ(ks[0]->cost_ns_per_element, 0);
  EXPECT_EQ(ks[0]->user_data, nullptr);
  EXPECT_EQ(ks[0]->plugin, &fake);
  EXPECT_EQ(ks[1]->priority, 3);
}

TEST_F(RegistrationTest, KernelValidation) {
  TG_KernelDefinition k = Kernel("Identity");
  k.device_type = "not a device";
  EXPECT_TRUE(StatusIs(Register(k), Code::kInvalidArgument));

  k = Kernel("Identity");
  k.compute = nullptr;
  EXPECT_TRUE(StatusIs(Register(k), Code::kInvalidArgument));

  // A constraint on an attr that is not a type attr.
  TG_TypeConstraint c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  c.attr_name = "use_locking";
  const TG_DataType f[] = {TG_FLOAT};
  c.allowed = f;
  c.num_allowed = 1;
  k = Kernel("AssignAdd");
  k.type_constraints = &c;
  k.num_type_constraints = 1;
  Status s = Register(k);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "'use_locking', which is not a type attr")) << s.message();

  // An invalid dtype.
  c.attr_name = "T";
  const TG_DataType bad[] = {static_cast<TG_DataType>(55)};
  c.allowed = bad;
  EXPECT_TRUE(StatusIs(Register(k), Code::kInvalidArgument));

  // A host-memory arg the op does not have.
  k = Kernel("Identity");
  const char* const host[] = {"no_such_arg"};
  k.host_memory_args = host;
  k.num_host_memory_args = 1;
  s = Register(k);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "host-memory arg 'no_such_arg'")) << s.message();

  // The first error is the one the load reports.
  EXPECT_TRUE(Contains(regs_.first_error().message(), "invalid device type"))
      << regs_.first_error().message();
  static LoadedPlugin fake;
  EXPECT_FALSE(regs_.Commit(&fake).ok());
}

TEST_F(RegistrationTest, OpValidation) {
  const char* const outputs[] = {"y: T"};
  TG_OpDefinition op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "CoreApiTestBadSpec";
  op.outputs = outputs;
  op.num_outputs = 1;  // T is not an attr
  Status s = Register(op);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "CoreApiTestBadSpec")) << s.message();

  const char* const fine[] = {"y: float"};
  op.name = "CoreApiTestTwice";
  op.outputs = fine;
  // Ends before is_stateful: the optional fields read as absent.
  op.struct_size = kOpDefinitionMinSize;
  op.is_stateful = 1;
  ASSERT_TRUE(Register(op).ok());
  s = Register(op);
  ASSERT_TRUE(StatusIs(s, Code::kAlreadyExists));
  EXPECT_TRUE(Contains(s.message(), "registers it twice")) << s.message();

  op.num_outputs = 2;  // array shorter than its count is the plugin's bug; NULL is caught
  op.outputs = nullptr;
  op.name = "CoreApiTestNullOutputs";
  EXPECT_TRUE(StatusIs(Register(op), Code::kInvalidArgument));
  TG_Status st;
  api()->register_op(nullptr, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
}

TEST_F(RegistrationTest, CommitPublishesEverything) {
  const char* const outputs[] = {"y: float"};
  TG_OpDefinition op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "CoreApiTestCommitted";
  op.outputs = outputs;
  op.num_outputs = 1;
  op.is_stateful = 1;
  ASSERT_TRUE(Register(op).ok());
  ASSERT_TRUE(Register(Kernel("CoreApiTestCommitted")).ok());  // its own op, before commit
  EXPECT_EQ(OpRegistry::Global()->Find("CoreApiTestCommitted"), nullptr);  // not yet
  static LoadedPlugin fake;
  ASSERT_TRUE(regs_.Commit(&fake).ok());
  const OpRegistration* reg = OpRegistry::Global()->Find("CoreApiTestCommitted");
  ASSERT_NE(reg, nullptr);
  EXPECT_TRUE(reg->op_def.is_stateful());
  EXPECT_EQ(KernelRegistry::Global()->KernelsFor("CoreApiTestCommitted").size(), 1u);
}

TEST_F(RegistrationTest, DeviceSaverGradientValidation) {
  TG_DeviceDefinition d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.device_type = "CORE_API_DEV";
  TG_Status st;
  api()->register_device(&d, &st);  // no device_count
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));

  TG_SaverDefinition v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  v.format = "core_api_format";
  api()->register_saver(&v, &st);  // no save/restore
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));

  TG_GradientDefinition g;
  std::memset(&g, 0, sizeof g);
  g.struct_size = sizeof g;
  g.op_type = "NoSuchOpForGradient";
  g.fn = [](TG_GradientContext*, void*, TG_Status*) {};
  api()->register_gradient(&g, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kNotFound));
}

// ---- attr getters on a construction context ----

class ConstructionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NodeSpec s;
    s.type = "Placeholder";
    s.name = "ph";
    s.attrs["dtype"] = AttrOfType(DT_FLOAT);
    s.attrs["shape"] = AttrOfShape(PartialShape({2, -1}));
    s.attrs["_ints"] = AttrOfIntList({4, 5, 6});
    s.attrs["_types"] = AttrOfTypeList({});
    s.attrs["_str"] = AttrOfString("text");
    s.attrs["_unknown"] = AttrOfShape(PartialShape::Unknown());
    auto op = g_.AddOperation(std::move(s));
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    ctx_.op = op.value();
  }
  Graph g_;
  TG_KernelConstruction ctx_;
};

TEST_F(ConstructionTest, Getters) {
  TG_Status st;
  EXPECT_STREQ(api()->construction_node_name(&ctx_), "ph");
  EXPECT_STREQ(api()->construction_op_type(&ctx_), "Placeholder");
  EXPECT_EQ(api()->construction_num_inputs(&ctx_), 0);
  EXPECT_EQ(api()->construction_num_outputs(&ctx_), 1);
  EXPECT_EQ(api()->construction_output_type(&ctx_, 0), TG_FLOAT);
  EXPECT_EQ(api()->construction_output_type(&ctx_, 1), TG_INVALID_DTYPE);
  EXPECT_EQ(api()->construction_input_type(&ctx_, 0), TG_INVALID_DTYPE);

  TG_DataType t = TG_INVALID_DTYPE;
  api()->attr_type(&ctx_, "dtype", &t, &st);
  EXPECT_TRUE(st.status.ok());
  EXPECT_EQ(t, TG_FLOAT);

  size_t len = 0;
  api()->attr_int_list(&ctx_, "_ints", nullptr, 0, &len, &st);
  EXPECT_EQ(len, 3u);
  int64_t two[2] = {0, 0};
  api()->attr_int_list(&ctx_, "_ints", two, 2, &len, &st);  // copies at most max
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(two[1], 5);
  TG_DataType types[1];
  api()->attr_type_list(&ctx_, "_types", types, 1, &len, &st);  // empty list: any list kind
  EXPECT_TRUE(st.status.ok()) << st.status.ToString();
  EXPECT_EQ(len, 0u);

  const char* str = nullptr;
  api()->attr_string(&ctx_, "_str", &str, &len, &st);
  EXPECT_EQ(std::string(str, len), "text");

  int64_t dims[4];
  int rank = 0;
  api()->attr_shape(&ctx_, "shape", dims, 4, &rank, &st);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(dims[1], -1);
  api()->attr_shape(&ctx_, "_unknown", dims, 4, &rank, &st);
  EXPECT_EQ(rank, -1);

  EXPECT_EQ(api()->has_attr(&ctx_, "dtype"), 1);
  EXPECT_EQ(api()->has_attr(&ctx_, "nope"), 0);
  EXPECT_EQ(api()->has_attr(&ctx_, nullptr), 0);
}

TEST_F(ConstructionTest, ErrorsNameNodeAndAttr) {
  TG_Status st;
  int64_t v = 0;
  api()->attr_int(&ctx_, "missing", &v, &st);
  ASSERT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(st.status.message(), "node 'ph' (Placeholder)")) << st.status.message();
  EXPECT_TRUE(Contains(st.status.message(), "'missing'")) << st.status.message();
  float f = 0;
  api()->attr_float(&ctx_, "dtype", &f, &st);
  ASSERT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(st.status.message(), "attr 'dtype' is of kind 'type', not 'float'"))
      << st.status.message();
  size_t len = 0;
  api()->attr_float_list(&ctx_, "_ints", nullptr, 0, &len, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  EXPECT_EQ(api()->attr_tensor(&ctx_, "shape", &st), nullptr);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
  api()->attr_int(&ctx_, nullptr, &v, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kInvalidArgument));
}

// ---- a C shape function through WrapPluginShapeFn ----

void MisbehavingShapeFn(TG_ShapeContext* ctx, void*, TG_Status*) {
  const int64_t dims[] = {1};
  CoreApi()->shape_set_output(ctx, 3, dims, 1);  // no such output
}

void EchoShapeFn(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  const TG_CoreApi* a = CoreApi();
  int64_t extra = 0;
  a->shape_attr_int(ctx, "extra", &extra, status);
  if (a->status_code(status) != TG_OK) return;
  const int rank = a->shape_input_rank(ctx, 0);
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(a->shape_input_dim(ctx, 0, d));
  dims.push_back(extra);
  a->shape_set_output(ctx, 0, dims.data(), static_cast<int>(dims.size()));
  *static_cast<std::string*>(user_data) = a->shape_node_name(ctx);
  EXPECT_EQ(a->shape_num_inputs(ctx), 1);
  EXPECT_EQ(a->shape_input_rank(ctx, 7), -1);
  EXPECT_EQ(a->shape_input_dim(ctx, 0, 9), -1);
  EXPECT_EQ(a->shape_input_value(ctx, 0), nullptr);
}

TEST(ShapeContextTest, PluginShapeFunctionsAsShapeFns) {
  AttrMap attrs;
  attrs["extra"] = AttrOfInt(5);
  std::string seen;
  InferenceContext c("node_a", "SomeOp", attrs, {DT_FLOAT}, {PartialShape({2, -1})}, {}, 1);
  ASSERT_TRUE(WrapPluginShapeFn(EchoShapeFn, &seen)(c).ok());
  EXPECT_EQ(c.output_shapes()[0], PartialShape({2, -1, 5}));
  EXPECT_EQ(seen, "node_a");

  AttrMap no_attrs;
  InferenceContext c2("node_b", "SomeOp", no_attrs, {DT_FLOAT}, {PartialShape({2})}, {}, 1);
  Status s = WrapPluginShapeFn(EchoShapeFn, &seen)(c2);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "node_b")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "'extra'")) << s.message();

  InferenceContext c3("node_c", "SomeOp", no_attrs, {DT_FLOAT}, {PartialShape({2})}, {}, 1);
  s = WrapPluginShapeFn(MisbehavingShapeFn, nullptr)(c3);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "node_c")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "output index 3 out of range")) << s.message();
}

// ---- ABI 6 shape-function getters, called from C ----

// Reads input 0's partial shape and dtype in one call each and the list attrs at the edges
// of their contract (max = 0 to learn a length, an index past the end), then makes output 0
// input 0's shape and output 1 `shl[1]`.
void Abi6ShapeFn(TG_ShapeContext* ctx, void*, TG_Status* status) {
  const TG_CoreApi* a = CoreApi();
  int64_t dims[4] = {0, 0, 0, 0};
  EXPECT_EQ(a->shape_input_shape(ctx, 0, dims, 4), 2);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], -1);
  EXPECT_EQ(a->shape_input_shape(ctx, 0, nullptr, 0), 2) << "rank without dims";
  EXPECT_EQ(a->shape_input_shape(ctx, 5, dims, 4), -1) << "out of range";
  EXPECT_EQ(a->shape_input_type(ctx, 0), TG_FLOAT) << "a ref input reads as its base type";
  EXPECT_EQ(a->shape_input_type(ctx, -1), TG_INVALID_DTYPE);
  EXPECT_EQ(a->shape_has_attr(ctx, "shl"), 1);
  EXPECT_EQ(a->shape_has_attr(ctx, "nope"), 0);
  size_t n = 0;
  const char* strings[1] = {nullptr};
  size_t lens[1] = {0};
  a->shape_attr_string_list(ctx, "sl", strings, lens, 1, &n, status);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(std::string(strings[0], lens[0]), "ab") << "only `max` items copied";
  int rank = 7;
  a->shape_attr_shape_list(ctx, "shl", 9, dims, 4, &rank, &n, status);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(rank, 7) << "an index past the end reports the length only";
  a->shape_attr_shape_list(ctx, "shl", 0, dims, 4, &rank, &n, status);
  EXPECT_EQ(rank, -1) << "shl[0] has unknown rank";
  a->shape_attr_shape_list(ctx, "shl", 1, dims, 4, &rank, &n, status);
  ASSERT_EQ(rank, 1);
  a->shape_set_output_from_input(ctx, 0, 0);
  a->shape_set_output(ctx, 1, dims, rank);
}

void FromBadInputShapeFn(TG_ShapeContext* ctx, void*, TG_Status*) {
  CoreApi()->shape_set_output_from_input(ctx, 0, 4);  // no such input
}

TEST(ShapeContextTest, Abi6Getters) {
  AttrMap attrs;
  attrs["sl"] = AttrOfStringList({"ab", "cde"});
  tf::AttrValue shl;
  shl.mutable_list()->add_shape()->set_unknown_rank(true);
  shl.mutable_list()->add_shape()->add_dim()->set_size(6);
  attrs["shl"] = shl;
  InferenceContext c("node_a", "SomeOp", attrs, {MakeRefType(DT_FLOAT)}, {PartialShape({2, -1})},
                     {}, 2);
  Status s = WrapPluginShapeFn(Abi6ShapeFn, nullptr)(c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.output_shapes()[0], PartialShape({2, -1}));
  EXPECT_EQ(c.output_shapes()[1], PartialShape({6}));

  InferenceContext c2("node_b", "SomeOp", attrs, {DT_FLOAT}, {PartialShape({2})}, {}, 1);
  s = WrapPluginShapeFn(FromBadInputShapeFn, nullptr)(c2);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "node_b")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "input index 4 out of range")) << s.message();
}

// construction_decline marks the construction; TryCreateKernel turns it into a decline with
// the reason, not an error, and CreateKernelState into UNIMPLEMENTED naming kernel and node.
void* DecliningCreate(TG_KernelConstruction* ctx, void*, TG_Status*) {
  CoreApi()->construction_decline(ctx, "dilations are not supported");
  return nullptr;
}

TEST(ConstructionDeclineTest, ADeclineIsNotAFailure) {
  CoreApi()->construction_decline(nullptr, "ignored");  // no crash
  Graph g;
  NodeSpec spec;
  spec.type = "NoOp";
  spec.name = "the_node";
  Operation* op = g.AddOperation(std::move(spec)).value();
  KernelRegistration k;
  k.op_type = "NoOp";
  k.device_type = "CPU";
  k.create = DecliningCreate;
  k.compute = NoopCompute;
  auto created = TryCreateKernel(k, *op);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(created.value().declined);
  EXPECT_EQ(created.value().reason, "dilations are not supported");
  auto state = CreateKernelState(k, *op);
  ASSERT_TRUE(StatusIs(state.status(), Code::kUnimplemented));
  EXPECT_TRUE(Contains(state.status().message(), "kernel NoOp on CPU")) << state.status().message();
  EXPECT_TRUE(Contains(state.status().message(), "declined node 'the_node' (NoOp): dilations"))
      << state.status().message();
}

}  // namespace
}  // namespace tgraph
