// The safetensors checkpoint format: one file, `prefix` itself (".safetensors" selects it),
// holding an 8-byte little-endian header length, the JSON header (header.h) and the tensors'
// raw little-endian bytes. These are the saver's operations behind TG_SaverDefinition; the
// C thunks in plugin.cc call them and turn their Status into the caller's TG_Status.
#pragma once

#include <cstddef>
#include <string>

#include "status.h"
#include "tgraph/plugin.h"

namespace tgraph_safetensors {

// Writes every tensor straight from its own memory into a temporary file, then fsyncs and
// renames it over `path`. INVALID_ARGUMENT naming the tensor for a dtype safetensors lacks
// (strings, complex128, ...), a repeated name, or the reserved name "__metadata__".
Status Save(const std::string& path, const char* const* names, const TG_Tensor* const* tensors,
            size_t count);

// Checks the whole header, then reads each named tensor straight into a new host tensor.
// Every name is found before any tensor is allocated. `status` is the caller's, handed to
// TG_CoreApi.new_host_tensor.
Status Restore(const std::string& path, const char* const* names, size_t count,
               TG_Tensor** tensors, TG_Status* status);

// Reports every tensor in name order; stops when `visit` returns non-zero.
Status List(const std::string& path, TG_CheckpointVisitFn visit, void* visit_arg);

bool Exists(const std::string& path);

// Deletes the file; a missing one is fine.
Status Remove(const std::string& path);

}  // namespace tgraph_safetensors
