// Memory a protobuf message will take once parsed, read off its wire bytes before parsing
// (issue 21, item 4: untrusted input fails RESOURCE_EXHAUSTED before allocating, never an OOM
// kill). Parsing allocates far more than the bytes when a message holds many small
// submessages: an empty NodeDef is 2 bytes on the wire and a few hundred bytes parsed, and
// every imported node costs about a kilobyte more in the graph, so a GraphDef near protobuf's
// 2 GiB limit can declare a billion nodes and need terabytes. One pass over the bytes with
// the message's descriptor counts what parsing would allocate, allocating nothing itself.
#pragma once

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/base/status.h"

namespace tgraph {

struct ParsedSizeEstimate {
  uint64_t bytes = 0;     // what parsing allocates, approximately (an upper-leaning estimate)
  uint64_t messages = 0;  // submessages at any depth
  uint64_t counted = 0;   // those of the type asked to count (e.g. NodeDef)
};

// Malformed bytes end the estimate where they start (parsing reports them afterwards).
// Nesting deeper than protobuf's parser allows is not followed.
ParsedSizeEstimate EstimateParsedSize(const google::protobuf::Descriptor& type, const void* data,
                                      size_t len,
                                      const google::protobuf::Descriptor* counted = nullptr);

// The memory an import may take: TGRAPH_MAX_IMPORT_BYTES from the environment when set to a
// positive number (read once), else the machine's physical memory.
uint64_t MaxImportBytes();

// What importing one node costs beyond its parsed NodeDef (operation, tensors, names, index
// entries; measured at about 1 KiB for small nodes).
inline constexpr uint64_t kImportedNodeBytes = 1024;

// OK, or RESOURCE_EXHAUSTED naming `what`, the node count and the estimate when parsing
// `data` as `type` and importing its NodeDefs would take more than `limit` bytes.
Status CheckImportFitsInMemory(const google::protobuf::Descriptor& type, const void* data,
                               size_t len, std::string_view what,
                               uint64_t limit = MaxImportBytes());

// The same for text format, bounded from above without parsing: every submessage opens with
// '{' or '<' (at most 256 bytes parsed each) and every node's entry names the field "node".
Status CheckTextImportFitsInMemory(std::string_view text, std::string_view what,
                                   uint64_t limit = MaxImportBytes());

}  // namespace tgraph
