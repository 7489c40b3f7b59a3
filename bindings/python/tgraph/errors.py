"""tf.errors: TensorFlow's exception classes, raised for the C API's status codes.

The codes are TensorFlow's (TG_Code uses the same numbering), so `e.error_code` compares
with `tf.errors.INVALID_ARGUMENT` and friends as in TensorFlow.
"""
from __future__ import annotations

from typing import Any, Optional

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error of the runtime (a failed build, import or run step)."""

    def __init__(self, node_def: Any, op: Any, message: str, error_code: int) -> None:
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    @property
    def error_code(self) -> int:
        return self._error_code

    def __str__(self) -> str:
        return self._message


def _make(name: str, code: int) -> type:
    def __init__(self, node_def, op, message, *args, **kwargs):
        OpError.__init__(self, node_def, op, message, code)
    return type(name, (OpError,), {"__init__": __init__, "__doc__": f"TF's {name} (code {code})."})


CancelledError = _make("CancelledError", CANCELLED)
UnknownError = _make("UnknownError", UNKNOWN)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _make("NotFoundError", NOT_FOUND)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _make("AbortedError", ABORTED)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED)
InternalError = _make("InternalError", INTERNAL)
UnavailableError = _make("UnavailableError", UNAVAILABLE)
DataLossError = _make("DataLossError", DATA_LOSS)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED)

_BY_CODE = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError, PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError, FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError, UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}


def exception_type_from_error_code(error_code: int) -> type:
    return _BY_CODE.get(error_code, UnknownError)


def error_code_from_exception_type(cls: type) -> int:
    for code, c in _BY_CODE.items():
        if c is cls:
            return code
    return UNKNOWN


def raise_status(code: int, message: str, op: Optional[Any] = None) -> None:
    node_def = None
    raise exception_type_from_error_code(code)(node_def, op, message)


def check(status_handle: int) -> None:
    """Raises the TF exception for a TG_Status that is not OK (and resets nothing: every C
    call sets the status it is given)."""
    from tgraph import _c
    code = _c.lib.TG_GetCode(status_handle)
    if code != OK:
        raise_status(code, _c.pystr(_c.lib.TG_Message(status_handle)))


def check_build(status_handle: int, graph: Optional[Any] = None) -> None:
    """Raises for a TG_Status of a graph-building call that is not OK, as TF's Python raises
    while building: RuntimeError when `graph` is finalized, ValueError for INVALID_ARGUMENT
    (TF turns graph-construction errors into ValueError), the OpError class otherwise."""
    from tgraph import _c
    code = _c.lib.TG_GetCode(status_handle)
    if code == OK:
        return
    msg = _c.pystr(_c.lib.TG_Message(status_handle))
    if graph is not None and graph.finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    if code == INVALID_ARGUMENT:
        raise ValueError(msg)
    raise_status(code, msg)
