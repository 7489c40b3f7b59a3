#include "kept_pack.h"

#include <new>

namespace tgraph_onednn {

std::shared_ptr<KeptPack> KeptPack::New(size_t bytes) {
  try {
    auto pack = std::make_shared<KeptPack>();
    pack->bytes.reset(static_cast<uint8_t*>(::operator new(bytes, std::align_val_t{64})));
    return pack;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

std::shared_ptr<const KeptPack> KeptPackCache::Find(uint64_t version, bool* keep) {
  *keep = false;
  if (version == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (packed_ != nullptr && packed_->version != version) packed_.reset();
  if (packed_ != nullptr) return packed_;
  *keep = seen_ == version;
  seen_ = version;
  return nullptr;
}

void KeptPackCache::Store(std::shared_ptr<const KeptPack> pack) {
  std::lock_guard<std::mutex> lock(mu_);
  // A call that saw a later version first has let this one go already.
  if (pack->version == seen_) packed_ = std::move(pack);
}

}  // namespace tgraph_onednn
