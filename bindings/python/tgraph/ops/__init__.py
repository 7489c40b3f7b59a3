"""TF-named op wrappers over the generic builder (tgraph.op_def_lib)."""
