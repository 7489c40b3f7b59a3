// VariableV2 / Assign / AssignAdd / AssignSub / ScatterUpdate / ScatterAdd / ScatterSub
// through ref inputs (VariableSlot), as the executor will drive them; the typed tests run
// every dtype each kernel is registered for.
#include <Eigen/Core>

#include <complex>
#include <limits>
#include <thread>
#include <type_traits>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

VariableSlot* NewSlot(const std::string& name, Tensor value, bool initialized = true) {
  auto* slot = new VariableSlot;
  slot->name = name;
  slot->value = std::move(value);
  slot->initialized = initialized;
  return slot;
}

TEST(VariableKernelTest, AssignInitializesWithACopy) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", Tensor(), false));
  Tensor value = F32({2, 2}, {1, 2, 3, 4});
  OpRun r = RunArgs("Assign", {Ref(slot.get(), value), In(value)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(slot->initialized);
  EXPECT_TRUE(slot->value.Equals(value));
  EXPECT_NE(slot->value.data(), value.data());  // the variable owns its buffer
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].Equals(value));  // output_ref: the variable's value
}

TEST(VariableKernelTest, AssignSameShapeWritesInPlace) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({3}, {0, 0, 0})));
  void* buffer = slot->value.data();
  OpRun r = RunArgs("Assign", {Ref(slot.get(), slot->value), In(F32({3}, {7, 8, 9}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(slot->value.data(), buffer);
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{7, 8, 9}));
  // Strings and int64 too.
  Tensor s = Tensor::Allocate(DT_STRING, {2}).value();
  s.strings() = {"a", "bc"};
  std::unique_ptr<VariableSlot> str(NewSlot("s", Tensor(), false));
  r = RunArgs("Assign", {Ref(str.get(), s), In(s)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(str->value.Equals(s));
}

TEST(VariableKernelTest, AssignValidatesShape) {
  // The graph says [2] (so construction passes); the variable actually holds [3].
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({3}, {1, 2, 3})));
  OpRun r = RunArgs("Assign", {Ref(slot.get(), F32({2}, {0, 0})), In(F32({2}, {5, 6}))});
  ExpectInvalid(r.status, {"node", "Assign requires shapes of both tensors to match",
                           "lhs shape= [3]", "rhs shape= [2]"});
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{1, 2, 3}));  // untouched
  // validate_shape=false takes the new shape.
  r = RunArgs("Assign", {Ref(slot.get(), F32({3}, {0, 0, 0})), In(F32({2}, {5, 6}))},
              {{"validate_shape", AttrOfBool(false)}, {"use_locking", AttrOfBool(false)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(slot->value.dims(), std::vector<int64_t>{2});
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{5, 6}));
}

// Integer updates wrap on overflow, as TensorFlow's do (the op_run fuzz seeds found the
// signed overflow under UBSan).
TEST(VariableKernelTest, IntegerUpdatesWrapOnOverflow) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  std::unique_ptr<VariableSlot> v(NewSlot("v", I32({2}, {big, -big})));
  OpRun r = RunArgs("AssignAdd", {Ref(v.get(), v->value), In(I32({2}, {1, 0}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(v->value), (std::vector<int32_t>{-big - 1, -big}));
  r = RunArgs("AssignSub", {Ref(v.get(), v->value), In(I32({2}, {1, 2}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(v->value), (std::vector<int32_t>{big, big}));  // -2^31 - 1, -2^31 - 1
  r = RunArgs("ScatterAdd", {Ref(v.get(), v->value), In(I32Vec({0, 0})), In(I32Vec({1, 1}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(v->value), (std::vector<int32_t>{-big, big}));
  r = RunArgs("ScatterSub", {Ref(v.get(), v->value), In(I32Vec({0})), In(I32Vec({2}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(v->value), (std::vector<int32_t>{big, big}));
}

TEST(VariableKernelTest, AssignAddSub) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({2}, {1, 2})));
  OpRun r = RunArgs("AssignAdd", {Ref(slot.get(), slot->value), In(F32({2}, {10, 20}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{11, 22}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{11, 22}));
  r = RunArgs("AssignSub", {Ref(slot.get(), slot->value), In(F32({2}, {1, 1}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{10, 21}));
  std::unique_ptr<VariableSlot> i64(NewSlot("n", I64({}, {5})));
  r = RunArgs("AssignSub", {Ref(i64.get(), i64->value), In(I64({}, {7}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(i64->value), std::vector<int64_t>{-2});
  std::unique_ptr<VariableSlot> d(NewSlot("d", MakeTensor<double>(DT_DOUBLE, {1}, {0.5})));
  r = RunArgs("AssignAdd",
              {Ref(d.get(), d->value), In(MakeTensor<double>(DT_DOUBLE, {1}, {0.25}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(d->value), std::vector<double>{0.75});
}

TEST(VariableKernelTest, AssignAddRejectsShapeMismatchAndUninitialized) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({3}, {1, 2, 3})));
  OpRun r = RunArgs("AssignAdd", {Ref(slot.get(), F32({2}, {0, 0})), In(F32({2}, {1, 1}))});
  ExpectInvalid(r.status, {"Cannot update variable with shape [3] using a Tensor with shape [2]"});
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{1, 2, 3}));
  std::unique_ptr<VariableSlot> uninit(NewSlot("weights", Tensor(), false));
  r = RunArgs("AssignAdd", {Ref(uninit.get(), F32({2}, {0, 0})), In(F32({2}, {1, 1}))});
  ExpectInvalid(r.status, {"uninitialized", "weights"}, Code::kFailedPrecondition);
}

TEST(VariableKernelTest, ConcurrentLockedAddsAreNotLost) {
  std::unique_ptr<VariableSlot> slot(NewSlot("counter", I64({}, {0})));
  KernelFixture f("AssignAdd", {Ref(slot.get(), slot->value), In(I64({}, {1}))},
                  {{"use_locking", AttrOfBool(true)}});
  ASSERT_TRUE(f.status().ok()) << f.status().ToString();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&f] {
      for (int i = 0; i < 500; ++i) ASSERT_TRUE(f.Run().status.ok());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(Values<int64_t>(slot->value), std::vector<int64_t>{2000});
}

TEST(VariableKernelTest, ScatterUpdateAddSub) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({4, 2}, {0, 0, 1, 1, 2, 2, 3, 3})));
  OpRun r = RunArgs("ScatterUpdate", {Ref(slot.get(), slot->value), In(I32Vec({3, 1})),
                                      In(F32({2, 2}, {30, 31, 10, 11}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{0, 0, 10, 11, 2, 2, 30, 31}));
  EXPECT_TRUE(r.outputs[0].Equals(slot->value));
  // Duplicates accumulate.
  r = RunArgs("ScatterAdd", {Ref(slot.get(), slot->value), In(I64({3}, {0, 0, 2})),
                             In(F32({3, 2}, {1, 2, 3, 4, 5, 6}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{4, 6, 10, 11, 7, 8, 30, 31}));
  // A scalar update applies to every addressed element.
  r = RunArgs("ScatterSub", {Ref(slot.get(), slot->value), In(I32Vec({1, 3})), In(F32({}, {10}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(slot->value), (std::vector<float>{4, 6, 0, 1, 7, 8, 20, 21}));
  // Rank-2 indices, rank-1 variable, int32.
  std::unique_ptr<VariableSlot> iv(NewSlot("i", I32({5}, {0, 0, 0, 0, 0})));
  r = RunArgs("ScatterAdd", {Ref(iv.get(), iv->value), In(I32({2, 2}, {4, 0, 4, 1})),
                             In(I32({2, 2}, {1, 2, 3, 4}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(iv->value), (std::vector<int32_t>{2, 4, 0, 0, 4}));
  // ScatterUpdate moves any plain dtype (half: 2-byte elements).
  Tensor h = Tensor::Allocate(DT_HALF, {3}).value();
  std::unique_ptr<VariableSlot> hv(NewSlot("h", h));
  Tensor hu = Tensor::Allocate(DT_HALF, {1}).value();
  hu.flat<uint16_t>()[0] = 0x3C00;
  r = RunArgs("ScatterUpdate", {Ref(hv.get(), hv->value), In(I32Vec({2})), In(hu)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<uint16_t>(hv->value), (std::vector<uint16_t>{0, 0, 0x3C00}));
  // Empty indices: nothing changes.
  r = RunArgs("ScatterUpdate", {Ref(iv.get(), iv->value), In(I32({0}, {})), In(I32({0}, {}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
}

TEST(VariableKernelTest, ScatterRejectsBadIndicesAndShapesWithoutWriting) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", F32({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7})));
  const std::vector<float> before = Values<float>(slot->value);
  OpRun r = RunArgs("ScatterAdd", {Ref(slot.get(), slot->value), In(I32Vec({1, 4})),
                                   In(F32({2, 2}, {1, 1, 1, 1}))});
  ExpectInvalid(r.status, {"node", "indices[1] = 4 is not in [0, 4)"});
  EXPECT_EQ(Values<float>(slot->value), before);  // row 1 was not updated either
  r = RunArgs("ScatterUpdate",
              {Ref(slot.get(), slot->value), In(I32Vec({-1})), In(F32({1, 2}, {1, 1}))});
  ExpectInvalid(r.status, {"indices[0] = -1 is not in [0, 4)"});
  r = RunArgs("ScatterUpdate",
              {Ref(slot.get(), slot->value), In(I32Vec({0})), In(F32({1, 3}, {1, 1, 1}))}, {},
              false);
  ExpectInvalid(r.status, {"updates.shape = indices.shape + params.shape[1:]", "[1,3]"});
  EXPECT_EQ(Values<float>(slot->value), before);
}

// ---- Every registered dtype. Values are written as complex numbers: complex dtypes keep both
// parts, real dtypes the real part (bool: nonzero). Small integers, so half and bfloat16 hold
// every operand and result exactly and the comparisons below are exact.
using C = std::complex<double>;

// The DataType of a typed test's element type.
template <typename T>
constexpr DataType kDtypeOf = DT_INVALID;
template <>
constexpr DataType kDtypeOf<bool> = DT_BOOL;
template <>
constexpr DataType kDtypeOf<int8_t> = DT_INT8;
template <>
constexpr DataType kDtypeOf<uint8_t> = DT_UINT8;
template <>
constexpr DataType kDtypeOf<int16_t> = DT_INT16;
template <>
constexpr DataType kDtypeOf<uint16_t> = DT_UINT16;
template <>
constexpr DataType kDtypeOf<Eigen::half> = DT_HALF;
template <>
constexpr DataType kDtypeOf<Eigen::bfloat16> = DT_BFLOAT16;
template <>
constexpr DataType kDtypeOf<float> = DT_FLOAT;
template <>
constexpr DataType kDtypeOf<int32_t> = DT_INT32;
template <>
constexpr DataType kDtypeOf<uint32_t> = DT_UINT32;
template <>
constexpr DataType kDtypeOf<double> = DT_DOUBLE;
template <>
constexpr DataType kDtypeOf<int64_t> = DT_INT64;
template <>
constexpr DataType kDtypeOf<uint64_t> = DT_UINT64;
template <>
constexpr DataType kDtypeOf<std::complex<float>> = DT_COMPLEX64;
template <>
constexpr DataType kDtypeOf<std::complex<double>> = DT_COMPLEX128;

template <typename T>
T Elem(const C& c) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    return T(static_cast<R>(c.real()), static_cast<R>(c.imag()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return c.real() != 0;
  } else if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    return T(static_cast<float>(c.real()));
  } else {
    return static_cast<T>(c.real());
  }
}

template <typename T>
std::vector<T> Elems(const std::vector<C>& v) {
  std::vector<T> out;
  for (const C& c : v) out.push_back(Elem<T>(c));
  return out;
}

template <typename T>
Tensor Elems(std::vector<int64_t> dims, const std::vector<C>& v) {
  static_assert(kDtypeOf<T> != DT_INVALID);
  return MakeTensor<T>(kDtypeOf<T>, std::move(dims), Elems<T>(v));
}

// AssignAdd, AssignSub, ScatterAdd and ScatterSub: one kernel per dtype.
template <typename T>
class VariableUpdateTest : public ::testing::Test {};
using UpdateTypes = ::testing::Types<float, double, int32_t, int64_t, Eigen::half, Eigen::bfloat16,
                                     std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(VariableUpdateTest, UpdateTypes);

TYPED_TEST(VariableUpdateTest, AssignAddSub) {
  using T = TypeParam;
  std::unique_ptr<VariableSlot> slot(
      NewSlot("v", Elems<T>({2, 2}, {{1, 2}, {2, -1}, {-3, 4}, {0, -5}})));
  void* buffer = slot->value.data();
  OpRun r = RunArgs("AssignAdd", {Ref(slot.get(), slot->value),
                                  In(Elems<T>({2, 2}, {{10, 1}, {20, 3}, {5, -4}, {-7, 2}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(slot->value.data(), buffer);  // in place
  EXPECT_EQ(slot->value.dtype(), kDtypeOf<T>);
  const std::vector<T> sum = Elems<T>({{11, 3}, {22, 2}, {2, 0}, {-7, -3}});
  EXPECT_EQ(Values<T>(slot->value), sum);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(Values<T>(r.outputs[0]), sum);  // output_ref: the updated variable
  r = RunArgs(
      "AssignSub",
      {Ref(slot.get(), slot->value), In(Elems<T>({2, 2}, {{1, 1}, {30, 0}, {2, 2}, {-7, -3}}))},
      {{"use_locking", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<T> difference = Elems<T>({{10, 2}, {-8, 2}, {0, -2}, {0, 0}});
  EXPECT_EQ(Values<T>(slot->value), difference);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(Values<T>(r.outputs[0]), difference);
  // A shape mismatch leaves the variable as it was.
  r = RunArgs("AssignAdd", {Ref(slot.get(), Elems<T>({4}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}})),
                            In(Elems<T>({4}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}))});
  ExpectInvalid(r.status,
                {"Cannot update variable with shape [2,2] using a Tensor with shape [4]"});
  EXPECT_EQ(Values<T>(slot->value), difference);
}

TYPED_TEST(VariableUpdateTest, ScatterAddSub) {
  using T = TypeParam;
  std::unique_ptr<VariableSlot> slot(NewSlot(
      "v", Elems<T>({4, 2}, {{1, 1}, {2, 0}, {3, -1}, {4, 2}, {5, 0}, {6, -3}, {7, 1}, {8, 1}})));
  // int64 indices; duplicates accumulate.
  OpRun r =
      RunArgs("ScatterAdd",
              {Ref(slot.get(), slot->value), In(I64({3}, {2, 0, 2})),
               In(Elems<T>({3, 2}, {{10, 1}, {20, 2}, {1, -1}, {1, 1}, {100, 3}, {200, -2}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(slot->value),
            Elems<T>({{2, 0}, {3, 1}, {3, -1}, {4, 2}, {115, 4}, {226, -3}, {7, 1}, {8, 1}}));
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].Equals(slot->value));
  // A scalar update applies to every element of the addressed rows.
  r = RunArgs("ScatterSub",
              {Ref(slot.get(), slot->value), In(I32Vec({3, 1})), In(Elems<T>({}, {{2, 1}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(slot->value),
            Elems<T>({{2, 0}, {3, 1}, {1, -2}, {2, 1}, {115, 4}, {226, -3}, {5, 0}, {6, 0}}));
  // Rank-2 int32 indices: updates have shape indices.shape + params.shape[1:].
  r = RunArgs("ScatterSub", {Ref(slot.get(), slot->value), In(I32({2, 1}, {1, 0})),
                             In(Elems<T>({2, 1, 2}, {{1, 0}, {2, -1}, {2, 0}, {3, 1}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(slot->value),
            Elems<T>({{0, 0}, {0, 0}, {0, -2}, {0, 2}, {115, 4}, {226, -3}, {5, 0}, {6, 0}}));
  EXPECT_TRUE(r.outputs[0].Equals(slot->value));
  // A bad index writes nothing, not even the rows before it.
  const std::vector<T> before = Values<T>(slot->value);
  r = RunArgs("ScatterAdd", {Ref(slot.get(), slot->value), In(I32Vec({0, 4})),
                             In(Elems<T>({2, 2}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}))});
  ExpectInvalid(r.status, {"indices[1] = 4 is not in [0, 4)"});
  EXPECT_EQ(Values<T>(slot->value), before);
}

// ScatterUpdate moves elements by size: one kernel per element size (1, 2, 4, 8 and 16
// bytes), each registered for every plain dtype of that size.
template <typename T>
class ScatterUpdateTest : public ::testing::Test {};
using ScatterUpdateTypes =
    ::testing::Types<bool, int8_t, uint8_t, int16_t, uint16_t, Eigen::half, Eigen::bfloat16, float,
                     int32_t, uint32_t, double, int64_t, uint64_t, std::complex<float>,
                     std::complex<double>>;
TYPED_TEST_SUITE(ScatterUpdateTest, ScatterUpdateTypes);

TYPED_TEST(ScatterUpdateTest, WritesRowsLastDuplicateWins) {
  using T = TypeParam;
  // Non-negative real parts (unsigned dtypes); as bool the rows read 01, 10, 10, 10.
  std::unique_ptr<VariableSlot> slot(NewSlot(
      "v", Elems<T>({4, 2}, {{0, 1}, {1, 0}, {2, 3}, {0, 0}, {1, 1}, {0, 2}, {3, 0}, {0, 4}})));
  void* buffer = slot->value.data();
  OpRun r = RunArgs("ScatterUpdate",
                    {Ref(slot.get(), slot->value), In(I64({3}, {3, 0, 3})),
                     In(Elems<T>({3, 2}, {{9, 9}, {9, 9}, {4, 0}, {0, -1}, {0, 7}, {6, 0}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(slot->value.data(), buffer);
  EXPECT_EQ(Values<T>(slot->value),
            Elems<T>({{4, 0}, {0, -1}, {2, 3}, {0, 0}, {1, 1}, {0, 2}, {0, 7}, {6, 0}}));
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].Equals(slot->value));
  // A scalar update fills the addressed row.
  r = RunArgs("ScatterUpdate",
              {Ref(slot.get(), slot->value), In(I32Vec({1})), In(Elems<T>({}, {{5, -5}}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(slot->value),
            Elems<T>({{4, 0}, {0, -1}, {5, -5}, {5, -5}, {1, 1}, {0, 2}, {0, 7}, {6, 0}}));
}

}  // namespace
}  // namespace tgraph::testing

namespace tgraph::testing {
namespace {

TEST(VariableKernelTest, IsVariableInitializedTakesAnUninitializedSlot) {
  std::unique_ptr<VariableSlot> slot(NewSlot("v", Tensor(), false));
  OpRun r = RunArgs("IsVariableInitialized", {Ref(slot.get(), F32({2}, {0, 0}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].dtype(), DT_BOOL);
  EXPECT_FALSE(r.outputs[0].flat<bool>()[0]);
  slot->value = F32({2}, {1, 2});
  slot->initialized = true;
  r = RunArgs("IsVariableInitialized", {Ref(slot.get(), slot->value)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].flat<bool>()[0]);
}

}  // namespace
}  // namespace tgraph::testing
