#include "core/base/tensor.h"
#include "core/base/tensor_limits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>

namespace tgraph {
namespace {

TEST(TensorTest, AllocateZeroFills) {
  auto t = Tensor::Allocate(DT_FLOAT, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DT_FLOAT);
  EXPECT_EQ(t->NumElements(), 6);
  EXPECT_EQ(t->rank(), 2);
  EXPECT_EQ(t->ByteSize(), 24u);
  EXPECT_EQ(t->shape(), (PartialShape{2, 3}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % 64, 0u);  // aligned for SIMD kernels
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->flat<float>()[i], 0.0f);
}

TEST(TensorTest, ScalarAndEmpty) {
  auto scalar = Tensor::Allocate(DT_INT64, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->NumElements(), 1);
  EXPECT_EQ(scalar->ByteSize(), 8u);
  auto empty = Tensor::Allocate(DT_INT32, {3, 0});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->NumElements(), 0);
  EXPECT_EQ(empty->ByteSize(), 0u);
}

TEST(TensorTest, Strings) {
  auto t = Tensor::Allocate(DT_STRING, {2});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data(), nullptr);
  ASSERT_EQ(t->strings().size(), 2u);
  EXPECT_EQ(t->strings()[0], "");
  t->strings()[1] = "hi";
  EXPECT_EQ(t->DebugString(), "string [2] {\"\", \"hi\"}");
}

TEST(TensorTest, AllocateRejectsBadInput) {
  EXPECT_EQ(Tensor::Allocate(DT_INVALID, {1}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DT_FLOAT_REF, {1}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(static_cast<DataType>(99), {1}).status().code(),
            Code::kInvalidArgument);
  auto neg = Tensor::Allocate(DT_FLOAT, {2, -1});
  EXPECT_EQ(neg.status().code(), Code::kInvalidArgument);
  EXPECT_NE(neg.status().message().find("dimension 1"), std::string::npos);
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(Tensor::Allocate(DT_FLOAT, {big, big}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DT_RESOURCE, {1}).status().code(), Code::kUnimplemented);
}

TEST(TensorTest, SizeNearSizeMaxFailsCleanly) {
  // n * elem just fits size_t; rounding it up for alignment must not wrap around to a tiny
  // buffer (which zero-filling would then overrun). (Sizes that merely exceed memory are
  // left out: sanitizers abort on such requests.)
  auto t = Tensor::Allocate(DT_INT16, {std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
}

// Issue 21, item 4: a shape read from a file or a kernel's input that needs more memory than
// the machine has is RESOURCE_EXHAUSTED before anything is allocated (never bad_alloc).
TEST(TensorTest, LargerThanMemoryIsResourceExhaustedBeforeAllocating) {
  ASSERT_GT(MaxTensorBytes(), 0u);
  const int64_t big = int64_t{1} << 40;
  // 2^40 floats (4 TiB) and 2^40 strings (each a std::string): no allocation is tried, so
  // this neither throws nor trips a sanitizer's allocation-size check.
  for (DataType dtype : {DT_FLOAT, DT_STRING, DT_COMPLEX128}) {
    auto t = Tensor::Allocate(dtype, {big});
    ASSERT_EQ(t.status().code(), Code::kResourceExhausted) << DataTypeName(dtype);
    EXPECT_NE(t.status().message().find("[1099511627776]"), std::string::npos)
        << t.status().message();
    EXPECT_NE(t.status().message().find("TGRAPH_MAX_TENSOR_BYTES"), std::string::npos);
    auto u = Tensor::AllocateUninitialized(dtype, {big, 4});
    EXPECT_EQ(u.status().code(), Code::kResourceExhausted) << DataTypeName(dtype);
  }
  // Elements that fit int64_t but bytes that do not fit size_t.
  auto wide = Tensor::Allocate(DT_DOUBLE, {int64_t{1} << 62});
  EXPECT_EQ(wide.status().code(), Code::kResourceExhausted);
  EXPECT_NE(wide.status().message().find("more bytes than a size_t holds"), std::string::npos);
}

TEST(TensorTest, CopiesShareTheBuffer) {
  auto t = Tensor::Allocate(DT_INT32, {4});
  ASSERT_TRUE(t.ok());
  Tensor copy = t.value();
  copy.flat<int32_t>()[2] = 7;
  EXPECT_EQ(t->flat<int32_t>()[2], 7);
  EXPECT_EQ(copy.buffer(), t->buffer());
}

TEST(TensorTest, WrapCallsDeallocatorOnce) {
  int calls = 0;
  void* mem = std::malloc(16);
  {
    auto buffer = std::make_shared<TensorBuffer>(mem, 16, [&](void* p, size_t size) {
      EXPECT_EQ(p, mem);
      EXPECT_EQ(size, 16u);
      std::free(p);
      ++calls;
    });
    auto t = Tensor::Wrap(DT_FLOAT, {2, 2}, buffer);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->data(), mem);
    Tensor copy = t.value();
    buffer.reset();
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
}

TEST(TensorTest, WrapRejectsWrongSizeAndDtype) {
  auto buffer = TensorBuffer::Allocate(12);
  auto t = Tensor::Wrap(DT_FLOAT, {2, 2}, buffer);
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find("16 bytes"), std::string::npos) << t.status().message();
  EXPECT_FALSE(Tensor::Wrap(DT_STRING, {1}, buffer).ok());
  EXPECT_FALSE(Tensor::Wrap(DT_FLOAT, {3}, nullptr).ok());
  // A size that overflows size_t must not wrap around to match a small buffer.
  auto empty = TensorBuffer::Allocate(0);
  EXPECT_FALSE(Tensor::Wrap(DT_DOUBLE, {int64_t{1} << 62}, empty).ok());
}

TEST(TensorTest, Equals) {
  auto a = Tensor::Allocate(DT_INT32, {2});
  auto b = Tensor::Allocate(DT_INT32, {2});
  auto c = Tensor::Allocate(DT_INT32, {1, 2});
  auto d = Tensor::Allocate(DT_UINT32, {2});
  EXPECT_TRUE(a->Equals(b.value()));
  b->flat<int32_t>()[1] = 1;
  EXPECT_FALSE(a->Equals(b.value()));
  EXPECT_FALSE(a->Equals(c.value()));
  EXPECT_FALSE(a->Equals(d.value()));
  EXPECT_TRUE(Tensor().Equals(Tensor()));
}

TEST(TensorTest, DebugString) {
  auto t = Tensor::Allocate(DT_FLOAT, {3});
  t->flat<float>()[0] = 1;
  t->flat<float>()[1] = 2.5f;
  EXPECT_EQ(t->DebugString(), "float [3] {1, 2.5, 0}");
  EXPECT_EQ(t->DebugString(2), "float [3] {1, 2.5, ...}");
  auto b = Tensor::Allocate(DT_INT8, {1});
  b->flat<int8_t>()[0] = -3;
  EXPECT_EQ(b->DebugString(), "int8 [1] {-3}");  // printed as a number, not a char
}

TEST(TensorTest, NumElementsOf) {
  EXPECT_EQ(NumElementsOf({}).value(), 1);
  EXPECT_EQ(NumElementsOf({2, 3, 4}).value(), 24);
  EXPECT_EQ(NumElementsOf({5, 0}).value(), 0);
  EXPECT_FALSE(NumElementsOf({-1}).ok());
  const int64_t big = int64_t{1} << 32;
  EXPECT_EQ(NumElementsOf({big, big}).status().code(), Code::kInvalidArgument);
}

TEST(TensorTest, TakeBufferLeavingViewHandsOverOwnership) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {2}).value();
  t.flat<float>()[1] = 5;
  const void* data = t.data();
  EXPECT_FALSE(t.IsBorrowedView());
  std::shared_ptr<TensorBuffer> owner = t.TakeBufferLeavingView();
  EXPECT_EQ(owner.use_count(), 1);  // the view adds no reference
  EXPECT_EQ(owner->data(), data);
  EXPECT_TRUE(t.IsBorrowedView());
  EXPECT_EQ(t.data(), data);
  EXPECT_EQ(t.flat<float>()[1], 5);
  EXPECT_EQ(t.ByteSize(), 2 * sizeof(float));
}

TEST(TensorTest, TakeLeavingViewHandsOverTheWholeTensor) {
  Tensor t = Tensor::Allocate(DT_INT32, {2, 3}).value();
  t.flat<int32_t>()[5] = 7;
  const void* data = t.data();
  Tensor owner = t.TakeLeavingView();
  EXPECT_FALSE(owner.IsBorrowedView());
  EXPECT_EQ(owner.buffer().use_count(), 1);
  EXPECT_EQ(owner.dtype(), DT_INT32);
  EXPECT_EQ(owner.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(owner.NumElements(), 6);
  EXPECT_EQ(owner.data(), data);
  EXPECT_TRUE(t.IsBorrowedView());
  EXPECT_EQ(t.flat<int32_t>()[5], 7);
}

TEST(TensorTest, TakeLeavingViewIntoWritesTheOwnerInPlace) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {2}).value();
  t.flat<float>()[0] = 3;
  const void* data = t.data();
  Tensor owner = Tensor::Allocate(DT_INT32, {4}).value();  // replaced wholesale
  t.TakeLeavingViewInto(&owner);
  EXPECT_FALSE(owner.IsBorrowedView());
  EXPECT_EQ(owner.buffer().use_count(), 1);
  EXPECT_EQ(owner.dtype(), DT_FLOAT);
  EXPECT_EQ(owner.dims(), (std::vector<int64_t>{2}));
  EXPECT_EQ(owner.NumElements(), 2);
  EXPECT_EQ(owner.data(), data);
  EXPECT_TRUE(t.IsBorrowedView());
  EXPECT_EQ(t.flat<float>()[0], 3);
}

TEST(TensorTest, BorrowFromViewsWithoutAReference) {
  Tensor owner = Tensor::Allocate(DT_FLOAT, {3}).value();
  Tensor view = Tensor::Allocate(DT_INT64, {1}).value();
  view.BorrowFrom(owner);
  EXPECT_TRUE(view.IsBorrowedView());
  EXPECT_EQ(owner.buffer().use_count(), 1);
  EXPECT_EQ(view.data(), owner.data());
  EXPECT_EQ(view.dtype(), DT_FLOAT);
  EXPECT_EQ(view.dims(), owner.dims());
  Tensor strings = Tensor::Allocate(DT_STRING, {2}).value();
  view.BorrowFrom(strings);  // no buffer: the strings are shared as by a copy
  EXPECT_FALSE(view.IsBorrowedView());
  EXPECT_EQ(view.data(), nullptr);
  EXPECT_EQ(&view.strings(), &strings.strings());
}

TEST(TensorTest, ClearLetsGoOfEverything) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {2, 2}).value();
  std::shared_ptr<TensorBuffer> kept = t.buffer();
  t.Clear();
  EXPECT_EQ(kept.use_count(), 1);
  EXPECT_EQ(t.dtype(), DT_INVALID);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.NumElements(), 0);
  EXPECT_EQ(t.data(), nullptr);
  EXPECT_EQ(t.ByteSize(), 0u);
  EXPECT_TRUE(t.Equals(Tensor()));
}

}  // namespace
}  // namespace tgraph
