// The plugin's own status: a TensorFlow code and a message (the savers' shared IoStatus,
// plugins/saver_io/io_status.h). The bundle code below the plugin entry points uses it so that
// it can be built and unit-tested without the core (which owns TG_Status);
// saver_tf_plugin.cc turns it into a TG_Status at the boundary.
#pragma once

#include "saver_io/io_status.h"

namespace tgraph::saver_tf {

using BundleStatus = saver_io::IoStatus;
using saver_io::Error;
using saver_io::Str;

}  // namespace tgraph::saver_tf

#define SAVER_TF_RETURN_IF_ERROR(expr) SAVER_IO_RETURN_IF_ERROR(expr)
