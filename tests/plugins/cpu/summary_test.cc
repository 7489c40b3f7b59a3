// The summary kernels of the CPU plugin (ScalarSummary, HistogramSummary, MergeSummary).
// The plugin builds its Summary protos with its own lite copy of summary.proto while this
// process holds the core's full generated code of the same file: the outputs are parsed here
// with the full protos, so the test also shows that both live in one process.
#include <cfloat>
#include <cmath>

#include "common/histogram.h"
#include "nn_test_util.h"
#include "tgraph/proto/summary.pb.h"

namespace tgraph::testing {
namespace {

Tensor Strings(std::vector<int64_t> dims, const std::vector<std::string>& values) {
  Tensor t = Tensor::Allocate(DT_STRING, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  for (size_t i = 0; i < values.size() && i < t.strings().size(); ++i) t.strings()[i] = values[i];
  return t;
}

template <typename T>
Tensor Typed(DataType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<T>()[i] = static_cast<T>(v[i]);
  return t;
}

// Every dtype the kernels are registered for, with values each can hold.
Tensor OfDtype(DataType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  switch (dtype) {
    case DT_FLOAT: return Typed<float>(dtype, std::move(dims), v);
    case DT_DOUBLE: return Typed<double>(dtype, std::move(dims), v);
    case DT_INT8: return Typed<int8_t>(dtype, std::move(dims), v);
    case DT_INT16: return Typed<int16_t>(dtype, std::move(dims), v);
    case DT_INT32: return Typed<int32_t>(dtype, std::move(dims), v);
    case DT_INT64: return Typed<int64_t>(dtype, std::move(dims), v);
    case DT_UINT8: return Typed<uint8_t>(dtype, std::move(dims), v);
    case DT_UINT16: return Typed<uint16_t>(dtype, std::move(dims), v);
    case DT_UINT32: return Typed<uint32_t>(dtype, std::move(dims), v);
    case DT_UINT64: return Typed<uint64_t>(dtype, std::move(dims), v);
    default: ADD_FAILURE() << "unsupported " << DataTypeName(dtype); return Tensor();
  }
}

const std::vector<DataType>& SummaryDtypes() {
  static const std::vector<DataType> dtypes = {DT_FLOAT, DT_DOUBLE, DT_INT8,   DT_INT16,
                                               DT_INT32, DT_INT64,  DT_UINT8,  DT_UINT16,
                                               DT_UINT32, DT_UINT64};
  return dtypes;
}

tf::Summary Parse(const OpRun& r) {
  tf::Summary s;
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  if (!r.status.ok()) return s;
  EXPECT_EQ(r.outputs[0].dtype(), DT_STRING);
  EXPECT_EQ(r.outputs[0].rank(), 0);
  EXPECT_TRUE(s.ParseFromString(r.outputs[0].strings()[0]));
  return s;
}

TEST(SummaryKernelTest, ScalarOneValuePerElement) {
  for (DataType dtype : SummaryDtypes()) {
    SCOPED_TRACE(DataTypeName(dtype));
    tf::Summary s = Parse(RunOp("ScalarSummary", {Strings({2}, {"a", "b/c"}),
                                                  OfDtype(dtype, {2}, {3, 100})}));
    ASSERT_EQ(s.value_size(), 2);
    EXPECT_EQ(s.value(0).tag(), "a");
    EXPECT_EQ(s.value(0).simple_value(), 3.0f);
    EXPECT_EQ(s.value(1).tag(), "b/c");
    EXPECT_EQ(s.value(1).simple_value(), 100.0f);
  }
  tf::Summary scalar = Parse(RunOp("ScalarSummary", {Strings({}, {"loss"}),
                                                     OfDtype(DT_DOUBLE, {}, {0.25})}));
  ASSERT_EQ(scalar.value_size(), 1);
  EXPECT_EQ(scalar.value(0).tag(), "loss");
  EXPECT_EQ(scalar.value(0).simple_value(), 0.25f);
}

TEST(SummaryKernelTest, ScalarShapesMustMatch) {
  ExpectStatus(RunOp("ScalarSummary", {Strings({}, {"loss"}), OfDtype(DT_FLOAT, {2}, {1, 2})},
                     {}, /*known_shapes=*/false)
                   .status,
               Code::kInvalidArgument,
               {"tags and values are not the same shape: [] != [2]", "'loss'"});
}

TEST(SummaryKernelTest, HistogramMatchesTheSharedHistogram) {
  const std::vector<double> values = {-3, -3, 0, 0.5, 1, 1, 7, 120};
  for (DataType dtype : SummaryDtypes()) {
    SCOPED_TRACE(DataTypeName(dtype));
    std::vector<double> held;  // what the dtype holds of the values (no negatives unsigned)
    for (double v : values) {
      if (DataTypeName(dtype)[0] == 'u' && v < 0) continue;
      held.push_back(dtype == DT_FLOAT || dtype == DT_DOUBLE ? v : std::trunc(v));
    }
    tf::Summary s = Parse(RunOp("HistogramSummary",
                                {Strings({}, {"weights"}),
                                 OfDtype(dtype, {static_cast<int64_t>(held.size())}, held)}));
    ASSERT_EQ(s.value_size(), 1);
    EXPECT_EQ(s.value(0).tag(), "weights");
    ASSERT_TRUE(s.value(0).has_histo());
    tf::HistogramProto want;
    histogram::Histogram h;
    for (double v : held) h.Add(v);
    h.EncodeTo(&want);
    EXPECT_EQ(s.value(0).histo().SerializeAsString(), want.SerializeAsString());
    EXPECT_EQ(s.value(0).histo().num(), static_cast<double>(held.size()));
  }
}

TEST(SummaryKernelTest, HistogramOfNothingHasOneBucket) {
  tf::Summary s = Parse(RunOp("HistogramSummary", {Strings({}, {"empty"}),
                                                   OfDtype(DT_FLOAT, {0, 3}, {})}));
  ASSERT_EQ(s.value_size(), 1);
  const tf::HistogramProto& h = s.value(0).histo();
  EXPECT_EQ(h.num(), 0);
  ASSERT_EQ(h.bucket_limit_size(), 1);
  EXPECT_EQ(h.bucket_limit(0), DBL_MAX);
  EXPECT_EQ(h.bucket(0), 0);
}

TEST(SummaryKernelTest, HistogramRejectsNonFiniteValuesAndNonScalarTags) {
  ExpectStatus(RunOp("HistogramSummary", {Strings({}, {"w"}),
                                          OfDtype(DT_FLOAT, {2}, {1, std::nan("")})})
                   .status,
               Code::kInvalidArgument, {"Nan in summary histogram for:"});
  ExpectStatus(RunOp("HistogramSummary", {Strings({}, {"w"}),
                                          OfDtype(DT_DOUBLE, {1}, {INFINITY})})
                   .status,
               Code::kInvalidArgument, {"Nan in summary histogram for:"});
  ExpectStatus(RunOp("HistogramSummary", {Strings({2}, {"a", "b"}), OfDtype(DT_FLOAT, {1}, {1})},
                     {}, /*known_shapes=*/false)
                   .status,
               Code::kInvalidArgument, {"tags must be scalar"});
}

std::string ScalarBytes(const std::string& tag, float v) {
  tf::Summary s;
  tf::Summary::Value* value = s.add_value();
  value->set_tag(tag);
  value->set_simple_value(v);
  return s.SerializeAsString();
}

TEST(SummaryKernelTest, MergeKeepsEveryValueInOrder) {
  tf::Summary s = Parse(RunOpEx(
      "MergeSummary",
      {Strings({}, {ScalarBytes("a", 1)}),
       Strings({2}, {ScalarBytes("b", 2), ScalarBytes("c", 3)})},
      {}, nullptr, /*one_list=*/true));
  ASSERT_EQ(s.value_size(), 3);
  EXPECT_EQ(s.value(0).tag(), "a");
  EXPECT_EQ(s.value(1).tag(), "b");
  EXPECT_EQ(s.value(2).simple_value(), 3.0f);
}

TEST(SummaryKernelTest, MergeRejectsDuplicateTagsAndGarbage) {
  ExpectStatus(RunOpEx("MergeSummary",
                       {Strings({}, {ScalarBytes("loss", 1)}), Strings({}, {ScalarBytes("loss", 2)})},
                       {}, nullptr, /*one_list=*/true)
                   .status,
               Code::kInvalidArgument, {"Duplicate tag loss found in summary inputs"});
  ExpectStatus(RunOpEx("MergeSummary", {Strings({}, {std::string("\xff\xff\xff", 3)})}, {},
                       nullptr, /*one_list=*/true)
                   .status,
               Code::kInvalidArgument, {"Could not parse one of the summary inputs"});
}

}  // namespace
}  // namespace tgraph::testing
