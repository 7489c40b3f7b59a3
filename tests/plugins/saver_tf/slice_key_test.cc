// Partitioned tensors: slice keys are TensorFlow's (bytes of keys TF 2.21 wrote for
// SaveV2 with shape_and_slices "200 3 0,70:-" and "200 3 170,30:0,3"), they sort like the
// numbers they encode, and a partitioned entry is assembled from its slices.
#include "slice_key.h"

#include <gtest/gtest.h>

#include <numeric>

#include "bundle_test_util.h"
#include "common/crc32c.h"
#include "index_table.h"

namespace tgraph::saver_tf {
namespace {

tf::TensorSliceProto Slice(std::vector<std::pair<int64_t, int64_t>> extents) {
  tf::TensorSliceProto slice;
  for (auto [start, length] : extents) {
    auto* e = slice.add_extent();
    e->set_start(start);
    if (length >= 0) e->set_length(length);  // -1: the whole dimension (no length)
  }
  return slice;
}

TEST(SliceKey, MatchesKeysTensorFlowWrote) {
  EXPECT_EQ(SliceKey("p/w", Slice({{0, 70}, {0, -1}})),
            std::string("\x00p/w\x00\x01\x01\x02\x80\xc0\x46\x80\x7f", 13));
  EXPECT_EQ(SliceKey("p/w", Slice({{170, 30}, {0, 3}})),
            std::string("\x00p/w\x00\x01\x01\x02\xc0\xaa\x9e\x80\x83", 13));
}

TEST(SliceKey, EncodingsSortLikeTheNumbers) {
  std::vector<int64_t> values = {INT64_MIN, -(int64_t{1} << 62), -1000000, -65, -64, -1, 0,
                                 1, 63, 64, 100, 8191, 8192, int64_t{1} << 40, INT64_MAX};
  for (size_t i = 1; i < values.size(); ++i) {
    std::string a, b;
    AppendSignedNumIncreasing(&a, values[i - 1]);
    AppendSignedNumIncreasing(&b, values[i]);
    EXPECT_LT(a, b) << values[i - 1] << " vs " << values[i];
  }
  std::string s;
  AppendOrderedString(&s, std::string("a\0\xff", 3));
  EXPECT_EQ(s, std::string("a\x00\xff\xff\x00\x00\x01", 7));
  s.clear();
  AppendNumIncreasing(&s, 0x1234);
  EXPECT_EQ(s, std::string("\x02\x12\x34", 3));
}

// A [4, 3] float tensor saved as rows [0, 1) and [1, 4), the way TF's partitioned
// variables are: a full entry listing the slices, each slice under its key.
TEST(SliceKey, ReaderAssemblesAPartitionedTensor) {
  testing::ScratchDir dir;
  std::vector<float> full(12);
  std::iota(full.begin(), full.end(), 1.0f);
  const std::string data(reinterpret_cast<const char*>(full.data()), 48);
  testing::WriteFile(dir / "p.data-00000-of-00001", data);

  std::map<std::string, std::string> index;
  tf::BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);
  index[""] = header.SerializeAsString();
  tf::BundleEntryProto whole;
  whole.set_dtype(tf::DT_FLOAT);
  whole.mutable_shape()->add_dim()->set_size(4);
  whole.mutable_shape()->add_dim()->set_size(3);
  const std::vector<std::pair<int64_t, int64_t>> rows = {{0, 1}, {1, 3}};
  for (auto [start, length] : rows) {
    const tf::TensorSliceProto slice = Slice({{start, length}, {0, -1}});
    *whole.add_slices() = slice;
    tf::BundleEntryProto part;
    part.set_dtype(tf::DT_FLOAT);
    part.mutable_shape()->add_dim()->set_size(length);
    part.mutable_shape()->add_dim()->set_size(3);
    part.set_offset(start * 12);
    part.set_size(length * 12);
    part.set_crc32c(crc32c::Mask(crc32c::Value(data.data() + start * 12, length * 12)));
    index[SliceKey("w", slice)] = part.SerializeAsString();
  }
  index["w"] = whole.SerializeAsString();
  ASSERT_TRUE(WriteIndexTable(dir / "p.index", index).ok());

  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(dir / "p", &reader).ok());
  ASSERT_EQ(reader->entries().size(), 1u);  // the slices' keys are hidden
  const tf::BundleEntryProto* entry = nullptr;
  ASSERT_TRUE(reader->Lookup("w", &entry).ok());
  std::vector<float> read(12, 0.0f);
  BundleStatus s = reader->ReadPartitioned("w", *entry, 4, read.data(), 48);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(read, full);

  // A damaged slice is DATA_LOSS naming the slice and the tensor.
  std::string damaged = data;
  damaged[20] = static_cast<char>(damaged[20] ^ 1);
  testing::WriteFile(dir / "p.data-00000-of-00001", damaged);
  ASSERT_TRUE(BundleReader::Open(dir / "p", &reader).ok());
  ASSERT_TRUE(reader->Lookup("w", &entry).ok());
  s = reader->ReadPartitioned("w", *entry, 4, read.data(), 48);
  EXPECT_EQ(s.code, TG_DATA_LOSS);
  EXPECT_NE(s.message.find("slice 1 of tensor 'w'"), std::string::npos) << s.message;
}

}  // namespace
}  // namespace tgraph::saver_tf
