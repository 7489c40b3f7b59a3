#include "bundle_writer.h"

#include <google/protobuf/io/coded_stream.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "common/crc32c.h"
#include "index_table.h"
#include "naming.h"
#include "tgraph/proto/tensor_bundle.pb.h"

namespace tgraph::saver_tf {
namespace {

// Tensor bytes are checksummed and written in pieces this large, so each piece is still
// in cache when it is written.
constexpr uint64_t kChunk = uint64_t{8} << 20;

std::string HeaderBytes() {
  tf::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tf::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);  // kTensorBundleVersion
  return header.SerializeAsString();
}

void AppendLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

BundleWriter::BundleWriter(std::string prefix)
    : prefix_(std::move(prefix)),
      data_path_(DataFileName(prefix_, 0, 1)),
      data_temp_(TemporaryNameFor(data_path_)),
      index_path_(IndexFileName(prefix_)),
      index_temp_(TemporaryNameFor(index_path_)) {}

BundleWriter::~BundleWriter() {
  if (!finished_) RemoveTemporaries();
}

void BundleWriter::RemoveTemporaries() {
  data_.reset();
  (void)RemoveFileIfExists(data_temp_);
  (void)RemoveFileIfExists(index_temp_);
}

BundleStatus BundleWriter::Begin() {
  if (prefix_.empty()) return Error(TG_INVALID_ARGUMENT, "the checkpoint prefix is empty");
  const std::filesystem::path dir = std::filesystem::path(prefix_).parent_path();
  if (!dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      return Error(CodeForErrno(error.value()),
                   Str("cannot create directory '", dir.string(), "': ", error.message()));
    }
  }
  // The tensors' bytes bypass the page cache (file_io.h says why).
  return FileWriter::Create(data_temp_, &data_, FileWriter::Mode::kDirectIfPossible);
}

BundleStatus BundleWriter::CheckName(const std::string& name) const {
  if (data_ == nullptr) return Error(TG_FAILED_PRECONDITION, "BundleWriter: Begin was not called");
  if (name.empty()) {
    return Error(TG_INVALID_ARGUMENT,
                 "a tensor name is empty (the empty key holds the checkpoint's header)");
  }
  if (index_.count(name) != 0) {
    return Error(TG_INVALID_ARGUMENT, Str("tensor '", name, "' is saved twice"));
  }
  return BundleStatus::OK();
}

void BundleWriter::AddEntry(const std::string& name, TG_DataType dtype,
                            const std::vector<int64_t>& dims, uint64_t offset, uint64_t size,
                            uint32_t crc) {
  tf::BundleEntryProto entry;
  entry.set_dtype(static_cast<tf::DataType>(dtype));
  tf::TensorShapeProto* shape = entry.mutable_shape();  // a scalar's empty shape is written
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(offset));
  entry.set_size(static_cast<int64_t>(size));
  entry.set_crc32c(crc32c::Mask(crc));
  index_[name] = entry.SerializeAsString();
}

BundleStatus BundleWriter::AddRaw(const std::string& name, TG_DataType dtype,
                                  const std::vector<int64_t>& dims, const void* data,
                                  uint64_t bytes) {
  SAVER_TF_RETURN_IF_ERROR(CheckName(name));
  const uint64_t offset = data_->size();
  const char* p = static_cast<const char*>(data);
  uint32_t crc = 0;
  for (uint64_t done = 0; done < bytes;) {
    const size_t n = static_cast<size_t>(bytes - done < kChunk ? bytes - done : kChunk);
    crc = crc32c::Extend(crc, p + done, n);
    SAVER_TF_RETURN_IF_ERROR(data_->Append(p + done, n));
    done += n;
  }
  AddEntry(name, dtype, dims, offset, bytes, crc);
  return BundleStatus::OK();
}

// FORMATS.md §3.4: varint64 lengths ‖ masked CRC of the lengths ‖ the bytes. The running CRC
// covers each length as 4 (or, above 4 GiB, 8) little-endian bytes, not its varint.
BundleStatus BundleWriter::AddStrings(const std::string& name, const std::vector<int64_t>& dims,
                                      int64_t count,
                                      const std::function<std::string_view(int64_t)>& element) {
  using google::protobuf::io::CodedOutputStream;
  SAVER_TF_RETURN_IF_ERROR(CheckName(name));
  const uint64_t offset = data_->size();
  uint32_t crc = 0;
  std::string lengths;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t length = element(i).size();
    uint8_t varint[10];
    const uint8_t* end = CodedOutputStream::WriteVarint64ToArray(length, varint);
    lengths.append(reinterpret_cast<const char*>(varint), static_cast<size_t>(end - varint));
    std::string fixed;
    AppendLittleEndian(&fixed, length, length > 0xffffffffu ? 8 : 4);
    crc = crc32c::Extend(crc, fixed.data(), fixed.size());
    if (lengths.size() >= kChunk) {
      SAVER_TF_RETURN_IF_ERROR(data_->Append(lengths.data(), lengths.size()));
      lengths.clear();
    }
  }
  AppendLittleEndian(&lengths, crc32c::Mask(crc), 4);
  crc = crc32c::Extend(crc, lengths.data() + lengths.size() - 4, 4);
  SAVER_TF_RETURN_IF_ERROR(data_->Append(lengths.data(), lengths.size()));
  for (int64_t i = 0; i < count; ++i) {
    const std::string_view s = element(i);
    crc = crc32c::Extend(crc, s.data(), s.size());
    SAVER_TF_RETURN_IF_ERROR(data_->Append(s.data(), s.size()));
  }
  AddEntry(name, TG_STRING, dims, offset, data_->size() - offset, crc);
  return BundleStatus::OK();
}

BundleStatus BundleWriter::Finish() {
  if (data_ == nullptr) return Error(TG_FAILED_PRECONDITION, "BundleWriter: Begin was not called");
  BundleStatus s = data_->SyncAndClose();
  if (s.ok()) {
    index_[""] = HeaderBytes();
    s = WriteIndexTable(index_temp_, index_);
  }
  if (s.ok()) s = RenameFile(data_temp_, data_path_);
  if (s.ok()) s = RenameFile(index_temp_, index_path_);
  if (!s.ok()) {
    RemoveTemporaries();
    return s;
  }
  finished_ = true;
  return SyncDirectoryOf(index_path_);
}

}  // namespace tgraph::saver_tf
