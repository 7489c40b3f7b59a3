// Resource variables (core/exec/resource_variables.h) in sessions: VarHandleOp's handle
// names a slot of the session's state, the core's kernels read and write it, and the CPU
// plugin's optimizer kernels update it in place through the handle bound as a ref.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/autodiff/add_gradients.h"
#include "session_test_util.h"

namespace tgraph {
namespace {

class ResourceVariablesTest : public SessionTest {
 protected:
  Output Floats(std::vector<float> v, std::vector<int64_t> dims) {
    Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()[i] = v[i];
    return Const(t);
  }
  Output F(float v) { return Floats({v}, {}); }
  Output Ints(std::vector<int32_t> v, std::vector<int64_t> dims) {
    Tensor t = Tensor::Allocate(DT_INT32, std::move(dims)).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()[i] = v[i];
    return Const(t);
  }
  Output Handle(const std::string& name, PartialShape shape, const std::string& shared_name = "") {
    AttrMap attrs = {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(shape)}};
    if (!shared_name.empty()) attrs["shared_name"] = AttrOfString(shared_name);
    return Op("VarHandleOp", {}, attrs, name)->output(0);
  }
  static AttrMap D() { return {{"dtype", AttrOfType(DT_FLOAT)}}; }
  static AttrMap T() { return {{"T", AttrOfType(DT_FLOAT)}}; }
  Operation* Assign(Output h, Output v) { return Op("AssignVariableOp", {h, v}, D()); }
  Output Read(Output h, const std::string& name = "") { return Op("ReadVariableOp", {h}, D(), name)->output(0); }
  static std::vector<float> Values(const Tensor& t) {
    return std::vector<float>(t.flat<float>(), t.flat<float>() + t.NumElements());
  }
  static void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << i;
  }
};

TEST_F(ResourceVariablesTest, AssignReadUpdateShapeAndDestroy) {
  Output h = Handle("v", PartialShape({2}));
  Operation* init = Assign(h, Floats({1, 2}, {2}));
  Operation* add = Op("AssignAddVariableOp", {h, Floats({10, 20}, {2})}, D());
  Operation* sub = Op("AssignSubVariableOp", {h, Floats({1, 1}, {2})}, D());
  Output inited = Op("VarIsInitializedOp", {h})->output(0);
  Output shape = Op("VariableShape", {h}, {{"out_type", AttrOfType(DT_INT64)}})->output(0);
  Operation* destroy = Op("DestroyResourceOp", {h});
  Output read = Read(h);
  auto s = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {inited}, {}, &out).ok());
  EXPECT_FALSE(*out[0].flat<bool>());
  ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  ASSERT_TRUE(s->Run({}, {read, inited, shape}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1, 2}));
  EXPECT_TRUE(*out[1].flat<bool>());
  EXPECT_EQ(out[2].NumElements(), 1);
  EXPECT_EQ(out[2].flat<int64_t>()[0], 2);
  Tensor before = out[0];
  ASSERT_TRUE(s->Run({}, {}, {add}, &out).ok());
  ASSERT_TRUE(s->Run({}, {}, {sub}, &out).ok());
  ASSERT_TRUE(s->Run({}, {read}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{10, 21}));
  EXPECT_EQ(Values(before), (std::vector<float>{1, 2}));  // a read is a snapshot
  // Another session has its own variables.
  auto other = NewSession();
  ASSERT_TRUE(other->Run({}, {inited}, {}, &out).ok());
  EXPECT_FALSE(*out[0].flat<bool>());
  // Destroyed: uninitialized again, and a second destroy is ignored (ignore_lookup_error).
  ASSERT_TRUE(s->Run({}, {}, {destroy}, &out).ok());
  ASSERT_TRUE(s->Run({}, {inited}, {}, &out).ok());
  EXPECT_FALSE(*out[0].flat<bool>());
  ASSERT_TRUE(s->Run({}, {}, {destroy}, &out).ok());
}

TEST_F(ResourceVariablesTest, ReadingAnUninitializedVariableIsFailedPreconditionNamingIt) {
  Output h = Handle("weights", PartialShape({3}));
  Output read = Read(h, "the_read");
  Output gathered = Op("ResourceGather", {h, Ints({0}, {1})}, D(), "the_gather")->output(0);
  Operation* step = Op("ResourceApplyGradientDescent", {h, F(0.1f), Floats({1, 1, 1}, {3})}, T(), "the_step");
  Operation* add = Op("AssignAddVariableOp", {h, Floats({1, 1, 1}, {3})}, D(), "the_add");
  auto s = NewSession();
  std::vector<Tensor> out;
  for (auto [fetch, target, node] : {std::tuple{read, (Operation*)nullptr, "the_read"},
                                     std::tuple{gathered, (Operation*)nullptr, "the_gather"},
                                     std::tuple{Output{}, step, "the_step"}, std::tuple{Output{}, add, "the_add"}}) {
    std::vector<Output> fetches;
    std::vector<Operation*> targets;
    if (target != nullptr) {
      targets.push_back(target);
    } else {
      fetches.push_back(fetch);
    }
    Status st = s->Run({}, fetches, targets, &out);
    EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st.ToString();
    EXPECT_NE(st.message().find("weights"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find(node), std::string::npos) << st.ToString();
  }
}

TEST_F(ResourceVariablesTest, HandlesWithOneSharedNameNameOneVariable) {
  Output a = Handle("a", PartialShape({1}), "shared");
  Output b = Handle("b", PartialShape({1}), "shared");
  Operation* init = Assign(a, Floats({5}, {1}));
  Output read_b = Read(b);
  auto s = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  ASSERT_TRUE(s->Run({}, {read_b}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{5}));
}

// The CPU plugin's optimizer kernels serve both kinds of variable: ResourceApplyAdam on a
// resource variable gives ApplyAdam's values on a reference variable, step after step.
TEST_F(ResourceVariablesTest, ResourceApplyAdamMatchesApplyAdam) {
  const std::vector<float> init = {0.5f, -1.0f, 2.0f};
  const std::vector<float> grad = {0.1f, -0.3f, 0.7f};
  Output hv = Handle("rv", PartialShape({3})), hm = Handle("rm", PartialShape({3})),
         hs = Handle("rs", PartialShape({3}));
  std::vector<Operation*> inits = {Assign(hv, Floats(init, {3})), Assign(hm, Floats({0, 0, 0}, {3})),
                                   Assign(hs, Floats({0, 0, 0}, {3}))};
  auto scalars = [&] {
    return std::vector<Output>{F(0.9f), F(0.999f), F(0.01f), F(0.9f), F(0.999f), F(1e-7f), Floats(grad, {3})};
  };
  std::vector<Output> rin = {hv, hm, hs};
  for (Output o : scalars()) rin.push_back(o);
  Operation* rstep = Op("ResourceApplyAdam", rin, T());
  Output rread = Read(hv);

  auto var = [&](const std::string& name, std::vector<float> v) {
    Tensor t = Tensor::Allocate(DT_FLOAT, {3}).value();
    for (size_t i = 0; i < 3; ++i) t.flat<float>()[i] = v[i];
    VariableOptions options;
    options.name = name;
    return g_.variables().CreateVariableFromTensor(t, options).value();
  };
  Variable* v = var("v", init);
  Variable* m = var("m", {0, 0, 0});
  Variable* s2 = var("s", {0, 0, 0});
  std::vector<Output> in = {v->ref(), m->ref(), s2->ref()};
  for (Output o : scalars()) in.push_back(o);
  Output step = Op("ApplyAdam", in, T())->output(0);

  auto s = NewSession();
  std::vector<Tensor> out;
  for (Operation* i : inits) ASSERT_TRUE(s->Run({}, {}, {i}, &out).ok());
  for (Variable* x : {v, m, s2}) ASSERT_TRUE(s->Run({}, {}, {x->initializer}, &out).ok());
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(s->Run({}, {}, {rstep}, &out).ok());
    ASSERT_TRUE(s->Run({}, {step}, {}, &out).ok());
    std::vector<float> want = Values(out[0]);
    ASSERT_TRUE(s->Run({}, {rread}, {}, &out).ok());
    EXPECT_EQ(Values(out[0]), want) << "step " << k;
  }
}

// Keras' momentum and AdagradV2 exist only for resource variables: against their formulas.
TEST_F(ResourceVariablesTest, KerasMomentumAndAdagradV2FollowTheirFormulas) {
  Output hv = Handle("kv", PartialShape({2})), ha = Handle("ka", PartialShape({2}));
  Output gv = Handle("gv", PartialShape({2})), ga = Handle("ga", PartialShape({2}));
  std::vector<Operation*> inits = {Assign(hv, Floats({1, 2}, {2})), Assign(ha, Floats({0.5f, -0.5f}, {2})),
                                   Assign(gv, Floats({1, 2}, {2})), Assign(ga, Floats({0.1f, 0.2f}, {2}))};
  AttrMap nesterov = T();
  nesterov["use_nesterov"] = AttrOfBool(true);
  Operation* keras = Op("ResourceApplyKerasMomentum", {hv, ha, F(0.1f), Floats({0.3f, -0.4f}, {2}), F(0.9f)}, nesterov);
  Operation* adagrad = Op("ResourceApplyAdagradV2", {gv, ga, F(0.1f), F(0.01f), Floats({0.3f, -0.4f}, {2})}, T());
  Output reads[] = {Read(hv), Read(ha), Read(gv), Read(ga)};
  auto s = NewSession();
  std::vector<Tensor> out;
  for (Operation* i : inits) ASSERT_TRUE(s->Run({}, {}, {i}, &out).ok());
  ASSERT_TRUE(s->Run({}, {}, {keras, adagrad}, &out).ok());
  ASSERT_TRUE(s->Run({}, {reads[0], reads[1], reads[2], reads[3]}, {}, &out).ok());
  // accum = accum * 0.9 - 0.1 * g; var += accum * 0.9 - 0.1 * g
  const float a0 = 0.5f * 0.9f - 0.1f * 0.3f, a1 = -0.5f * 0.9f + 0.1f * 0.4f;
  ExpectNear(Values(out[1]), {a0, a1});
  ExpectNear(Values(out[0]), {1 + a0 * 0.9f - 0.1f * 0.3f, 2 + a1 * 0.9f + 0.1f * 0.4f});
  // accum += g^2; var -= 0.1 * g / (sqrt(accum) + 0.01)
  const float c0 = 0.1f + 0.09f, c1 = 0.2f + 0.16f;
  ExpectNear(Values(out[3]), {c0, c1});
  ExpectNear(Values(out[2]), {1 - 0.1f * 0.3f / (std::sqrt(c0) + 0.01f), 2 + 0.1f * 0.4f / (std::sqrt(c1) + 0.01f)});
}

TEST_F(ResourceVariablesTest, GatherScatterAndBadIndices) {
  Output h = Handle("table", PartialShape({3, 2}));
  Operation* init = Assign(h, Floats({0, 1, 2, 3, 4, 5}, {3, 2}));
  AttrMap scatter = {{"dtype", AttrOfType(DT_FLOAT)}, {"Tindices", AttrOfType(DT_INT32)}};
  // Duplicate indices accumulate.
  Operation* add = Op("ResourceScatterAdd", {h, Ints({2, 0, 2}, {3}), Floats({1, 1, 2, 2, 10, 10}, {3, 2})}, scatter);
  Operation* sub = Op("ResourceScatterSub", {h, Ints({1}, {1}), F(1)}, scatter);  // a scalar update
  Operation* update = Op("ResourceScatterUpdate", {h, Ints({0}, {1}), Floats({7, 8}, {1, 2})}, scatter);
  Operation* bad = Op("ResourceScatterAdd", {h, Ints({1, 3}, {2}), Floats({1, 1, 1, 1}, {2, 2})}, scatter, "bad_scatter");
  Output gather = Op("ResourceGather", {h, Ints({2, 0, 2, 1}, {2, 2})}, {{"dtype", AttrOfType(DT_FLOAT)}})->output(0);
  Output bad_gather = Op("ResourceGather", {h, Ints({-1}, {1})}, D(), "bad_gather")->output(0);
  Output read = Read(h);
  auto s = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  ASSERT_TRUE(s->Run({}, {}, {add}, &out).ok());
  ASSERT_TRUE(s->Run({}, {}, {sub}, &out).ok());
  ASSERT_TRUE(s->Run({}, {read, gather}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{2, 3, 1, 2, 15, 16}));
  EXPECT_EQ(out[1].dims(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{15, 16, 2, 3, 15, 16, 1, 2}));
  ASSERT_TRUE(s->Run({}, {}, {update}, &out).ok());
  // A bad index fails naming the node, before anything is written.
  Status st = s->Run({}, {}, {bad}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("bad_scatter"), std::string::npos) << st.ToString();
  st = s->Run({}, {bad_gather}, {}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("bad_gather"), std::string::npos) << st.ToString();
  ASSERT_TRUE(s->Run({}, {read}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{7, 8, 1, 2, 15, 16}));
}

TEST_F(ResourceVariablesTest, WrongDtypeAndNonHandleInputsAreStatuses) {
  Output h = Handle("x", PartialShape({1}));
  Operation* init = Assign(h, Floats({1}, {1}));
  Output wrong = Op("ReadVariableOp", {h}, {{"dtype", AttrOfType(DT_INT32)}}, "wrong_read")->output(0);
  // A TensorArray's handle is a resource, but no variable (fed in: its own handle's static
  // shape is TF1's [2]).
  Operation* array = Op("TensorArrayV3", {Ints({1}, {})}, D());
  Output fed = Op("Placeholder", {}, {{"dtype", AttrOfType(DT_RESOURCE)}, {"shape", AttrOfShape(PartialShape({}))}})
                   ->output(0);
  Output not_var = Read(fed, "not_a_variable");
  Operation* step = Op("ResourceApplyGradientDescent", {fed, F(0.1f), Floats({1}, {1})}, T(), "not_var_step");
  auto s = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {array->output(0)}, {}, &out).ok());
  const Tensor array_handle = out[0];
  ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  Status st = s->Run({}, {wrong}, {}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("wrong_read"), std::string::npos) << st.ToString();
  st = s->Run({{fed, array_handle}}, {not_var}, {}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("not_a_variable"), std::string::npos) << st.ToString();
  st = s->Run({{fed, array_handle}}, {}, {step}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("not_var_step"), std::string::npos) << st.ToString();
}

// gradients(y, [handle]) is the gradient with respect to the variable's value: through a
// read (dense) and a gather (IndexedSlices of the variable's shape, densified here), summed.
TEST_F(ResourceVariablesTest, GradientsWithRespectToTheHandle) {
  Output h = Handle("w", PartialShape({3}));
  Operation* init = Assign(h, Floats({1, 2, 3}, {3}));
  Output read = Read(h);
  Output gathered = Op("ResourceGather", {h, Ints({2, 2, 0}, {3})}, D())->output(0);
  Output sq = Op("Mul", {read, read})->output(0);  // d/dw = 2w
  Output total = Op("Add", {Op("Sum", {sq, Ints({0}, {1})})->output(0),
                            Op("Sum", {gathered, Ints({0}, {1})})->output(0)})->output(0);
  auto grads = AddGradients(g_, {total}, {h}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  ASSERT_EQ(grads->size(), 1u);
  ASSERT_TRUE((*grads)[0].defined());
  ASSERT_FALSE((*grads)[0].is_sparse());
  auto s = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  ASSERT_TRUE(s->Run({}, {(*grads)[0].values}, {}, &out).ok());
  // 2w + how often each row was gathered: [2 + 1, 4 + 0, 6 + 2].
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 4, 8}));
}

}  // namespace
}  // namespace tgraph
