"""tf.Print: the Print op, which passes its input through and logs `data` when run."""
from __future__ import annotations

from typing import Any, List, Optional

from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def Print(input_: Any, data: List[Any], message: Optional[str] = None,
          first_n: Optional[int] = None, summarize: Optional[int] = None,
          name: Optional[str] = None) -> Tensor:
    """`input_`, unchanged; running it writes `message` and the values of `data` (at most
    `summarize` elements each, the first `first_n` times) to standard error (Print)."""
    attrs = {}
    if message is not None:
        attrs["message"] = message
    if first_n is not None:
        attrs["first_n"] = int(first_n)
    if summarize is not None:
        attrs["summarize"] = int(summarize)
    return apply_op("Print", name=name or "Print", input=convert_to_tensor(input_),
                    data=[convert_to_tensor(d) for d in data], **attrs)
