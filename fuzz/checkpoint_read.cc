// Fuzz target: a V2 checkpoint (PREFIX.index, a LevelDB table of BundleEntryProtos, and
// PREFIX.data-00000-of-00001) opened with TG_NewCheckpointReader and every tensor listed and
// read through the tensorflow_v2 saver plugin. The input is split in two: its first byte
// pair (little-endian) is the index's length, the rest after the index is the data file.
// Corrupt files must be DATA_LOSS / NOT_FOUND / ...; a declared shape must never be
// allocated before it is checked against the file (issue 21, item 4).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fuzz_files.h"
#include "tgraph/c_api.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  TG_Status* status = TG_NewStatus();
  if (TG_LoadPlugin(TGRAPH_SAVER_TF_PLUGIN_PATH, status) == nullptr) {
    std::fprintf(stderr, "checkpoint_read: cannot load %s: %s\n", TGRAPH_SAVER_TF_PLUGIN_PATH,
                 TG_Message(status));
    std::exit(1);
  }
  TG_DeleteStatus(status);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  size_t index_size = static_cast<size_t>(data[0] | (data[1] << 8));
  data += 2;
  size -= 2;
  if (index_size > size) index_size = size;
  const auto& dir = tgraph::fuzz::Scratch();
  dir.Write("ckpt.index", data, index_size);
  dir.Write("ckpt.data-00000-of-00001", data + index_size, size - index_size);

  TG_Status* status = TG_NewStatus();
  TG_CheckpointReader* reader = TG_NewCheckpointReader(dir.Path("ckpt").c_str(), status);
  if (reader != nullptr) {
    for (int i = 0; i < TG_CheckpointReaderNumTensors(reader); ++i) {
      const char* name = TG_CheckpointReaderTensorName(reader, i);
      (void)TG_CheckpointReaderTensorType(reader, i);
      const int rank = TG_CheckpointReaderTensorNumDims(reader, i);
      if (rank >= 0) {
        std::vector<int64_t> dims(static_cast<size_t>(rank));
        TG_CheckpointReaderTensorDims(reader, i, dims.data(), rank, status);
      }
      TG_DeleteTensor(TG_CheckpointReaderRead(reader, name, status));
    }
    TG_DeleteCheckpointReader(reader);
  }
  TG_DeleteStatus(status);
  return 0;
}
