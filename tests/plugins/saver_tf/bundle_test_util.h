// Helpers of the saver_tf unit tests: a scratch directory per test and whole-file reads and
// writes (shared with saver_io's tests: ../saver_io/scratch_files.h), and one-call save and
// read of raw tensors through BundleWriter / BundleReader.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bundle_reader.h"
#include "bundle_writer.h"
#include "../saver_io/scratch_files.h"

namespace tgraph::saver_tf::testing {

using saver_testing::ReadFile;
using saver_testing::ScratchDir;
using saver_testing::WriteFile;

struct RawTensor {
  std::string name;
  TG_DataType dtype;
  std::vector<int64_t> dims;
  std::string bytes;
};

inline BundleStatus SaveRaw(const std::string& prefix, const std::vector<RawTensor>& tensors) {
  BundleWriter writer(prefix);
  SAVER_TF_RETURN_IF_ERROR(writer.Begin());
  for (const RawTensor& t : tensors) {
    SAVER_TF_RETURN_IF_ERROR(writer.AddRaw(t.name, t.dtype, t.dims, t.bytes.data(),
                                           t.bytes.size()));
  }
  return writer.Finish();
}

// Reads tensor `name` as raw bytes of the size its index entry states.
inline BundleStatus ReadRawTensor(const std::string& prefix, const std::string& name,
                                  std::string* bytes) {
  std::unique_ptr<BundleReader> reader;
  SAVER_TF_RETURN_IF_ERROR(BundleReader::Open(prefix, &reader));
  const tf::BundleEntryProto* entry = nullptr;
  SAVER_TF_RETURN_IF_ERROR(reader->Lookup(name, &entry));
  bytes->assign(static_cast<size_t>(entry->size()), '\0');
  return reader->ReadRaw(name, *entry, bytes->data(), bytes->size());
}

template <typename T>
std::string BytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace tgraph::saver_tf::testing
