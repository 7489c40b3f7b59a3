// TG_Status, data types, TG_Buffer and TG_Tensor through the C API.
#include <cstdlib>
#include <cstring>
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::IsOk;

TEST(StatusTest, NewStatusIsOkWithEmptyMessage) {
  TG_Status* s = TG_NewStatus();
  EXPECT_EQ(TG_GetCode(s), TG_OK);
  EXPECT_STREQ(TG_Message(s), "");
  TG_DeleteStatus(s);
}

TEST(StatusTest, SetAndGet) {
  TG_Status* s = TG_NewStatus();
  TG_SetStatus(s, TG_INVALID_ARGUMENT, "node 'x' is bad");
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);
  EXPECT_STREQ(TG_Message(s), "node 'x' is bad");
  TG_SetStatus(s, TG_OK, "ignored");
  EXPECT_EQ(TG_GetCode(s), TG_OK);
  EXPECT_STREQ(TG_Message(s), "");
  TG_SetStatus(s, TG_NOT_FOUND, nullptr);
  EXPECT_EQ(TG_GetCode(s), TG_NOT_FOUND);
  EXPECT_STREQ(TG_Message(s), "");
  TG_DeleteStatus(s);
}

TEST(StatusTest, CodesUseTensorFlowNumbering) {
  EXPECT_EQ(TG_OK, 0);
  EXPECT_EQ(TG_CANCELLED, 1);
  EXPECT_EQ(TG_INVALID_ARGUMENT, 3);
  EXPECT_EQ(TG_NOT_FOUND, 5);
  EXPECT_EQ(TG_FAILED_PRECONDITION, 9);
  EXPECT_EQ(TG_INTERNAL, 13);
  EXPECT_EQ(TG_UNAUTHENTICATED, 16);
  EXPECT_STREQ(TG_CodeName(TG_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(TG_CodeName(TG_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(TG_CodeName(TG_OK), "OK");
}

TEST(StatusTest, NullStatusIsTolerated) {
  TG_SetStatus(nullptr, TG_INTERNAL, "x");
  EXPECT_EQ(TG_GetCode(nullptr), TG_OK);
  EXPECT_STREQ(TG_Message(nullptr), "");
  TG_DeleteStatus(nullptr);
  // A fallible call with a NULL status does not crash either.
  EXPECT_EQ(TG_GraphGetTensorNumDims(nullptr, TG_Output{nullptr, 0}, nullptr), -1);
}

TEST(VersionTest, IsNonEmpty) {
  ASSERT_NE(TG_Version(), nullptr);
  EXPECT_NE(std::string(TG_Version()), "");
}

TEST(DataTypeTest, ValuesMatchTensorFlow) {
  EXPECT_EQ(TG_FLOAT, 1);
  EXPECT_EQ(TG_STRING, 7);
  EXPECT_EQ(TG_INT64, 9);
  EXPECT_EQ(TG_BFLOAT16, 14);
  EXPECT_EQ(TG_HALF, 19);
  EXPECT_EQ(TG_RESOURCE, 20);
  EXPECT_EQ(TG_UINT64, 23);
  EXPECT_EQ(TG_FLOAT4_E2M1FN, 33);
  EXPECT_EQ(TG_FLOAT_REF, 101);
  EXPECT_EQ(TG_INT64_REF, 109);
  EXPECT_EQ(TG_FLOAT4_E2M1FN_REF, 133);
}

TEST(DataTypeTest, SizesAndNames) {
  EXPECT_EQ(TG_DataTypeSize(TG_FLOAT), 4u);
  EXPECT_EQ(TG_DataTypeSize(TG_DOUBLE), 8u);
  EXPECT_EQ(TG_DataTypeSize(TG_INT8), 1u);
  EXPECT_EQ(TG_DataTypeSize(TG_COMPLEX128), 16u);
  EXPECT_EQ(TG_DataTypeSize(TG_FLOAT_REF), 4u);
  EXPECT_EQ(TG_DataTypeSize(TG_STRING), 0u);
  EXPECT_EQ(TG_DataTypeSize(static_cast<TG_DataType>(99)), 0u);
  EXPECT_STREQ(TG_DataTypeName(TG_FLOAT), "float");
  EXPECT_STREQ(TG_DataTypeName(TG_INT32), "int32");
  EXPECT_STREQ(TG_DataTypeName(TG_FLOAT_REF), "float_ref");
  EXPECT_STREQ(TG_DataTypeName(TG_BFLOAT16), "bfloat16");
  EXPECT_STREQ(TG_DataTypeName(TG_INVALID_DTYPE), "invalid");
  EXPECT_EQ(TG_DataTypeName(static_cast<TG_DataType>(50)), nullptr);
  EXPECT_EQ(TG_DataTypeName(static_cast<TG_DataType>(255)), nullptr);
}

// ---- buffers ----

int g_buffer_frees = 0;
void CountingFree(void* data, size_t) {
  ++g_buffer_frees;
  std::free(data);
}

TEST(BufferTest, NewBufferIsEmpty) {
  TG_Buffer* b = TG_NewBuffer();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->data, nullptr);
  EXPECT_EQ(b->length, 0u);
  EXPECT_EQ(b->data_deallocator, nullptr);
  TG_DeleteBuffer(b);
  TG_DeleteBuffer(nullptr);
}

TEST(BufferTest, FromStringCopies) {
  char src[] = "abc\0def";
  TG_Buffer* b = TG_NewBufferFromString(src, 7);
  ASSERT_NE(b, nullptr);
  src[0] = 'X';
  ASSERT_EQ(b->length, 7u);
  EXPECT_EQ(std::string(static_cast<const char*>(b->data), 7), std::string("abc\0def", 7));
  TG_Buffer copy = TG_GetBuffer(b);
  EXPECT_EQ(copy.data, b->data);
  EXPECT_EQ(copy.length, 7u);
  TG_DeleteBuffer(b);
}

TEST(BufferTest, DeleteCallsDeallocatorAndLibraryReplacesContents) {
  g_buffer_frees = 0;
  TG_Buffer* b = TG_NewBuffer();
  b->data = std::malloc(10);
  b->length = 10;
  b->data_deallocator = CountingFree;
  // Writing into the buffer releases the caller's data first.
  TG_Graph* g = TG_NewGraph();
  TG_Status* s = TG_NewStatus();
  TG_GraphToGraphDef(g, b, s);
  EXPECT_TRUE(IsOk(s));
  EXPECT_EQ(g_buffer_frees, 1);
  EXPECT_NE(b->data_deallocator, CountingFree);
  TG_DeleteBuffer(b);
  EXPECT_EQ(g_buffer_frees, 1);

  TG_Buffer* b2 = TG_NewBuffer();
  b2->data = std::malloc(3);
  b2->length = 3;
  b2->data_deallocator = CountingFree;
  TG_DeleteBuffer(b2);
  EXPECT_EQ(g_buffer_frees, 2);
  TG_DeleteGraph(g);
  TG_DeleteStatus(s);
}

// ---- tensors ----

TEST(TensorTest, AllocateZeroFilled) {
  int64_t dims[] = {2, 3};
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims, 2, 6 * sizeof(float));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TG_TensorType(t), TG_FLOAT);
  EXPECT_EQ(TG_NumDims(t), 2);
  EXPECT_EQ(TG_Dim(t, 0), 2);
  EXPECT_EQ(TG_Dim(t, 1), 3);
  EXPECT_EQ(TG_Dim(t, 2), -1);
  EXPECT_EQ(TG_Dim(t, -1), -1);
  EXPECT_EQ(TG_TensorByteSize(t), 24u);
  EXPECT_EQ(TG_TensorElementCount(t), 6);
  const float* p = static_cast<const float*>(TG_TensorData(t));
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 0.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  TG_DeleteTensor(t);
}

TEST(TensorTest, AllocateScalarAndEmpty) {
  TG_Tensor* s = TG_AllocateTensor(TG_INT64, nullptr, 0, 8);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(TG_NumDims(s), 0);
  EXPECT_EQ(TG_TensorElementCount(s), 1);
  TG_DeleteTensor(s);
  int64_t dims[] = {0, 5};
  TG_Tensor* e = TG_AllocateTensor(TG_FLOAT, dims, 2, 0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(TG_TensorElementCount(e), 0);
  EXPECT_EQ(TG_TensorByteSize(e), 0u);
  TG_DeleteTensor(e);
}

TEST(TensorTest, AllocateRejectsBadArguments) {
  int64_t dims[] = {2, 3};
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, dims, 2, 23), nullptr);          // wrong len
  EXPECT_EQ(TG_AllocateTensor(static_cast<TG_DataType>(77), dims, 2, 6), nullptr);
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT_REF, dims, 2, 24), nullptr);      // ref dtype
  EXPECT_EQ(TG_AllocateTensor(TG_RESOURCE, dims, 2, 0), nullptr);
  int64_t neg[] = {2, -1};
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, neg, 2, 8), nullptr);
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, nullptr, 2, 8), nullptr);
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, dims, -1, 24), nullptr);
  int64_t huge[] = {INT64_MAX / 2, 4};
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, huge, 2, 8), nullptr);
  EXPECT_EQ(TG_AllocateTensor(TG_STRING, dims, 2, 5), nullptr);
}

TEST(TensorTest, AllocateStringGivesEmptyStrings) {
  int64_t dims[] = {2};
  TG_Tensor* t = TG_AllocateTensor(TG_STRING, dims, 1, 0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TG_TensorData(t), nullptr);
  EXPECT_EQ(TG_TensorByteSize(t), 0u);
  TG_Status* s = TG_NewStatus();
  const char* data = nullptr;
  size_t len = 99;
  TG_TensorGetString(t, 1, &data, &len, s);
  EXPECT_TRUE(IsOk(s));
  EXPECT_EQ(len, 0u);
  TG_DeleteStatus(s);
  TG_DeleteTensor(t);
}

struct DeallocRecord {
  int calls = 0;
  void* data = nullptr;
  size_t len = 0;
};
void RecordDealloc(void* data, size_t len, void* arg) {
  auto* r = static_cast<DeallocRecord*>(arg);
  ++r->calls;
  r->data = data;
  r->len = len;
}

TEST(TensorTest, NewTensorAdoptsAlignedDataAndDeallocatesOnce) {
  void* mem = std::aligned_alloc(64, 64);
  float* f = static_cast<float*>(mem);
  for (int i = 0; i < 4; ++i) f[i] = static_cast<float>(i);
  int64_t dims[] = {4};
  DeallocRecord rec;
  TG_Tensor* t = TG_NewTensor(TG_FLOAT, dims, 1, mem, 16, RecordDealloc, &rec);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TG_TensorData(t), mem);
  EXPECT_EQ(rec.calls, 0);
  TG_DeleteTensor(t);
  EXPECT_EQ(rec.calls, 1);
  EXPECT_EQ(rec.data, mem);
  EXPECT_EQ(rec.len, 16u);
  std::free(mem);
}

TEST(TensorTest, NewTensorCopiesUnalignedData) {
  char* raw = static_cast<char*>(std::aligned_alloc(64, 128));
  void* unaligned = raw + 4;
  std::memset(unaligned, 1, 8);
  int64_t dims[] = {2};
  DeallocRecord rec;
  TG_Tensor* t = TG_NewTensor(TG_INT32, dims, 1, unaligned, 8, RecordDealloc, &rec);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(rec.calls, 1);  // copied, so released at once
  EXPECT_NE(TG_TensorData(t), unaligned);
  EXPECT_EQ(std::memcmp(TG_TensorData(t), raw + 4, 8), 0);
  TG_DeleteTensor(t);
  EXPECT_EQ(rec.calls, 1);
  std::free(raw);
}

TEST(TensorTest, NewTensorCallsDeallocatorOnFailure) {
  void* mem = std::aligned_alloc(64, 64);
  int64_t dims[] = {4};
  DeallocRecord rec;
  EXPECT_EQ(TG_NewTensor(TG_FLOAT, dims, 1, mem, 12, RecordDealloc, &rec), nullptr);
  EXPECT_EQ(rec.calls, 1);
  EXPECT_EQ(TG_NewTensor(TG_STRING, dims, 1, mem, 0, RecordDealloc, &rec), nullptr);
  EXPECT_EQ(rec.calls, 2);
  EXPECT_EQ(TG_NewTensor(static_cast<TG_DataType>(200), dims, 1, mem, 16, RecordDealloc, &rec),
            nullptr);
  EXPECT_EQ(rec.calls, 3);
  int64_t neg[] = {-4};
  EXPECT_EQ(TG_NewTensor(TG_FLOAT, neg, 1, mem, 16, RecordDealloc, &rec), nullptr);
  EXPECT_EQ(rec.calls, 4);
  std::free(mem);
}

TEST(TensorTest, NewTensorWithoutDeallocator) {
  alignas(64) static float data[2] = {1.5f, 2.5f};
  int64_t dims[] = {2};
  TG_Tensor* t = TG_NewTensor(TG_FLOAT, dims, 1, data, sizeof(data), nullptr, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(static_cast<float*>(TG_TensorData(t))[1], 2.5f);
  TG_DeleteTensor(t);
}

TEST(TensorTest, StringTensorRoundTrip) {
  TG_Status* s = TG_NewStatus();
  static const char kWithNul[] = {'a', '\0', 'b'};
  const char* strs[] = {"hello", "", kWithNul};
  size_t lens[] = {5, 0, 3};
  int64_t dims[] = {3};
  TG_Tensor* t = TG_NewStringTensor(dims, 1, strs, lens, s);
  ASSERT_TRUE(IsOk(s));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TG_TensorType(t), TG_STRING);
  EXPECT_EQ(TG_TensorElementCount(t), 3);
  for (int i = 0; i < 3; ++i) {
    const char* data = nullptr;
    size_t len = 0;
    TG_TensorGetString(t, i, &data, &len, s);
    ASSERT_TRUE(IsOk(s));
    EXPECT_EQ(std::string(data, len), std::string(strs[i], lens[i]));
  }
  const char* data = nullptr;
  size_t len = 0;
  TG_TensorGetString(t, 3, &data, &len, s);
  EXPECT_EQ(TG_GetCode(s), TG_OUT_OF_RANGE);
  TG_TensorGetString(t, -1, &data, &len, s);
  EXPECT_EQ(TG_GetCode(s), TG_OUT_OF_RANGE);
  TG_DeleteTensor(t);
  TG_DeleteStatus(s);
}

TEST(TensorTest, StringTensorErrors) {
  TG_Status* s = TG_NewStatus();
  int64_t dims[] = {2};
  EXPECT_EQ(TG_NewStringTensor(dims, 1, nullptr, nullptr, s), nullptr);
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);
  const char* strs[] = {"a", nullptr};
  size_t lens[] = {1, 4};
  EXPECT_EQ(TG_NewStringTensor(dims, 1, strs, lens, s), nullptr);
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);
  int64_t neg[] = {-2};
  EXPECT_EQ(TG_NewStringTensor(neg, 1, strs, lens, s), nullptr);
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);

  // GetString on a float tensor, or NULL tensor.
  TG_Tensor* f = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  const char* data;
  size_t len;
  TG_TensorGetString(f, 0, &data, &len, s);
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);
  EXPECT_NE(std::string(TG_Message(s)).find("float"), std::string::npos) << TG_Message(s);
  TG_TensorGetString(nullptr, 0, &data, &len, s);
  EXPECT_EQ(TG_GetCode(s), TG_INVALID_ARGUMENT);
  TG_DeleteTensor(f);
  TG_DeleteStatus(s);
}

// The one-call forms bindings use: a copy made in the call, and everything about a tensor.
TEST(TensorTest, NewTensorFromCopyAndDescribe) {
  const float values[6] = {1, 2, 3, 4, 5, 6};
  const int64_t dims[2] = {2, 3};
  TG_Tensor* t = TG_NewTensorFromCopy(TG_FLOAT, dims, 2, values, sizeof values);
  ASSERT_NE(t, nullptr);
  EXPECT_NE(TG_TensorData(t), static_cast<const void*>(values));
  EXPECT_EQ(std::memcmp(TG_TensorData(t), values, sizeof values), 0);
  TG_DataType dt = TG_INVALID_DTYPE;
  int64_t got[4] = {-7, -7, -7, -7};
  void* data = nullptr;
  EXPECT_EQ(TG_TensorDescribe(t, &dt, got, 4, &data), 2);
  EXPECT_EQ(dt, TG_FLOAT);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 3);
  EXPECT_EQ(got[2], -7);  // only the rank's dims are written
  EXPECT_EQ(data, TG_TensorData(t));
  EXPECT_EQ(TG_TensorDescribe(t, nullptr, got, 1, nullptr), 2);  // max_dims caps the writes
  TG_DeleteTensor(t);

  // A scalar, an empty tensor, and what is refused (as TG_AllocateTensor refuses it).
  const int32_t one = 1;
  t = TG_NewTensorFromCopy(TG_INT32, nullptr, 0, &one, sizeof one);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TG_TensorDescribe(t, &dt, nullptr, 0, &data), 0);
  EXPECT_EQ(dt, TG_INT32);
  EXPECT_EQ(*static_cast<int32_t*>(data), 1);
  TG_DeleteTensor(t);
  const int64_t zero[1] = {0};
  t = TG_NewTensorFromCopy(TG_FLOAT, zero, 1, nullptr, 0);
  ASSERT_NE(t, nullptr);
  TG_DeleteTensor(t);
  EXPECT_EQ(TG_NewTensorFromCopy(TG_FLOAT, dims, 2, values, 4), nullptr);  // size mismatch
  EXPECT_EQ(TG_NewTensorFromCopy(TG_FLOAT, dims, 2, nullptr, sizeof values), nullptr);
  EXPECT_EQ(TG_NewTensorFromCopy(TG_STRING, nullptr, 0, nullptr, 0), nullptr);
  EXPECT_EQ(TG_NewTensorFromCopy(static_cast<TG_DataType>(999), nullptr, 0, &one, 4), nullptr);
  EXPECT_EQ(TG_TensorDescribe(nullptr, &dt, got, 4, &data), -1);
}

TEST(TensorTest, NullTensorAccessorsAreNeutral) {
  EXPECT_EQ(TG_TensorType(nullptr), TG_INVALID_DTYPE);
  EXPECT_EQ(TG_NumDims(nullptr), 0);
  EXPECT_EQ(TG_Dim(nullptr, 0), -1);
  EXPECT_EQ(TG_TensorByteSize(nullptr), 0u);
  EXPECT_EQ(TG_TensorData(nullptr), nullptr);
  EXPECT_EQ(TG_TensorElementCount(nullptr), 0);
  TG_DeleteTensor(nullptr);
}

}  // namespace
