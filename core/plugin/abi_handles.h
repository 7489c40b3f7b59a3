// The core's definitions of the opaque handles both C headers share (tgraph/types.h):
// one definition, used by the client C API and by the plugin service table alike.
#pragma once

#include "core/base/status.h"
#include "core/base/tensor.h"

struct TG_Status {
  tgraph::Status status;
};

struct TG_Tensor {
  tgraph::Tensor tensor;
};
