"""The TensorArray, Stack and TensorList ops (and SymbolicGradient, Conv3D and its backprops,
the string ops of feature preprocessing, and ParallelDynamicStitch) are TensorFlow's: for each, `tgraph ops NAME`
shows the same input and output args (names and types, in order) and the same attrs (names,
kinds, and which have defaults) as TensorFlow's OpDef, so graphs TensorFlow writes import
with every attr accounted for. Each also has a CPU kernel here."""
import os
import re
import subprocess

import pytest
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import op_def_registry

TOOL = os.environ["TGRAPH_TOOL"]

OPS = ["TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayGatherV3",
       "TensorArrayScatterV3", "TensorArraySizeV3", "TensorArrayCloseV3", "TensorArrayConcatV3",
       "TensorArraySplitV3", "TensorArrayGradV3", "StackV2", "StackPushV2", "StackPopV2",
       "StackCloseV2", "TensorListReserve", "EmptyTensorList", "TensorListFromTensor",
       "TensorListSetItem", "TensorListGetItem", "TensorListStack", "TensorListGather",
       "TensorListLength", "TensorListElementShape", "TensorListPushBack", "TensorListPopBack",
       "TensorListScatter", "TensorListScatterV2", "TensorListScatterIntoExistingList",
       # the call ops' gradient, and Conv3D with its gradients
       "SymbolicGradient", "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2",
       # string ops
       "StringToHashBucketFast", "StringToNumber", "AsString", "StringLength", "Substr",
       "StringStrip", "ReduceJoin",
       # what TensorFlow's embedding lookup over partitions stitches its rows with
       "ParallelDynamicStitch"]


def tf_args(args):
    out = []
    for a in args:
        # OpDef spelling: DT_FLOAT -> float, DT_RESOURCE -> resource
        kind = a.type_attr or a.type_list_attr or types_pb2.DataType.Name(a.type)[3:].lower()
        if a.number_attr:  # a list of N: "N * T"
            kind = a.number_attr + " * " + kind
        out.append((a.name, kind))
    return out


def parse_args(text):
    if not text.strip():
        return []
    return [tuple(p.strip() for p in part.split(":")) for part in text.split(",")]


@pytest.mark.parametrize("name", OPS)
def test_op_def_matches_tensorflow(name):
    done = subprocess.run([TOOL, "ops", name], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    m = re.match(r"(\w+)\((.*)\) -> \((.*)\)", lines[0])
    assert m and m.group(1) == name, lines[0]
    want = op_def_registry.get(name)
    assert parse_args(m.group(2)) == tf_args(want.input_arg)
    assert parse_args(m.group(3)) == tf_args(want.output_arg)
    attrs = {}
    for line in lines[1:]:
        a = re.match(r"\s+attr (\w+): (.+?)( = .*)?$", line)
        if a:
            kind = re.sub(r"\s*>=.*", "", a.group(2))  # "list(int) >= 5": the kind only
            if kind.startswith("{"):  # allowed values: of a string attr, or a type attr's types
                kind = "string" if "'" in kind else "type"
            attrs[a.group(1)] = (kind, a.group(3) is not None)
    assert attrs == {a.name: (a.type, a.HasField("default_value")) for a in want.attr}
    assert any("kernels: CPU" in line for line in lines), done.stdout
