#include "bundle_files.h"

#include <filesystem>
#include <map>
#include <regex>
#include <system_error>

#include "file_io.h"
#include "index_table.h"
#include "naming.h"
#include "tgraph/proto/tensor_bundle.pb.h"

namespace tgraph::saver_tf {
namespace fs = std::filesystem;

bool BundleExists(const std::string& prefix) { return FileExists(IndexFileName(prefix)); }

BundleStatus RemoveBundle(const std::string& prefix) {
  SAVER_TF_RETURN_IF_ERROR(RemoveFileIfExists(IndexFileName(prefix)));
  const fs::path path(prefix);
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string base = path.filename().string();
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error) return BundleStatus::OK();  // no directory, no checkpoint
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error) break;
    const std::string name = it->path().filename().string();
    if (name.size() != base.size() + 20 || name.compare(0, base.size(), base) != 0) continue;
    static const std::regex kDataSuffix(R"(\.data-\d{5}-of-\d{5})");
    if (!std::regex_match(name.substr(base.size()), kDataSuffix)) continue;
    SAVER_TF_RETURN_IF_ERROR(RemoveFileIfExists(it->path().string()));
  }
  if (error) {
    return Error(CodeForErrno(error.value()),
                 Str("cannot list directory '", dir.string(), "': ", error.message()));
  }
  return BundleStatus::OK();
}

namespace {

struct SourceBundle {
  std::string prefix;
  tf::BundleHeaderProto header;
  std::map<std::string, std::string> table;  // without the header
};

BundleStatus ReadSource(const std::string& prefix, SourceBundle* source) {
  source->prefix = prefix;
  const std::string index = IndexFileName(prefix);
  SAVER_TF_RETURN_IF_ERROR(ReadIndexTable(index, &source->table));
  auto header = source->table.find("");
  if (header == source->table.end() || !source->header.ParseFromString(header->second) ||
      source->header.num_shards() < 1) {
    return Error(TG_DATA_LOSS, Str("index file '", index, "' has no valid BundleHeaderProto"));
  }
  source->table.erase(header);
  return BundleStatus::OK();
}

}  // namespace

BundleStatus MergeBundles(const std::vector<std::string>& prefixes, const std::string& destination,
                          bool delete_old_dirs) {
  if (prefixes.empty()) return Error(TG_INVALID_ARGUMENT, "no checkpoints to merge");
  // Read every source first: nothing is moved unless all of them are readable and disjoint.
  std::vector<SourceBundle> sources(prefixes.size());
  int total_shards = 0;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    SAVER_TF_RETURN_IF_ERROR(ReadSource(prefixes[i], &sources[i]));
    if (sources[i].header.endianness() != sources[0].header.endianness()) {
      return Error(TG_INVALID_ARGUMENT, Str("cannot merge checkpoints of different endianness ('",
                                            prefixes[0], "' and '", prefixes[i], "')"));
    }
    total_shards += sources[i].header.num_shards();
  }
  std::map<std::string, std::string> merged;
  int shard_base = 0;
  for (const SourceBundle& source : sources) {
    for (const auto& [name, value] : source.table) {
      tf::BundleEntryProto entry;
      if (!entry.ParseFromString(value)) {
        return Error(TG_DATA_LOSS, Str("index file '", IndexFileName(source.prefix),
                                       "': the entry of tensor '", name, "' is not valid"));
      }
      entry.set_shard_id(entry.shard_id() + shard_base);
      if (!merged.emplace(name, entry.SerializeAsString()).second) {
        return Error(TG_INVALID_ARGUMENT, Str("tensor '", name, "' is in more than one of the ",
                                              "checkpoints to merge (again in '", source.prefix,
                                              "')"));
      }
    }
    shard_base += source.header.num_shards();
  }
  tf::BundleHeaderProto header = sources[0].header;
  header.set_num_shards(total_shards);
  merged[""] = header.SerializeAsString();

  // Every data file must be there before any is moved, and the destination's directory.
  for (const SourceBundle& source : sources) {
    const int n = source.header.num_shards();
    for (int shard = 0; shard < n; ++shard) {
      const std::string data = DataFileName(source.prefix, shard, n);
      if (!FileExists(data)) {
        return Error(TG_NOT_FOUND, Str("data file '", data, "' not found (checkpoint '",
                                       source.prefix, "' to merge)"));
      }
    }
  }
  const fs::path destination_dir = fs::path(destination).parent_path();
  if (!destination_dir.empty()) {
    std::error_code error;
    fs::create_directories(destination_dir, error);
    if (error) {
      return Error(CodeForErrno(error.value()), Str("cannot create directory '",
                                                    destination_dir.string(), "': ",
                                                    error.message()));
    }
  }

  shard_base = 0;
  for (const SourceBundle& source : sources) {
    const int n = source.header.num_shards();
    for (int shard = 0; shard < n; ++shard) {
      SAVER_TF_RETURN_IF_ERROR(RenameFile(DataFileName(source.prefix, shard, n),
                                          DataFileName(destination, shard_base + shard,
                                                       total_shards)));
    }
    shard_base += n;
  }
  const std::string index = IndexFileName(destination);
  const std::string temp = TemporaryNameFor(index);
  BundleStatus s = WriteIndexTable(temp, merged);
  if (s.ok()) s = RenameFile(temp, index);
  if (!s.ok()) {
    (void)RemoveFileIfExists(temp);
    return s;
  }
  SAVER_TF_RETURN_IF_ERROR(SyncDirectoryOf(index));
  for (const SourceBundle& source : sources) {
    if (source.prefix == destination) continue;
    SAVER_TF_RETURN_IF_ERROR(RemoveFileIfExists(IndexFileName(source.prefix)));
    if (delete_old_dirs) {
      const fs::path dir = fs::path(source.prefix).parent_path();
      std::error_code ignored;  // a directory that is not empty (or not there) stays
      if (!dir.empty()) fs::remove(dir, ignored);
    }
  }
  return BundleStatus::OK();
}

}  // namespace tgraph::saver_tf
