// A checkpoint's files as a whole: whether one exists at a prefix, deleting one, and merging
// the checkpoints of a sharded save into one (TensorFlow's MergeBundles).
#pragma once

#include <string>
#include <vector>

#include "bundle_status.h"

namespace tgraph::saver_tf {

// True when `<prefix>.index` is a regular file.
bool BundleExists(const std::string& prefix);

// Deletes `<prefix>.index` and every `<prefix>.data-NNNNN-of-NNNNN` (found by listing the
// directory, so a checkpoint with a damaged index goes too). Nothing there is not an error.
BundleStatus RemoveBundle(const std::string& prefix);

// Merges the checkpoints at `prefixes` into one at `destination`: their data files are
// renamed to the destination's, shards numbered in order (FORMATS.md §3.1), and one index
// lists every tensor with its new shard id; then the sources' index files are deleted, and
// their directories when `delete_old_dirs` and they are empty. A tensor present in two
// sources is INVALID_ARGUMENT naming it.
BundleStatus MergeBundles(const std::vector<std::string>& prefixes, const std::string& destination,
                          bool delete_old_dirs);

}  // namespace tgraph::saver_tf
