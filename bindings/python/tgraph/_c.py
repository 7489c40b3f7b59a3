"""ctypes declarations of the tgraph C API (tgraph/c_api.h), and the library's loading.

The binding reaches tgraph only through these functions: every graph, session and tensor
is a handle of libtgraph.so. Declarations are compact signature strings (one character per
argument) so that this file stays a readable index of what the binding uses.
"""
from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (POINTER, Structure, c_char_p, c_double, c_float, c_int, c_int64, c_size_t,
                    c_ubyte, c_void_p)


class TG_Output(Structure):
    """A tensor of a graph: (operation handle, output index)."""
    _fields_ = [("oper", c_void_p), ("index", c_int)]


class TG_Input(Structure):
    _fields_ = [("oper", c_void_p), ("index", c_int)]


class TG_Buffer(Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t), ("data_deallocator", c_void_p)]


class TG_VariableOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("trainable", c_int),
                ("validate_shape", c_int), ("collections", POINTER(c_char_p)),
                ("num_collections", c_int), ("base_collections", POINTER(c_char_p)),
                ("num_base_collections", c_int)]


class TG_Initializer(Structure):
    _fields_ = [("struct_size", c_size_t), ("kind", c_int), ("value", c_double),
                ("tensor", c_void_p), ("mean", c_double), ("stddev", c_double),
                ("minval", c_double), ("maxval", c_double), ("has_seed", c_int),
                ("seed", c_int64)]


class TG_VariableScopeOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("reuse", c_int),
                ("initializer", POINTER(TG_Initializer)), ("dtype", c_int)]


class TG_OptimizerOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("kind", c_int), ("learning_rate", c_double),
                ("learning_rate_tensor", TG_Output), ("momentum", c_double),
                ("use_nesterov", c_int), ("beta1", c_double), ("beta2", c_double),
                ("epsilon", c_double), ("decay", c_double), ("centered", c_int),
                ("initial_accumulator_value", c_double), ("use_locking", c_int),
                ("name", c_char_p), ("clip_norm", c_double)]


class TG_NceLossOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("num_true", c_int),
                ("remove_accidental_hits", c_int), ("has_seed", c_int), ("seed", c_int64),
                ("sampled_values", POINTER(TG_Output)), ("name", c_char_p)]


class TG_SaverOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("var_list", POINTER(c_void_p)),
                ("num_vars", c_int), ("save_names", POINTER(c_char_p)), ("max_to_keep", c_int),
                ("keep_checkpoint_every_n_hours", c_float), ("sharded", c_int),
                ("filename", c_char_p)]


class TG_MetaGraphExportOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("export_scope", c_char_p), ("clear_devices", c_int),
                ("strip_default_attrs", c_int), ("tags", POINTER(c_char_p)), ("num_tags", c_int),
                ("meta_graph_version", c_char_p), ("saver_def", c_char_p),
                ("saver_def_len", c_size_t)]


class TG_MetaGraphImportOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("import_scope", c_char_p), ("clear_devices", c_int)]


# Tensor deallocator: void (*)(void* data, size_t len, void* arg).
DEALLOCATOR = ctypes.CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
# Device function: const char* (*)(void* arg, const TG_Operation* op).
DEVICE_FUNCTION = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p)
# Initializer callback: void (*)(void* arg, TG_Graph* g, TG_DataType dtype,
# const int64_t* dims, int num_dims, TG_Output* out, TG_Status* status).
INITIALIZER_CALLBACK = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_int,
                                        ctypes.POINTER(c_int64), c_int,
                                        ctypes.POINTER(TG_Output), c_void_p)

_CODES = {"P": c_void_p, "S": c_char_p, "I": c_int, "L": c_int64, "Z": c_size_t, "F": c_float,
          "D": c_double, "B": c_ubyte, "O": TG_Output, "N": TG_Input, "v": None}

# name: "R:ARGS" with R the result and ARGS one code per argument.
_DECLS = {
    "TG_Version": "S:",
    # status, dtypes, buffers
    "TG_NewStatus": "P:", "TG_DeleteStatus": "v:P", "TG_GetCode": "I:P", "TG_Message": "S:P",
    "TG_DataTypeSize": "Z:I", "TG_DataTypeName": "S:I",
    "TG_NewBuffer": "P:", "TG_NewBufferFromString": "P:PZ", "TG_DeleteBuffer": "v:P",
    # tensors
    "TG_AllocateTensor": "P:IPIZ", "TG_NewTensor": "P:IPIPZPP",
    "TG_NewStringTensor": "P:PIPPP", "TG_TensorGetString": "v:PLPPP",
    "TG_DeleteTensor": "v:P", "TG_TensorType": "I:P", "TG_NumDims": "I:P", "TG_Dim": "L:PI",
    "TG_TensorByteSize": "Z:P", "TG_TensorData": "P:P", "TG_TensorElementCount": "L:P",
    "TG_NewTensorFromCopy": "P:IPIPZ", "TG_TensorDescribe": "I:PPPIP",
    # graphs
    "TG_NewGraph": "P:", "TG_DeleteGraph": "v:P", "TG_GraphOperationByName": "P:PS",
    "TG_GraphOutputByName": "O:PSP", "TG_GraphNextOperation": "P:PP",
    "TG_GraphNumOperations": "I:P", "TG_GraphSetTensorShape": "v:POPIP",
    "TG_GraphGetTensorNumDims": "I:POP", "TG_GraphGetTensorShape": "v:POPIP",
    "TG_GraphFinalize": "v:P", "TG_GraphIsFinalized": "I:P",
    # building operations
    "TG_NewOperation": "P:PSS", "TG_SetDevice": "v:PS", "TG_AddInput": "v:PO",
    "TG_AddInputList": "v:PPI", "TG_AddControlInput": "v:PP", "TG_ColocateWith": "v:PP",
    "TG_SetAttrString": "v:PSPZ", "TG_SetAttrStringList": "v:PSPPI", "TG_SetAttrInt": "v:PSL",
    "TG_SetAttrIntList": "v:PSPI", "TG_SetAttrFloat": "v:PSF", "TG_SetAttrFloatList": "v:PSPI",
    "TG_SetAttrBool": "v:PSB", "TG_SetAttrBoolList": "v:PSPI", "TG_SetAttrType": "v:PSI",
    "TG_SetAttrTypeList": "v:PSPI", "TG_SetAttrShape": "v:PSPI",
    "TG_SetAttrShapeList": "v:PSPPI", "TG_SetAttrTensor": "v:PSPP",
    "TG_SetAttrTensorList": "v:PSPIP", "TG_SetAttrValueProto": "v:PSPZP",
    "TG_FinishOperation": "P:PP", "TG_AbandonOperation": "v:P",
    # introspection
    "TG_OperationName": "S:P", "TG_OperationOpType": "S:P", "TG_OperationDevice": "S:P",
    "TG_OperationNumOutputs": "I:P", "TG_OperationOutputType": "I:O",
    "TG_OperationOutputListLength": "I:PSP", "TG_OperationNumInputs": "I:P",
    "TG_OperationInputType": "I:N", "TG_OperationInputListLength": "I:PSP",
    "TG_OperationInput": "O:N", "TG_OperationAllInputs": "v:PPI",
    "TG_OperationOutputNumConsumers": "I:O", "TG_OperationOutputConsumers": "I:OPI",
    "TG_OperationNumControlInputs": "I:P", "TG_OperationGetControlInputs": "I:PPI",
    "TG_OperationNumControlOutputs": "I:P", "TG_OperationGetControlOutputs": "I:PPI",
    "TG_OperationNumAttrs": "I:P", "TG_OperationAttrName": "S:PI",
    "TG_OperationGetAttrValueProto": "v:PSPP", "TG_OperationGetAttrTensor": "v:PSPP", "TG_OperationToNodeDef": "v:PPP",
    # building context
    "TG_GraphPushNameScope": "v:PSP", "TG_GraphPopNameScope": "v:PP",
    "TG_GraphCurrentNameScope": "S:P", "TG_GraphUniqueName": "v:PSIPP",
    "TG_GraphPushControlDependencies": "v:PPIP", "TG_GraphPushClearControlDependencies": "v:PP",
    "TG_GraphPopControlDependencies": "v:PP", "TG_GraphPushDevice": "v:PSP",
    "TG_GraphPushDeviceFunction": "v:PPPP", "TG_GraphPushClearDevice": "v:PP",
    "TG_GraphPopDevice": "v:PP", "TG_GraphPushColocateWith": "v:PPIP",
    "TG_GraphPopColocateWith": "v:PP",
    # collections
    "TG_GraphAddToCollectionOperation": "v:PSPP", "TG_GraphAddToCollectionOutput": "v:PSOP",
    "TG_GraphAddToCollectionVariable": "v:PSPP", "TG_GraphAddToCollectionBytes": "v:PSPZP",
    "TG_GraphAddToCollectionInt64": "v:PSLP", "TG_GraphAddToCollectionFloat": "v:PSFP",
    "TG_GraphGetCollection": "P:PSSP", "TG_CollectionSize": "I:P", "TG_CollectionItemKind": "I:PI",
    "TG_CollectionItemOperation": "P:PI", "TG_CollectionItemOutput": "O:PI",
    "TG_CollectionItemVariable": "P:PI", "TG_CollectionItemBytes": "I:PIPP",
    "TG_CollectionItemInt64": "L:PI", "TG_CollectionItemFloat": "F:PI",
    "TG_DeleteCollection": "v:P", "TG_GraphNumCollectionKeys": "I:P",
    "TG_GraphCollectionKey": "S:PI", "TG_GraphClearCollection": "v:PSP",
    # variables
    "TG_InitVariableOptions": "v:P", "TG_GraphNewVariableFromTensor": "P:PPPP",
    "TG_GraphNewVariable": "P:POPP", "TG_GraphNewVariableWithInitializer": "P:PPPPP",
    "TG_VariableName": "S:P", "TG_VariableOutput": "O:P", "TG_VariableReadValue": "O:P",
    "TG_VariableInitializer": "P:P", "TG_VariableInitialValue": "O:P",
    "TG_VariableDataType": "I:P", "TG_VariableTrainable": "I:P",
    "TG_GraphVariableByName": "P:PS", "TG_GraphGlobalVariablesInitializer": "P:PP",
    "TG_GraphVariablesInitializer": "P:PPISP", "TG_GraphLocalVariablesInitializer": "P:PP",
    "TG_GraphPushVariableScope": "v:PSIP", "TG_GraphPushVariableScopeWithOptions": "v:PSPP",
    "TG_InitVariableScopeOptions": "v:P", "TG_GraphPopVariableScope": "v:PP",
    "TG_GraphCurrentVariableScope": "S:P", "TG_GraphReuseVariables": "v:PP",
    "TG_GraphVariableScopeReuse": "I:P", "TG_GraphGetVariable": "P:PSIPIPPP",
    "TG_GraphGetVariableWithInitializer": "P:PSIPIPPPP",
    "TG_GraphGetVariableWithCallback": "P:PSIPIPPPP", "TG_SetStatus": "v:PIS",
    "TG_VariableInitializedValue": "O:PPP", "TG_IsVariableInitialized": "O:PPSP",
    "TG_ReportUninitializedVariables": "O:PPISP",
    # control flow v1 builders (tf.cond, tf.while_loop)
    "TG_NewWhile": "P:PPISIP", "TG_WhileNumLoopVars": "I:P", "TG_WhileCondInput": "O:PI",
    "TG_WhileSetCond": "v:POP", "TG_WhileBodyInput": "O:PI", "TG_FinishWhile": "v:PPPP",
    "TG_AbortWhile": "v:P", "TG_NewCond": "P:POSP", "TG_CondElse": "v:PPIP",
    "TG_FinishCond": "v:PPIPP", "TG_AbortCond": "v:P",
    # gradients, optimizers, training builders
    "TG_AddGradientsWithPrefix": "v:PSPIPIPPP", "TG_AddGradientsSparse": "v:PSPIPIPPPPP",
    "TG_RegisterGradientCallback": "v:SPPP",
    "TG_InitOptimizerOptions": "v:PI", "TG_NewOptimizer": "P:PP", "TG_DeleteOptimizer": "v:P",
    "TG_OptimizerMinimize": "P:PPOPIPP", "TG_OptimizerComputeGradients": "v:PPOPIPPPPIPP",
    "TG_OptimizerApplyGradients": "P:PPPPPPIPSP", "TG_OptimizerGetSlot": "P:PPS",
    "TG_GraphGetOrCreateGlobalStep": "P:PP", "TG_GraphSetRandomSeed": "v:PLP",
    "TG_GraphGetRandomSeed": "I:PP", "TG_InitInitializer": "v:PI",
    "TG_InitializerValue": "O:PPIPIP", "TG_GraphGetVariableWithInit": "P:PSIPIPPP",
    "TG_GraphNewVariableWithInit": "P:PPIPIPP", "TG_EmbeddingLookup": "O:POOSP",
    "TG_Dropout": "O:PODOPSP", "TG_L2Loss": "O:POSP",
    "TG_SigmoidCrossEntropyWithLogits": "O:POOSP", "TG_InitNceLossOptions": "v:P",
    "TG_NceLoss": "O:POOOOLLPP",
    # GraphDef import and export
    "TG_GraphToGraphDef": "v:PPP", "TG_NewImportGraphDefOptions": "P:",
    "TG_DeleteImportGraphDefOptions": "v:P", "TG_ImportGraphDefOptionsSetPrefix": "v:PS",
    "TG_ImportGraphDefOptionsAddInputMapping": "v:PSIO",
    "TG_ImportGraphDefOptionsAddControlDependency": "v:PP",
    "TG_ImportGraphDefOptionsAddReturnOutput": "v:PSI",
    "TG_ImportGraphDefOptionsAddReturnOperation": "v:PS",
    "TG_GraphImportGraphDefWithResults": "P:PPPP",
    "TG_ImportGraphDefResultsReturnOutputs": "v:PPP",
    "TG_ImportGraphDefResultsReturnOperations": "v:PPP",
    "TG_DeleteImportGraphDefResults": "v:P",
    # sessions
    "TG_NewSessionOptions": "P:", "TG_DeleteSessionOptions": "v:P",
    "TG_SetSessionInterOpThreads": "v:PI", "TG_SetSessionIntraOpThreads": "v:PI",
    "TG_SetSessionAllowSoftPlacement": "v:PI", "TG_SetSessionLogDevicePlacement": "v:PI",
    "TG_SetSessionDefaultDevice": "v:PS", "TG_SetSessionRewrite": "v:PSIP", "TG_NewSession": "P:PPP", "TG_CloseSession": "v:PP",
    "TG_DeleteSession": "v:PP", "TG_SessionNumDevices": "I:P", "TG_SessionDeviceName": "S:PI",
    "TG_SessionDeviceType": "S:PI", "TG_NewRunOptions": "P:", "TG_DeleteRunOptions": "v:P",
    "TG_SetRunOptionsTraceLevel": "v:PI", "TG_NewRunMetadata": "P:",
    "TG_DeleteRunMetadata": "v:P", "TG_RunMetadataNumNodes": "I:P",
    "TG_RunMetadataNodeName": "S:PI", "TG_RunMetadataNodeOpType": "S:PI",
    "TG_RunMetadataNodeDevice": "S:PI", "TG_RunMetadataNodeStartNs": "L:PI",
    "TG_RunMetadataNodeDurationNs": "L:PI", "TG_RunMetadataNodeOutputBytes": "L:PI",
    "TG_RunMetadataNodeThreadId": "I:PI",
    "TG_RunMetadataPeakBytes": "L:P", "TG_RunMetadataAllocatedBytes": "L:P",
    "TG_SessionRun": "v:PPPPIPPIPIPP",
    # plugins and the op registry
    "TG_LoadPlugin": "P:SP", "TG_LoadPluginsFromSearchPath": "I:P", "TG_NumPlugins": "I:",
    "TG_GetPlugin": "P:I", "TG_PluginName": "S:P", "TG_PluginFile": "S:P",
    "TG_PluginNumOps": "I:P", "TG_PluginOpName": "S:PI", "TG_GetPluginSearchPath": "v:PP",
    "TG_CpuVariantLevel": "S:",
    "TG_NumRegisteredOps": "I:", "TG_RegisteredOpName": "S:I", "TG_NewOpInfo": "P:SP",
    "TG_DeleteOpInfo": "v:P", "TG_OpInfoName": "S:P", "TG_OpInfoSummary": "S:P",
    "TG_OpInfoIsStateful": "I:P", "TG_OpInfoNumInputs": "I:P", "TG_OpInfoInput": "S:PI",
    "TG_OpInfoNumOutputs": "I:P", "TG_OpInfoOutput": "S:PI", "TG_OpInfoNumAttrs": "I:P",
    "TG_OpInfoAttr": "S:PI",
    # checkpoints, savers, MetaGraphs
    "TG_NewCheckpointReader": "P:SP", "TG_DeleteCheckpointReader": "v:P",
    "TG_CheckpointReaderNumTensors": "I:P", "TG_CheckpointReaderTensorName": "S:PI",
    "TG_CheckpointReaderTensorType": "I:PI", "TG_CheckpointReaderTensorNumDims": "I:PI",
    "TG_CheckpointReaderTensorDims": "v:PIPIP", "TG_CheckpointReaderRead": "P:PSP",
    "TG_CheckpointExists": "I:S",
    "TG_InitSaverOptions": "v:P", "TG_NewSaver": "P:PPP", "TG_NewSaverFromDef": "P:PPZP",
    "TG_DeleteSaver": "v:P", "TG_SaverToSaverDef": "v:PPP", "TG_SaverSave": "S:PPSPPSP",
    "TG_SaverRestore": "v:PPSP", "TG_SaverNumLastCheckpoints": "I:P",
    "TG_SaverLastCheckpoint": "S:PI", "TG_LatestCheckpoint": "I:SSPP",
    "TG_GetCheckpointState": "v:SSPP",
    "TG_InitMetaGraphExportOptions": "v:P", "TG_ExportMetaGraph": "v:PPPP",
    "TG_WriteMetaGraphFile": "v:PSPP", "TG_InitMetaGraphImportOptions": "v:P",
    "TG_ImportMetaGraph": "v:PPZPPP", "TG_ImportMetaGraphFile": "v:PSPPP",
    # summaries and event files
    "TG_SummaryScalar": "O:PSOP", "TG_SummaryHistogram": "O:PSOP",
    "TG_SummaryMerge": "O:PPISP", "TG_SummaryMergeAll": "O:PSP",
    "TG_NewFileWriter": "P:SSP", "TG_FileWriterPath": "S:P", "TG_FileWriterAddGraph": "v:PPP",
    "TG_FileWriterAddSummary": "v:PPZLP", "TG_FileWriterAddScalar": "v:PSFLP",
    "TG_FileWriterFlush": "v:PP", "TG_FileWriterClose": "v:PP", "TG_DeleteFileWriter": "v:P",
    # graph_util
    "TG_ConvertVariablesToConstants": "v:PPPPIPIPIPP", "TG_ExtractSubGraph": "v:PPIPP",
}


def _library_path() -> str:
    """libtgraph inside the package (a wheel, or the build tree's package), else
    TGRAPH_LIBRARY, else the system's."""
    import glob
    here = os.path.dirname(os.path.abspath(__file__))
    # The build tree's link (_lib/libtgraph.so), or the wheel's lib dir (lib, lib64, ...).
    for pattern in ("_lib/libtgraph.so", "_lib/lib*/libtgraph.so", "_lib/lib*/libtgraph.so.*"):
        found = sorted(glob.glob(os.path.join(here, pattern)))
        if found:
            return found[0]
    env = os.environ.get("TGRAPH_LIBRARY")
    if env:
        return env
    import ctypes.util
    found = ctypes.util.find_library("tgraph")
    if found is None:
        raise ImportError("tgraph: libtgraph.so was found neither in the package nor through "
                          "TGRAPH_LIBRARY nor on the library path")
    return found


def _load() -> ctypes.CDLL:
    # RTLD_DEEPBIND: libtgraph and its dependencies (libprotobuf, ...) resolve their symbols
    # in their own dependency chain first. Without it, a process that loaded another copy of
    # those libraries with global symbols before (TensorFlow's Python module does) binds
    # libtgraph's protobuf calls to that copy and crashes.
    mode = ctypes.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0)
    lib = ctypes.CDLL(_library_path(), mode=mode)
    for name, sig in _DECLS.items():
        res, args = sig.split(":")
        fn = getattr(lib, name)
        fn.restype = _CODES[res]
        fn.argtypes = [_CODES[a] for a in args]
    return lib


lib = _load()

_local = threading.local()


def status() -> int:
    """A TG_Status of this thread (reused: every call leaves it TG_OK or reports it)."""
    s = getattr(_local, "status", None)
    if s is None:
        s = _local.status = _Status()
    return s.handle


class _Status:
    def __init__(self) -> None:
        self.handle = lib.TG_NewStatus()
        self._delete = lib.TG_DeleteStatus

    def __del__(self) -> None:
        self._delete(self.handle)


class Buffer:
    """A TG_Buffer the library fills; `bytes()` copies its contents out."""

    def __init__(self, data: bytes | None = None) -> None:
        if data is None:
            self.handle = lib.TG_NewBuffer()
        else:
            self.handle = lib.TG_NewBufferFromString(data, len(data))
        self._delete = lib.TG_DeleteBuffer

    def __bytes__(self) -> bytes:
        buf = ctypes.cast(self.handle, POINTER(TG_Buffer)).contents
        if not buf.data:
            return b""
        return ctypes.string_at(buf.data, buf.length)

    def __del__(self) -> None:
        self._delete(self.handle)


def cstr(s: str | bytes | None) -> bytes | None:
    if s is None or isinstance(s, bytes):
        return s
    return s.encode("utf-8")


def pystr(b: bytes | None) -> str:
    return "" if b is None else b.decode("utf-8", errors="replace")


def output_array(outputs) -> ctypes.Array:
    arr = (TG_Output * len(outputs))()
    for i, o in enumerate(outputs):
        arr[i] = o
    return arr


_plugins_loaded = False
_plugins_lock = threading.Lock()


def ensure_plugins() -> None:
    """Loads the plugins of the search path once (the CPU kernels, savers, ...): beside a
    packaged libtgraph they are found without environment variables."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    with _plugins_lock:
        if _plugins_loaded:
            return
        _preload_deepbind()
        s = lib.TG_NewStatus()
        try:
            lib.TG_LoadPluginsFromSearchPath(s)
            # A plugin that failed leaves the others usable; a session reports a missing
            # kernel by name, which says more than this aggregated message would here.
        finally:
            lib.TG_DeleteStatus(s)
        _plugins_loaded = True


def _preload_deepbind() -> None:
    """Opens the plugins discovery will load with RTLD_DEEPBIND first (the library's own
    dlopen then gets the same handle), so that their protobuf and other calls bind to their
    own dependencies even in a process where TensorFlow's Python module (or another copy of
    those libraries) was loaded with global symbols. Of a plugin's CPU variants only the one
    discovery chooses is opened (the others may not run on this CPU)."""
    import glob
    import re
    deepbind = getattr(os, "RTLD_DEEPBIND", 0)
    if not deepbind:
        return
    s = lib.TG_NewStatus()
    buf = Buffer()
    try:
        lib.TG_GetPluginSearchPath(buf.handle, s)
    finally:
        lib.TG_DeleteStatus(s)
    levels = ["x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"]
    cpu = pystr(lib.TG_CpuVariantLevel())
    cap = levels.index(cpu) if cpu in levels else len(levels) - 1
    for entry in bytes(buf).decode(errors="replace").split(":"):
        files = [entry] if os.path.isfile(entry) else sorted(glob.glob(os.path.join(entry, "*.so")))
        best: dict = {}
        for f in files:
            m = re.match(r"(.*)\.(x86-64(?:-v\d)?)\.so$", f)
            if m is None:
                best[f] = (-1, f)
            elif m.group(2) in levels and levels.index(m.group(2)) <= cap:
                rank = levels.index(m.group(2))
                if best.get(m.group(1), (-2, ""))[0] < rank:
                    best[m.group(1)] = (rank, f)
        for _, f in best.values():
            preopen_deepbind(f)


def preopen_deepbind(path: str) -> None:
    """Opens the plugin at `path` with RTLD_DEEPBIND before libtgraph loads it (its dlopen
    then gets this handle): the plugin's calls bind to its own dependencies, not to copies
    of them that TensorFlow's module (or another library) loaded with global symbols.
    Failures are left to libtgraph's load, which reports them naming the file."""
    deepbind = getattr(os, "RTLD_DEEPBIND", 0)
    if not deepbind or not os.path.isfile(path):
        return
    try:
        # An absolute path: dlopen would search the library path for a bare file name.
        ctypes.CDLL(os.path.abspath(path), mode=ctypes.RTLD_LOCAL | deepbind)
    except OSError:
        return  # libtgraph's load reports it
    _preopen_opencl_vendors()


_opencl_vendors_opened = False


def _preopen_opencl_vendors() -> None:
    """Once a plugin brought in the OpenCL ICD loader (libOpenCL.so.1), opens the OpenCL
    implementations it will load (the libraries the .icd files of /etc/OpenCL/vendors, or
    OCL_ICD_VENDORS, name; OCL_ICD_FILENAMES) with RTLD_DEEPBIND first. The loader opens them
    itself when the plugin asks for platforms, with ordinary binding: PoCL's LLVM then binds
    to the LLVM inside TensorFlow's libtensorflow_framework (global symbols once TensorFlow's
    module is imported) and crashes in its static constructors (llvm::cl option registration).
    Opened here, the loader's dlopen gets this handle, deep-bound to PoCL's own LLVM."""
    global _opencl_vendors_opened
    if _opencl_vendors_opened:
        return
    try:
        ctypes.CDLL("libOpenCL.so.1", mode=os.RTLD_NOLOAD)
    except (OSError, AttributeError):
        return  # no plugin so far uses the ICD loader
    _opencl_vendors_opened = True
    import glob
    libs = [f for f in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if f]
    vendors = os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    icds = sorted(glob.glob(os.path.join(vendors, "*.icd"))) if os.path.isdir(vendors) else [
        vendors]
    for icd in icds:
        try:
            with open(icd, encoding="utf-8", errors="replace") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name:
            libs.append(name)
    for name in libs:
        try:
            ctypes.CDLL(name, mode=ctypes.RTLD_LOCAL | os.RTLD_DEEPBIND)
        except OSError:
            pass  # the ICD loader skips (and the plugin reports) what does not load
