// The numbers plugin.h's input_version reports (ABI 7): which buffers' bytes are known to be
// unchanged since a number was given. Only variables' buffers (renumbered on every write
// path: mutable_ref_input, reallocate_ref_input, and again when that kernel returns) and
// graph constants' buffers (numbered once) have one; every other buffer reads 0, "unknown".
//
// Why a table beside the buffers rather than a field of TensorBuffer: only a few buffers are
// ever numbered, and the lookups are few (a GEMM kernel asks once per call), so the hot paths
// that every tensor takes (allocation, forwarding) stay as they are. An entry holds a weak
// reference to its buffer: a buffer that died reads as unnumbered even if a new one takes
// its address. That reference keeps the dead buffer's control block (with make_shared, the
// TensorBuffer object itself) until the entry goes: entries of dead buffers are dropped when
// a graph is destroyed (its constants die with it: ForgetDead from ~Graph) and whenever the
// table has doubled. Without the first, every graph left its constants' entries behind for
// a later purge, which libFuzzer's leak check took for a leak in each op_run input (more
// allocations than frees), re-running it under LeakSanitizer: op_run ran 15 times slower.
// A numbered buffer is always held by its variable or its graph while it has
// a number, so nothing forwards it to a kernel that writes it in place (forwarding needs
// the only reference); a variable letting go of its buffer (reallocate_ref_input, a move to
// another device's memory) drops the number first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/base/tensor.h"

namespace tgraph {

class BufferVersions {
 public:
  // The number of `buffer`'s bytes, 0 when it has none (or is null).
  static uint64_t Get(const TensorBuffer* buffer);
  // A new number for `buffer` (its bytes may be written from now on); numbers are unique
  // in the process. A null buffer is ignored.
  static void Touch(const std::shared_ptr<TensorBuffer>& buffer);
  // A number for `buffer` unless it has one (a constant: one number for its life).
  static void Ensure(const std::shared_ptr<TensorBuffer>& buffer);
  // A new number for `buffer` if it has one (after a kernel that may have written a
  // variable returns: a buffer its variable let go of meanwhile stays unnumbered).
  static void Renumber(const TensorBuffer* buffer);
  // `buffer` has no number any more.
  static void Drop(const TensorBuffer* buffer);
  // Drops the entries of buffers that died (and so the control blocks they kept).
  static void ForgetDead();
  // Entries in the table, those of dead buffers included (tests).
  static size_t NumEntriesForTest();
};

}  // namespace tgraph
