// The input_version numbers' table (core/base/buffer_versions.h): an entry of a buffer that
// died is dropped by ForgetDead (it kept the buffer's control block), a live one keeps its
// number. Deleting a graph forgets its constants' numbers: tests/core/exec/session_test.cc.
#include "core/base/buffer_versions.h"

#include <gtest/gtest.h>

namespace tgraph {
namespace {

TEST(BufferVersionsTest, ForgetDeadDropsOnlyTheEntriesOfDeadBuffers) {
  BufferVersions::ForgetDead();
  const size_t before = BufferVersions::NumEntriesForTest();
  std::shared_ptr<TensorBuffer> live = TensorBuffer::Allocate(8);
  std::shared_ptr<TensorBuffer> dead = TensorBuffer::Allocate(8);
  BufferVersions::Touch(live);
  BufferVersions::Ensure(dead);
  const uint64_t version = BufferVersions::Get(live.get());
  EXPECT_NE(version, 0u);
  EXPECT_NE(BufferVersions::Get(dead.get()), 0u);
  EXPECT_EQ(BufferVersions::NumEntriesForTest(), before + 2);

  const TensorBuffer* dead_address = dead.get();
  dead.reset();
  EXPECT_EQ(BufferVersions::Get(dead_address), 0u);  // dead: unnumbered, but still an entry
  EXPECT_EQ(BufferVersions::NumEntriesForTest(), before + 2);
  BufferVersions::ForgetDead();
  EXPECT_EQ(BufferVersions::NumEntriesForTest(), before + 1);
  EXPECT_EQ(BufferVersions::Get(live.get()), version);
}

}  // namespace
}  // namespace tgraph
