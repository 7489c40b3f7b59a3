// Fuzz target: a .npy file (header dict, dtype descr, shape, fortran_order, data) read with
// the `tgraph` tool's reader (tools/io) and, when it is small, printed numpy-style. A malformed
// or truncated file must be a status naming it; the declared shape must be checked against
// the file's size before anything is allocated (issue 21, item 4).
#include <cstdint>

#include "fuzz_files.h"
#include "tensor_io.h"
#include "tgraph/c_api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tgraph::fuzz::Scratch().Write("input.npy", data, size);
  TG_Status* status = TG_NewStatus();
  TG_Tensor* t = tgraph::tool::ReadNpy(path, status);
  if (t != nullptr && TG_TensorElementCount(t) <= 4096) (void)tgraph::tool::FormatTensor(t);
  TG_DeleteTensor(t);
  TG_DeleteStatus(status);
  return 0;
}
