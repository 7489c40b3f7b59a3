// The large-buffer pool (core/base/buffer_pool.h): size classes, reuse of a freed buffer,
// and, in a session, that repeated steps of a chain of convolutions map no new memory after
// the first and hold at most about the run's own peak of tensor bytes (run metadata).
#include "core/base/buffer_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <limits>
#include <set>

#include "core/base/tensor.h"
#include "core/exec/session.h"
#include "core/graph/attr_value_util.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph {
namespace {

BufferPool* PoolOrSkip() { return BufferPool::Global(); }

TEST(BufferPoolTest, ClassesAreWholePagesAtMostAnEighthLarger) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t bytes : {BufferPool::kMinBytes, BufferPool::kMinBytes + 1, size_t{1000000},
                       size_t{6422528}, size_t{40140800}, (size_t{1} << 30) + 3}) {
    const size_t c = BufferPool::ClassOf(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_EQ(c % page, 0u) << bytes;
    EXPECT_LE(c - bytes, bytes / 8 + page) << bytes;
    EXPECT_EQ(BufferPool::ClassOf(c), c);
  }
  // No wrap-around for sizes no mapping could hold: the allocation fails instead.
  EXPECT_EQ(BufferPool::ClassOf(std::numeric_limits<size_t>::max() - 64), 0u);
  if (BufferPool* pool = BufferPool::Global()) {
    bool fresh = false;
    EXPECT_EQ(pool->Get(std::numeric_limits<size_t>::max() - 64, &fresh), nullptr);
    EXPECT_EQ(TensorBuffer::Allocate(std::numeric_limits<size_t>::max() - 100, false), nullptr);
  }
}

// A class under one huge page is mapped as one when that adds at most a quarter (the MLP's
// 784x512 float weights: a 1.625 MiB class in one 2 MiB page); larger classes are never
// rounded up (their tails stay in small pages); with huge pages off a mapping is its class.
TEST(BufferPoolTest, OnlyClassesJustUnderOneHugePageRoundUpToIt) {
  constexpr size_t kMiB = size_t{1} << 20;
  const size_t weights = BufferPool::ClassOf(784 * 512 * 4);
  EXPECT_EQ(weights, 13 * kMiB / 8);
  EXPECT_EQ(BufferPool::MappingOf(weights, true), 2 * kMiB);
  EXPECT_EQ(BufferPool::MappingOf(weights, false), weights);
  EXPECT_EQ(BufferPool::MappingOf(kMiB, true), kMiB);          // would double it
  EXPECT_EQ(BufferPool::MappingOf(3 * kMiB, true), 3 * kMiB);  // 4 MiB adds a third
  EXPECT_EQ(BufferPool::MappingOf(7 * kMiB, true), 7 * kMiB);  // 3 huge pages and a tail
  EXPECT_EQ(BufferPool::MappingOf(BufferPool::ClassOf(64 * 28 * 28 * 32 * 4), true),
            BufferPool::ClassOf(64 * 28 * 28 * 32 * 4));  // the CNN's activations, 6.5 MiB
  EXPECT_EQ(BufferPool::MappingOf(4 * kMiB, true), 4 * kMiB);
  EXPECT_EQ(BufferPool::MappingOf(BufferPool::kMinBytes, true), BufferPool::kMinBytes);
}

// A buffer whose mapping holds a huge page starts on a huge-page boundary (so that the
// kernel can back it with huge pages); the pool's counts are by mapping length.
TEST(BufferPoolTest, HugePageBuffersStartOnAHugePageBoundary) {
  BufferPool* pool = PoolOrSkip();
  if (pool == nullptr) GTEST_SKIP() << "no pool in this build (sanitizer) or TGRAPH_BUFFER_POOL=0";
  if (!pool->huge_pages()) GTEST_SKIP() << "huge pages off (TGRAPH_HUGE_PAGES=0 or not Linux)";
  pool->Trim();
  const int64_t before = pool->mapped_bytes();
  {
    Tensor t = Tensor::Allocate(DT_FLOAT, {784, 512}).value();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % BufferPool::kHugePageBytes, 0u);
    t.flat<float>()[784 * 512 - 1] = 1.0f;  // the whole class is writable
    EXPECT_EQ(pool->mapped_bytes() - before, static_cast<int64_t>(BufferPool::kHugePageBytes));
  }
  EXPECT_EQ(pool->cached_bytes(), static_cast<int64_t>(BufferPool::kHugePageBytes));
  pool->Trim();
  EXPECT_EQ(pool->mapped_bytes(), before);
}

// The VmFlags of the mapping holding `p` in /proc/self/smaps ("" when not found): "hg" marks
// MADV_HUGEPAGE.
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find("VmFlags:") == 0) {
      if (inside) return line;
    } else if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = address >= begin && address < end;
    }
  }
  return "";
}

bool MarkedHugeInSmaps(const void* p) {
  const std::string flags = VmFlagsOf(p);
  EXPECT_FALSE(flags.empty()) << "no mapping holds " << p;
  return (" " + flags + " ").find(" hg ") != std::string::npos;
}

// Mappings from one huge page up to kMaxHugeMappingBytes are marked for huge pages; larger
// ones (a restored 64 MiB variable) are not, so that their first faults take small pages
// instead of free 2 MiB blocks (buffer_pool.h says why).
TEST(BufferPoolTest, OnlyMappingsUpToTheLimitAreMarkedHuge) {
  constexpr size_t kMiB = size_t{1} << 20;
  EXPECT_FALSE(BufferPool::MarkedHuge(kMiB, true));
  EXPECT_TRUE(BufferPool::MarkedHuge(2 * kMiB, true));
  EXPECT_TRUE(BufferPool::MarkedHuge(BufferPool::kMaxHugeMappingBytes, true));
  EXPECT_FALSE(BufferPool::MarkedHuge(BufferPool::kMaxHugeMappingBytes + 4096, true));
  EXPECT_FALSE(BufferPool::MarkedHuge(64 * kMiB, true));
  EXPECT_FALSE(BufferPool::MarkedHuge(4 * kMiB, false));

  BufferPool* pool = PoolOrSkip();
  if (pool == nullptr) GTEST_SKIP() << "no pool in this build (sanitizer) or TGRAPH_BUFFER_POOL=0";
  if (!pool->huge_pages()) GTEST_SKIP() << "huge pages off (TGRAPH_HUGE_PAGES=0 or not Linux)";
  pool->Trim();
  Tensor small = Tensor::Allocate(DT_FLOAT, {1024, 1024}).value();       // 4 MiB
  Tensor large = Tensor::Allocate(DT_FLOAT, {16 * 1024, 1024}).value();  // 64 MiB
  EXPECT_TRUE(MarkedHugeInSmaps(small.data()));
  EXPECT_FALSE(MarkedHugeInSmaps(large.data()));
}

TEST(BufferPoolTest, FreedBufferIsReusedForTheSameClass) {
  BufferPool* pool = PoolOrSkip();
  if (pool == nullptr) GTEST_SKIP() << "no pool in this build (sanitizer) or TGRAPH_BUFFER_POOL=0";
  pool->Trim();
  const int64_t before = pool->mapped_bytes();
  void* first = nullptr;
  {
    Tensor t = Tensor::Allocate(DT_FLOAT, {1000, 1000}).value();
    first = t.data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    EXPECT_EQ(t.flat<float>()[999999], 0.0f);
    t.flat<float>()[5] = 3.0f;
  }
  EXPECT_EQ(pool->cached_bytes(), static_cast<int64_t>(BufferPool::ClassOf(4000000)));
  {
    // Same class, a little smaller: the same buffer, zeroed again.
    Tensor t = Tensor::Allocate(DT_FLOAT, {999, 1000}).value();
    EXPECT_EQ(t.data(), first);
    EXPECT_EQ(t.flat<float>()[5], 0.0f);
    EXPECT_EQ(pool->cached_bytes(), 0);
  }
  EXPECT_EQ(pool->mapped_bytes() - before, static_cast<int64_t>(BufferPool::ClassOf(4000000)));
  pool->Trim();
  EXPECT_EQ(pool->mapped_bytes(), before);
  // Small tensors are not pooled.
  Tensor small = Tensor::Allocate(DT_FLOAT, {16}).value();
  EXPECT_EQ(pool->mapped_bytes(), before);
}

// Buffers of ever new classes, each freed before the next is asked for (shapes that change
// every step): the pool keeps no more of them than its limit for one buffer in use at a time.
TEST(BufferPoolTest, CacheIsBoundedByThePeakInUse) {
  BufferPool* pool = PoolOrSkip();
  if (pool == nullptr) GTEST_SKIP() << "no pool in this build (sanitizer) or TGRAPH_BUFFER_POOL=0";
  pool->Trim();  // also forgets the peak of earlier tests
  const int64_t before = pool->mapped_bytes();
  std::set<size_t> classes;  // mapping lengths of the classes asked for
  for (int i = 0; i < 24; ++i) {
    const int64_t elements = (int64_t{1} << 20) + i * (int64_t{1} << 17);  // 4 MiB, 4.5 MiB, ...
    // In release builds nothing touches a fresh mapping's pages (they are zero already).
    Tensor t = Tensor::Allocate(DT_FLOAT, {elements}).value();
    classes.insert(BufferPool::MappingOf(BufferPool::ClassOf(t.ByteSize()), pool->huge_pages()));
  }
  const int64_t largest = static_cast<int64_t>(*classes.rbegin());
  EXPECT_LE(pool->peak_in_use_bytes(), before + largest);
  const int64_t limit = BufferPool::CacheLimit(pool->peak_in_use_bytes());
  EXPECT_LE(pool->cached_bytes(), limit);
  EXPECT_LE(pool->mapped_bytes() - before, limit);
  int64_t all = 0;
  for (size_t c : classes) all += static_cast<int64_t>(c);
  EXPECT_GT(all, limit) << "the test asks for too little to reach the bound";
  pool->Trim();
}

class BufferPoolSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static Status status = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  Operation* Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs = {}) {
    NodeSpec spec;
    spec.type = type;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.value();
  }
  Graph g_;
};

// Four 3x3 convolutions of a [8, 32, 32, 16] float batch (512 KiB per activation), each
// followed by Relu. Every step frees and allocates the same buffers: after the first step
// the pool maps nothing new, and what it maps in all stays within the run's peak of tensor
// bytes plus the size-class rounding.
TEST_F(BufferPoolSessionTest, RepeatedStepsReuseBuffersWithinTheRunPeak) {
  BufferPool* pool = PoolOrSkip();
  if (pool == nullptr) GTEST_SKIP() << "no pool in this build (sanitizer) or TGRAPH_BUFFER_POOL=0";
  NodeSpec x_spec;
  x_spec.type = "Placeholder";
  x_spec.name = "x";
  x_spec.attrs["dtype"] = AttrOfType(DT_FLOAT);
  x_spec.attrs["shape"] = AttrOfShape(PartialShape({8, 32, 32, 16}));
  Output x = g_.AddOperation(std::move(x_spec)).value()->output(0);
  Tensor filter = Tensor::Allocate(DT_FLOAT, {3, 3, 16, 16}).value();
  for (int64_t i = 0; i < filter.NumElements(); ++i) filter.flat<float>()[i] = 0.01f * static_cast<float>(i % 7);
  Output w = Op("Const", {}, {{"value", AttrOfTensor(filter)}, {"dtype", AttrOfType(DT_FLOAT)}})->output(0);
  Output h = x;
  for (int i = 0; i < 4; ++i) {
    AttrMap attrs = {{"T", AttrOfType(DT_FLOAT)}};
    attrs["strides"].mutable_list()->add_i(1);
    for (int k = 0; k < 3; ++k) attrs["strides"].mutable_list()->add_i(1);
    attrs["padding"].set_s("SAME");
    h = Op("Relu", {Op("Conv2D", {h, w}, attrs)->output(0)})->output(0);
  }
  Tensor input = Tensor::Allocate(DT_FLOAT, {8, 32, 32, 16}).value();
  for (int64_t i = 0; i < input.NumElements(); ++i) input.flat<float>()[i] = static_cast<float>(i % 13);

  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = 2;
  auto session = Session::Create(&g_, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  pool->Trim();
  const int64_t before = pool->mapped_bytes();
  RunOptions trace;
  trace.trace_level = 1;
  int64_t peak = 0, after_first = 0;
  for (int step = 0; step < 4; ++step) {
    std::vector<Tensor> out;
    RunMetadata metadata;
    Status s = (*session)->Run(trace, {{x, input}}, {h}, {}, &out, &metadata);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(out.size(), 1u);
    peak = std::max(peak, metadata.peak_bytes);
    if (step == 0) after_first = pool->mapped_bytes();
    out.clear();  // the fetched value is freed too, as a caller dropping it would
    EXPECT_EQ(pool->mapped_bytes(), after_first) << "step " << step << " mapped new memory";
  }
  const int64_t activation = 8 * 32 * 32 * 16 * 4;
  EXPECT_GE(peak, 2 * activation);  // an input and an output at least
  EXPECT_LE(after_first - before, peak + peak / 8) << "peak tensor bytes " << peak;
}

}  // namespace
}  // namespace tgraph
