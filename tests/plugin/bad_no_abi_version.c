/* Fills in its name but never declares the ABI version it was built for. */
#include "tgraph/plugin.h"

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  (void)status;
  args->info->name = "test_no_abi_version";
}
