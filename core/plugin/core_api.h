// The table of core services handed to every plugin's TG_PluginInit (tgraph/plugin.h).
#pragma once

#include "tgraph/plugin.h"

namespace tgraph {

// The process-wide TG_CoreApi: every member set, valid for the life of the process.
const TG_CoreApi* CoreApi();

}  // namespace tgraph
