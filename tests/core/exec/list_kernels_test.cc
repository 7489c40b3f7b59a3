// The TensorArray and TensorList kernels the core registers (core/exec/list_kernels.cc),
// run in sessions: their values are objects behind DT_RESOURCE / DT_VARIANT scalars.
#include <gtest/gtest.h>

#include <vector>

#include "core/autodiff/add_gradients.h"
#include "session_test_util.h"

namespace tgraph {
namespace {

class ListKernelsTest : public SessionTest {
 protected:
  Output Ints(std::vector<int32_t> v, std::vector<int64_t> dims) {
    Tensor t = Tensor::Allocate(DT_INT32, std::move(dims)).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()[i] = v[i];
    return Const(t);
  }
  Output Int(int32_t v) { return Ints({v}, {}); }
  Output Floats(std::vector<float> v, std::vector<int64_t> dims) {
    Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()[i] = v[i];
    return Const(t);
  }
  static AttrMap ListAttrs() {
    return {{"element_dtype", AttrOfType(DT_FLOAT)}, {"shape_type", AttrOfType(DT_INT32)}};
  }
  static AttrMap Elem() { return {{"element_dtype", AttrOfType(DT_FLOAT)}}; }
  Status Fetch(std::vector<Output> fetches, std::vector<Tensor>* out) {
    auto s = NewSession();
    return s->Run({}, fetches, {}, out);
  }
  static std::vector<float> Floats(const Tensor& t) {
    return std::vector<float>(t.flat<float>(), t.flat<float>() + t.NumElements());
  }
};

TEST_F(ListKernelsTest, ReserveSetStackGetLength) {
  Output list = Op("TensorListReserve", {Ints({2}, {1}), Int(3)}, ListAttrs())->output(0);
  Output set = Op("TensorListSetItem", {list, Int(1), Floats({1, 2}, {2})}, Elem())->output(0);
  Output stacked = Op("TensorListStack", {set, Ints({2}, {1})}, Elem())->output(0);
  Output unset = Op("TensorListGetItem", {set, Int(0), Ints({-1}, {1})}, Elem())->output(0);
  Output item = Op("TensorListGetItem", {set, Int(1), Ints({-1}, {1})}, Elem())->output(0);
  Output length = Op("TensorListLength", {set})->output(0);
  std::vector<Tensor> out;
  ASSERT_TRUE(Fetch({stacked, unset, item, length}, &out).ok());
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0, 1, 2, 0, 0}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{0, 0}));  // unset: zeros of the element shape
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{1, 2}));
  EXPECT_EQ(*out[3].flat<int32_t>(), 3);
  // The input list is a value: setting an item made a new list, the old one is unchanged.
  Output old = Op("TensorListStack", {list, Ints({2}, {1})}, Elem())->output(0);
  ASSERT_TRUE(Fetch({old}, &out).ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>(6, 0.0f)));
}

TEST_F(ListKernelsTest, FromTensorPushPopAndElementShape) {
  Output list = Op("TensorListFromTensor", {Floats({1, 2, 3, 4, 5, 6}, {3, 2}), Ints({-1}, {1})},
                   ListAttrs())->output(0);
  Output pushed = Op("TensorListPushBack", {list, Floats({7, 8}, {2})}, Elem())->output(0);
  Operation* pop = Op("TensorListPopBack", {pushed, Ints({2}, {1})}, Elem());
  Operation* pop2 = Op("TensorListPopBack", {pop->output(0), Ints({2}, {1})}, Elem());
  Output shape = Op("TensorListElementShape", {list}, {{"shape_type", AttrOfType(DT_INT32)}})->output(0);
  Output gathered = Op("TensorListGather", {pushed, Ints({3, 0}, {2}), Ints({2}, {1})}, Elem())->output(0);
  std::vector<Tensor> out;
  ASSERT_TRUE(Fetch({pop->output(1), pop2->output(1), shape, gathered}, &out).ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{7, 8}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{5, 6}));
  ASSERT_EQ(out[2].NumElements(), 1);
  EXPECT_EQ(out[2].flat<int32_t>()[0], 2);
  EXPECT_EQ(Floats(out[3]), (std::vector<float>{7, 8, 1, 2}));
}

TEST_F(ListKernelsTest, BadIndicesAndShapesAreInvalidArgumentNamingTheNode) {
  Output list = Op("TensorListReserve", {Ints({-1}, {1}), Int(2)}, ListAttrs())->output(0);
  Output bad_set = Op("TensorListSetItem", {list, Int(2), Floats({1}, {1})}, Elem(), "bad_set")->output(0);
  Output bad_get = Op("TensorListGetItem", {list, Int(-1), Ints({-1}, {1})}, Elem(), "bad_get")->output(0);
  // Unset elements of an unknown shape cannot be read as zeros.
  Output bad_stack = Op("TensorListStack", {list, Ints({-1}, {1})}, Elem(), "bad_stack")->output(0);
  Output empty = Op("EmptyTensorList", {Ints({1}, {1}), Int(0)}, ListAttrs())->output(0);
  Output bad_pop = Op("TensorListPopBack", {empty, Ints({1}, {1})}, Elem(), "bad_pop")->output(1);
  for (auto [fetch, name, text] : {std::tuple{bad_set, "bad_set", "element 2 in a list with 2"},
                                   std::tuple{bad_get, "bad_get", "element -1"},
                                   std::tuple{bad_stack, "bad_stack", "not fully defined"},
                                   std::tuple{bad_pop, "bad_pop", "empty list"}}) {
    std::vector<Tensor> out;
    Status s = Fetch({fetch}, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.ToString();
  }
}

// A size, index or num_elements from the graph must not allocate what it claims (issue 21,
// item 4; the op_run fuzzer found TensorArrayV3 and TensorListReserve allocating their slots
// for any size): 2^31 - 1 slots are over 100 GB, RESOURCE_EXHAUSTED naming the node before
// anything is allocated, where the machine has less memory than that.
TEST_F(ListKernelsTest, HugeSizesAndIndicesAreResourceExhaustedBeforeAllocating) {
  const int32_t huge = 0x7fffffff;
  AttrMap d = {{"dtype", AttrOfType(DT_FLOAT)}};
  AttrMap t = {{"T", AttrOfType(DT_FLOAT)}};
  Operation* array = Op("TensorArrayV3", {Int(huge)}, d, "huge_array");
  AttrMap dynamic = d;
  dynamic["dynamic_size"] = AttrOfBool(true);
  Operation* grown = Op("TensorArrayV3", {Int(1)}, dynamic);
  Output grow_array =
      Op("TensorArrayWriteV3", {grown->output(0), Int(huge - 1), Floats({1}, {1}), grown->output(1)}, t,
         "grow_array")->output(0);
  Output list = Op("TensorListReserve", {Ints({-1}, {1}), Int(huge)}, ListAttrs(), "huge_list")->output(0);
  Output small = Op("TensorListReserve", {Ints({-1}, {1}), Int(1)}, ListAttrs())->output(0);
  AttrMap resize = Elem();
  resize["resize_if_index_out_of_bounds"] = AttrOfBool(true);
  Output grow_list =
      Op("TensorListSetItem", {small, Int(huge - 1), Floats({1}, {1})}, resize, "grow_list")->output(0);
  // TensorListScatterV2's num_elements, and a scatter index that grows the list (found by
  // the op_run fuzzer: both resized the list to what the input said).
  Output scattered = Op("TensorListScatterV2", {Floats({1}, {1, 1}), Ints({0}, {1}), Ints({1}, {1}), Int(huge)},
                        ListAttrs(), "huge_scatter")->output(0);
  Output scatter_grown = Op("TensorListScatter", {Floats({1}, {1, 1}), Ints({huge - 1}, {1}), Ints({1}, {1})},
                            ListAttrs(), "scatter_grown")->output(0);
  Output into_existing = Op("TensorListScatterIntoExistingList", {small, Floats({1}, {1, 1}), Ints({huge - 1}, {1})},
                            Elem(), "scatter_into_existing")->output(0);
  for (auto [fetch, name] : {std::pair{array->output(0), "huge_array"}, std::pair{grow_array, "grow_array"},
                             std::pair{list, "huge_list"}, std::pair{grow_list, "grow_list"},
                             std::pair{scattered, "huge_scatter"}, std::pair{scatter_grown, "scatter_grown"},
                             std::pair{into_existing, "scatter_into_existing"}}) {
    std::vector<Tensor> out;
    Status s = Fetch({fetch}, &out);
    EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("TGRAPH_MAX_TENSOR_BYTES"), std::string::npos) << s.ToString();
  }
}

TEST_F(ListKernelsTest, TensorArrayWriteReadGatherScatterSize) {
  Operation* ta = Op("TensorArrayV3", {Int(3)}, {{"dtype", AttrOfType(DT_FLOAT)}});
  AttrMap t = {{"T", AttrOfType(DT_FLOAT)}};
  AttrMap d = {{"dtype", AttrOfType(DT_FLOAT)}};
  Output f1 = Op("TensorArrayWriteV3", {ta->output(0), Int(2), Floats({5, 6}, {2}), ta->output(1)}, t)->output(0);
  Output f2 = Op("TensorArrayScatterV3", {ta->output(0), Ints({1, 0}, {2}), Floats({3, 4, 1, 2}, {2, 2}), f1},
                 t)->output(0);
  Output all = Op("TensorArrayGatherV3", {ta->output(0), Ints({0, 1, 2}, {3}), f2}, d)->output(0);
  Output one = Op("TensorArrayReadV3", {ta->output(0), Int(1), f2}, d)->output(0);
  Output size = Op("TensorArraySizeV3", {ta->output(0), f2})->output(0);
  Operation* concat = Op("TensorArrayConcatV3", {ta->output(0), f2}, d);
  std::vector<Tensor> out;
  ASSERT_TRUE(Fetch({all, one, size, concat->output(0), concat->output(1)}, &out).ok());
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{3, 4}));
  EXPECT_EQ(*out[2].flat<int32_t>(), 3);
  EXPECT_EQ(Floats(out[3]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out[4].flat<int64_t>()[2], 2);
  // Each run makes a fresh array: a second run writes again without "already written".
  ASSERT_TRUE(Fetch({all}, &out).ok());
}

TEST_F(ListKernelsTest, TensorArrayErrorsAndGradientArraysAdd) {
  Operation* ta = Op("TensorArrayV3", {Int(2)},
                     {{"dtype", AttrOfType(DT_FLOAT)}, {"element_shape", AttrOfShape(PartialShape({1}))}});
  AttrMap t = {{"T", AttrOfType(DT_FLOAT)}};
  AttrMap d = {{"dtype", AttrOfType(DT_FLOAT)}};
  Output w1 = Op("TensorArrayWriteV3", {ta->output(0), Int(0), Floats({1}, {1}), ta->output(1)}, t)->output(0);
  Output twice = Op("TensorArrayWriteV3", {ta->output(0), Int(0), Floats({2}, {1}), w1}, t, "twice")->output(0);
  Output out_of_range =
      Op("TensorArrayWriteV3", {ta->output(0), Int(2), Floats({2}, {1}), w1}, t, "past_end")->output(0);
  std::vector<Tensor> out;
  Status s = Fetch({twice}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("twice"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("already been written"), std::string::npos) << s.ToString();
  s = Fetch({out_of_range}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not resizeable"), std::string::npos) << s.ToString();
  // A value that does not fit the element shape; an unwritten element of a forward array.
  Output misfit =
      Op("TensorArrayWriteV3", {ta->output(0), Int(1), Floats({1, 2}, {2}), w1}, t, "misfit")->output(0);
  s = Fetch({misfit}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("incompatible"), std::string::npos) << s.ToString();
  Output unwritten = Op("TensorArrayReadV3", {ta->output(0), Int(1), w1}, d, "unwritten")->output(0);
  s = Fetch({unwritten}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not yet been written"), std::string::npos) << s.ToString();

  // A gradient array: writes to one index add, an unwritten index reads as zeros.
  Operation* grad = Op("TensorArrayGradV3", {ta->output(0), w1}, {{"source", AttrOfString("gradients")}});
  Output g1 = Op("TensorArrayWriteV3", {grad->output(0), Int(0), Floats({2}, {1}), grad->output(1)}, t)->output(0);
  Output g2 = Op("TensorArrayWriteV3", {grad->output(0), Int(0), Floats({3}, {1}), g1}, t)->output(0);
  Output sum = Op("TensorArrayGatherV3", {grad->output(0), Ints({0, 1}, {2}), g2}, d)->output(0);
  ASSERT_TRUE(Fetch({sum}, &out).ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5, 0}));
}

// Pushes and pops in the order control edges give: last in, first out; popping an empty
// stack and pushing past max_size fail naming the node.
TEST_F(ListKernelsTest, StackPushPop) {
  Output stack = Op("StackV2", {Int(2)}, {{"elem_type", AttrOfType(DT_FLOAT)}})->output(0);
  AttrMap t = {{"T", AttrOfType(DT_FLOAT)}};
  AttrMap e = {{"elem_type", AttrOfType(DT_FLOAT)}};
  auto with_control = [&](const std::string& type, std::vector<Output> inputs, AttrMap attrs,
                          Operation* after, const std::string& name) {
    NodeSpec spec;
    spec.type = type;
    spec.name = name;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    if (after != nullptr) spec.control_inputs.push_back(after);
    spec.attrs = std::move(attrs);
    return g_.AddOperation(std::move(spec)).value();
  };
  Operation* push1 = with_control("StackPushV2", {stack, Floats({1}, {1})}, t, nullptr, "push1");
  Operation* push2 = with_control("StackPushV2", {stack, Floats({2}, {1})}, t, push1, "push2");
  Operation* pop1 = with_control("StackPopV2", {stack}, e, push2, "pop1");
  Operation* pop2 = with_control("StackPopV2", {stack}, e, pop1, "pop2");
  Operation* pop3 = with_control("StackPopV2", {stack}, e, pop2, "pop3");
  Operation* push3 = with_control("StackPushV2", {stack, Floats({3}, {1})}, t, push2, "push3");
  std::vector<Tensor> out;
  ASSERT_TRUE(Fetch({push2->output(0), pop1->output(0), pop2->output(0)}, &out).ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2}));  // a push passes its element on
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{2}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{1}));
  Status s = Fetch({pop3->output(0)}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("pop3"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("is empty"), std::string::npos) << s.ToString();
  s = Fetch({push3->output(0)}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("max_size"), std::string::npos) << s.ToString();
}

// tf.gradients through a TensorArray (scatter x, read rows 0 and 1, gather them again):
// y = sum(r0 * r1) + sum(gather([1]) * 3), so dy/dx[0] = x[1] and dy/dx[1] = x[0] + 3.
// The gradient array is fresh per run, and two runs agree.
TEST_F(ListKernelsTest, GradientsThroughTensorArrayReadsWritesGatherScatter) {
  Output x = Floats({1, 2, 3, 4}, {2, 2});
  Operation* ta = Op("TensorArrayV3", {Int(2)}, {{"dtype", AttrOfType(DT_FLOAT)}});
  AttrMap t = {{"T", AttrOfType(DT_FLOAT)}};
  AttrMap d = {{"dtype", AttrOfType(DT_FLOAT)}};
  Output flow = Op("TensorArrayScatterV3", {ta->output(0), Ints({0, 1}, {2}), x, ta->output(1)}, t)->output(0);
  Output r0 = Op("TensorArrayReadV3", {ta->output(0), Int(0), flow}, d)->output(0);
  Output r1 = Op("TensorArrayReadV3", {ta->output(0), Int(1), flow}, d)->output(0);
  Output g1 = Op("TensorArrayGatherV3", {ta->output(0), Ints({1}, {1}), flow}, d)->output(0);
  Output prod = Op("Mul", {r0, r1})->output(0);
  Output three = Op("Mul", {g1, Floats({3}, {})})->output(0);
  Output y = Op("AddV2", {Op("Sum", {prod, Ints({0}, {1})})->output(0),
                          Op("Sum", {three, Ints({0, 1}, {2})})->output(0)})->output(0);
  auto grads = AddGradients(g_, {y}, {x}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  auto session = NewSession();
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> out;
    Status s = session->Run({}, {(*grads)[0].values}, {}, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(Floats(out[0]), (std::vector<float>{3, 4, 4, 5}));
  }
}

// Split x (rows 1 and 2) into an array, concat it back, and weight the rows: the gradient
// goes back through ConcatV3 (a split of the gradient) and SplitV3 (a concat).
TEST_F(ListKernelsTest, GradientsThroughTensorArraySplitConcat) {
  Output x = Floats({1, 2, 3}, {3});
  Operation* ta = Op("TensorArrayV3", {Int(2)}, {{"dtype", AttrOfType(DT_FLOAT)}});
  Tensor lengths = Tensor::Allocate(DT_INT64, {2}).value();
  lengths.flat<int64_t>()[0] = 1;
  lengths.flat<int64_t>()[1] = 2;
  Output flow = Op("TensorArraySplitV3", {ta->output(0), x, Const(lengths), ta->output(1)},
                   {{"T", AttrOfType(DT_FLOAT)}})->output(0);
  Output back = Op("TensorArrayConcatV3", {ta->output(0), flow}, {{"dtype", AttrOfType(DT_FLOAT)}})->output(0);
  Output y = Op("Sum", {Op("Mul", {back, Floats({10, 20, 30}, {3})})->output(0), Ints({0}, {1})})->output(0);
  auto grads = AddGradients(g_, {y}, {x}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  std::vector<Tensor> out;
  Status s = Fetch({(*grads)[0].values, back}, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{1, 2, 3}));
}

}  // namespace
}  // namespace tgraph
