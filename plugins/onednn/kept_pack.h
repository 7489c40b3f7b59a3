// An operand a kernel packs into oneDNN's blocked layout once and keeps across calls while
// its bytes stay the same: a MatMul's B, a convolution's filter (a variable between its
// writes, a constant for the plan's life). plugin.h's input_version (ABI 7) names those
// bytes; a kernel keeps at most one pack per operand.
//
// A pack is kept only from the second call that sees one version: a training step writes
// its weights every step, so packing into memory the kernel keeps would only cost there (the
// first call packs per call, as without a version). Thread-safe (runs of one session may
// call the kernel at once): a pack is shared, immutable, and replaced whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "oneapi/dnnl/dnnl.hpp"

namespace tgraph_onednn {

struct KeptPack {
  uint64_t version = 0;
  dnnl::memory::desc layout;  // what the bytes hold: the layout the product or filter runs on
  struct Free {
    void operator()(uint8_t* p) const { ::operator delete(p, std::align_val_t{64}); }
  };
  std::unique_ptr<uint8_t, Free> bytes;

  // A pack of `bytes` bytes (64-aligned) to fill, or null when out of memory (the caller
  // then packs per call into a temp, as without a version).
  static std::shared_ptr<KeptPack> New(size_t bytes);
};

class KeptPackCache {
 public:
  // What a call with the operand at `version` (0: unknown) finds: the pack (null if none),
  // and whether a pack made now would be kept (`keep`). A pack of another version is let go.
  std::shared_ptr<const KeptPack> Find(uint64_t version, bool* keep);
  // Keeps `pack` (its version and layout set), unless a later version was seen meanwhile.
  void Store(std::shared_ptr<const KeptPack> pack);

 private:
  std::mutex mu_;
  uint64_t seen_ = 0;
  std::shared_ptr<const KeptPack> packed_;
};

}  // namespace tgraph_onednn
