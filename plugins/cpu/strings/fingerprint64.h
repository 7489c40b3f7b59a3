// TensorFlow's Fingerprint64 (FarmHash's Fingerprint64, the "na" 64-bit hash), which
// StringToHashBucketFast takes modulo num_buckets: bucket ids must equal TensorFlow's, so
// feature columns hashed here look up the same embedding rows as a model trained there.
#pragma once

#include <cstdint>
#include <string_view>

namespace tgraph_cpu {

uint64_t Fingerprint64(std::string_view s);

}  // namespace tgraph_cpu
