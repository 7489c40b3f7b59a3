// The `.index` file: a LevelDB table (FORMATS.md §3.2), written and read with Debian's
// libleveldb. The options are TensorFlow's: no compression, 256 KiB blocks, a restart point
// every 16 keys, no filter, bytewise key order; with them leveldb::TableBuilder produces
// exactly the bytes TensorFlow's own table builder does (tests/plugins/saver_tf checks one
// whole file byte for byte).
#pragma once

#include <map>
#include <string>

#include "bundle_status.h"

namespace tgraph::saver_tf {

// Writes `entries` (key → value, in key order) as a table to `path`, fsynced.
BundleStatus WriteIndexTable(const std::string& path,
                             const std::map<std::string, std::string>& entries);

// Reads every (key, value) of the table at `path`. NOT_FOUND naming the file when it is
// missing, DATA_LOSS naming it when it is truncated or corrupt (bad footer, block checksum).
BundleStatus ReadIndexTable(const std::string& path, std::map<std::string, std::string>* entries);

}  // namespace tgraph::saver_tf
