/* A shared library that is not a tgraph plugin: it exports no TG_PluginInit. */
__attribute__((visibility("default"))) int tg_test_not_a_plugin(void) { return 42; }
