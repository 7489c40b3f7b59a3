"""tf.train: optimizers, global steps, Saver, MetaGraphs and checkpoint helpers."""
from tgraph.train.optimizer import (AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer,
                                    MomentumOptimizer, Optimizer, RMSPropOptimizer,
                                    create_global_step, get_global_step,
                                    get_or_create_global_step)
from tgraph.train.saver import (CheckpointReader, NewCheckpointReader, Saver, checkpoint_exists,
                                export_meta_graph, get_checkpoint_state, import_meta_graph,
                                latest_checkpoint, list_variables, load_variable, write_graph)

__all__ = ["AdagradOptimizer", "AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer",
           "Optimizer", "RMSPropOptimizer", "create_global_step", "get_global_step",
           "get_or_create_global_step", "CheckpointReader", "NewCheckpointReader", "Saver",
           "checkpoint_exists", "export_meta_graph", "get_checkpoint_state",
           "import_meta_graph", "latest_checkpoint", "list_variables", "load_variable",
           "write_graph"]
