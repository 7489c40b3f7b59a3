/* Stands for one CPU variant of a plugin: the tests copy it under variant file names
 * ("libtg_variant.x86-64-v3.so", ...). It registers nothing, so any number of copies load in
 * one process, and logs one quiet line, which the loader must keep on the plugin's record. */
#include "tgraph/plugin.h"

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  (void)status;
  args->info->name = "test_variant";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  args->api->log(TG_LOG_INFO, "test_variant: initialised");
}
