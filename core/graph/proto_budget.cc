#include "core/graph/proto_budget.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>
#include <string>
#include <unordered_map>

#include "core/base/memory_limit.h"
#include "core/graph/proto_limits.h"

namespace tgraph {
namespace {

namespace pb = google::protobuf;
using WireFormat = pb::internal::WireFormatLite;

// What malloc adds to each separately allocated object (parsing without an arena allocates
// every submessage and every long string on its own).
constexpr uint64_t kAllocationOverhead = 16;
// A repeated field's slot: the pointer array of RepeatedPtrField (which grows by doubling),
// or a scalar's widest element.
constexpr uint64_t kRepeatedSlot = 16;
// A map's node and bucket slot around its key and value.
constexpr uint64_t kMapNodeBytes = 64;

class SizeWalker {
 public:
  explicit SizeWalker(const pb::Descriptor* counted) : counted_(counted) {}

  // Walks the fields up to the stream's current limit; false on malformed bytes.
  bool Walk(const pb::Descriptor& type, pb::io::CodedInputStream* in, int depth) {
    for (;;) {
      const uint32_t tag = in->ReadTag();
      if (tag == 0) return in->BytesUntilLimit() == 0;  // the end, or a zero tag (malformed)
      const pb::FieldDescriptor* field = type.FindFieldByNumber(WireFormat::GetTagFieldNumber(tag));
      const bool repeated = field != nullptr && field->is_repeated();
      switch (WireFormat::GetTagWireType(tag)) {
        case WireFormat::WIRETYPE_VARINT: {
          uint64_t ignored = 0;
          if (!in->ReadVarint64(&ignored)) return false;
          if (repeated) estimate_.bytes += kRepeatedSlot;
          break;
        }
        case WireFormat::WIRETYPE_FIXED64:
        case WireFormat::WIRETYPE_FIXED32: {
          if (!in->Skip(WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_FIXED64 ? 8 : 4)) {
            return false;
          }
          if (repeated) estimate_.bytes += kRepeatedSlot;
          break;
        }
        case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
          uint32_t length = 0;
          if (!in->ReadVarint32(&length) || length > static_cast<uint32_t>(INT_MAX)) return false;
          if (field != nullptr && field->type() == pb::FieldDescriptor::TYPE_MESSAGE &&
              depth < kMaxProtoNesting) {
            AddMessage(*field->message_type());
            if (repeated) estimate_.bytes += kRepeatedSlot;
            const auto limit = in->PushLimit(static_cast<int>(length));
            if (!Walk(*field->message_type(), in, depth + 1)) return false;
            in->PopLimit(limit);
          } else {
            if (!in->Skip(static_cast<int>(length))) return false;
            const bool packed_scalars = field != nullptr && repeated &&
                                        field->type() != pb::FieldDescriptor::TYPE_STRING &&
                                        field->type() != pb::FieldDescriptor::TYPE_BYTES &&
                                        field->type() != pb::FieldDescriptor::TYPE_MESSAGE;
            // Packed scalars: at most one element per byte, each at most 8 bytes. Strings,
            // bytes and unknown fields: the bytes in a std::string of their own.
            estimate_.bytes += packed_scalars
                                   ? uint64_t{length} * 8
                                   : uint64_t{length} + sizeof(std::string) + kAllocationOverhead +
                                         (repeated ? kRepeatedSlot : 0);
          }
          break;
        }
        default:  // groups (proto2 only; none of these messages has one) and invalid wire types
          return false;
      }
    }
  }

  void AddMessage(const pb::Descriptor& type) {
    ++estimate_.messages;
    if (&type == counted_) ++estimate_.counted;
    if (&type == last_type_) {  // a repeated field's run of elements: no lookup
      estimate_.bytes += last_bytes_;
      return;
    }
    auto [it, inserted] = object_bytes_.try_emplace(&type, 0);
    if (inserted) {
      // A map entry becomes a node of the map (its key and value are counted as they come);
      // the default instance of a map entry cannot report its own size.
      const pb::Message* prototype = type.options().map_entry()
                                         ? nullptr
                                         : pb::MessageFactory::generated_factory()->GetPrototype(&type);
      it->second = (prototype != nullptr ? prototype->SpaceUsedLong() : kMapNodeBytes) +
                   kAllocationOverhead;
    }
    estimate_.bytes += it->second;
    last_type_ = &type;
    last_bytes_ = it->second;
  }

  ParsedSizeEstimate& estimate() { return estimate_; }

 private:
  const pb::Descriptor* counted_;
  ParsedSizeEstimate estimate_;
  std::unordered_map<const pb::Descriptor*, uint64_t> object_bytes_;
  const pb::Descriptor* last_type_ = nullptr;
  uint64_t last_bytes_ = 0;
};

}  // namespace

ParsedSizeEstimate EstimateParsedSize(const pb::Descriptor& type, const void* data, size_t len,
                                      const pb::Descriptor* counted) {
  SizeWalker walker(counted);
  walker.AddMessage(type);
  if (data == nullptr || len == 0 || len > static_cast<size_t>(INT_MAX)) {
    return walker.estimate();
  }
  pb::io::CodedInputStream in(static_cast<const uint8_t*>(data), static_cast<int>(len));
  in.PushLimit(static_cast<int>(len));
  walker.Walk(type, &in, 0);
  return walker.estimate();
}

uint64_t MaxImportBytes() {
  static const uint64_t limit = MemoryLimitFromEnvironment("TGRAPH_MAX_IMPORT_BYTES");
  return limit;
}

Status CheckImportFitsInMemory(const pb::Descriptor& type, const void* data, size_t len,
                               std::string_view what, uint64_t limit) {
  const pb::Descriptor* node_def =
      type.file()->pool()->FindMessageTypeByName(StrCat(type.file()->package(), ".NodeDef"));
  const ParsedSizeEstimate estimate = EstimateParsedSize(type, data, len, node_def);
  const uint64_t need = estimate.bytes + estimate.counted * kImportedNodeBytes;
  if (need <= limit) return Status::OK();
  return ResourceExhausted(what, " of ", len, " bytes declares ", estimate.counted, " nodes and ",
                           estimate.messages, " messages: importing it needs about ", need,
                           " bytes, over the limit of ", limit,
                           " bytes (physical memory, or TGRAPH_MAX_IMPORT_BYTES)");
}

Status CheckTextImportFitsInMemory(std::string_view text, std::string_view what, uint64_t limit) {
  constexpr uint64_t kTextMessageBytes = 256;
  uint64_t messages = 0, nodes = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' || text[i] == '<') ++messages;
  }
  for (size_t at = text.find("node"); at != std::string_view::npos; at = text.find("node", at + 4)) {
    ++nodes;
  }
  const uint64_t need = text.size() + messages * kTextMessageBytes + nodes * kImportedNodeBytes;
  if (need <= limit) return Status::OK();
  return ResourceExhausted(what, " in text format of ", text.size(), " bytes may declare up to ",
                           nodes, " nodes and ", messages, " messages: importing it could need ",
                           need, " bytes, over the limit of ", limit,
                           " bytes (physical memory, or TGRAPH_MAX_IMPORT_BYTES)");
}

}  // namespace tgraph
