"""tf.train: optimizers, global steps, Saver, MetaGraphs and checkpoint helpers."""
from typing import Any

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
           "write_graph", "global_step"]


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The value of `global_step_tensor` (a variable or tensor, or its name) in `sess`, as a
    Python int (tf.train.global_step)."""
    if isinstance(global_step_tensor, str):
        global_step_tensor = sess.graph.get_tensor_by_name(global_step_tensor)
    return int(sess.run(global_step_tensor))
