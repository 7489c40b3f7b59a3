"""tf.random: TF 1.x's seeded random ops under their tf.random names, and TF 2.x's stateless
ones (tf.random.stateless_*, tf.random.experimental.stateless_split / stateless_fold_in /
stateless_shuffle)."""
import types as _types

from tgraph.ops.random_ops import random_normal as normal  # noqa: F401
from tgraph.ops.random_ops import random_shuffle as shuffle  # noqa: F401
from tgraph.ops.random_ops import random_uniform as uniform  # noqa: F401
from tgraph.ops.random_ops import set_random_seed as set_seed  # noqa: F401
from tgraph.ops.random_ops import truncated_normal  # noqa: F401
from tgraph.ops.stateless_random_ops import (stateless_fold_in, stateless_shuffle,  # noqa: F401
                                             stateless_split,
                                             stateless_random_normal as stateless_normal,
                                             stateless_random_uniform as stateless_uniform,
                                             stateless_truncated_normal)

experimental = _types.SimpleNamespace(stateless_split=stateless_split,
                                      stateless_fold_in=stateless_fold_in,
                                      stateless_shuffle=stateless_shuffle)
