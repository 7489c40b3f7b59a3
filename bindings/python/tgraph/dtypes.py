"""tf.dtypes: DType objects with TensorFlow's names, enums and numpy equivalents."""
from __future__ import annotations

from typing import Any

import numpy as np

_REF_OFFSET = 100


class DType:
    """A tensor element type (TensorFlow's DataType numbering, `_ref` types included)."""

    __slots__ = ("_type_enum",)

    def __init__(self, type_enum: int) -> None:
        self._type_enum = int(type_enum)

    @property
    def as_datatype_enum(self) -> int:
        return self._type_enum

    @property
    def name(self) -> str:
        base = _NAMES.get(self._type_enum % _REF_OFFSET if self.is_ref_dtype else self._type_enum)
        if base is None:
            return f"<unknown dtype {self._type_enum}>"
        return base + "_ref" if self.is_ref_dtype else base

    @property
    def is_ref_dtype(self) -> bool:
        return self._type_enum > _REF_OFFSET

    @property
    def base_dtype(self) -> "DType":
        return as_dtype(self._type_enum - _REF_OFFSET) if self.is_ref_dtype else self

    @property
    def real_dtype(self) -> "DType":
        b = self.base_dtype
        return {complex64: float32, complex128: float64}.get(b, b)

    @property
    def as_numpy_dtype(self) -> Any:
        return _TO_NP[self.base_dtype._type_enum]

    @property
    def is_floating(self) -> bool:
        return self.base_dtype in (float16, bfloat16, float32, float64)

    @property
    def is_integer(self) -> bool:
        return self.base_dtype in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

    @property
    def is_complex(self) -> bool:
        return self.base_dtype in (complex64, complex128)

    @property
    def is_bool(self) -> bool:
        return self.base_dtype == bool

    @property
    def is_unsigned(self) -> bool:
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def size(self) -> int:
        from tgraph import _c
        return int(_c.lib.TG_DataTypeSize(self._type_enum))

    @property
    def min(self) -> Any:
        t = self.as_numpy_dtype
        return np.finfo(t).min if self.is_floating else np.iinfo(t).min

    @property
    def max(self) -> Any:
        t = self.as_numpy_dtype
        return np.finfo(t).max if self.is_floating else np.iinfo(t).max

    def is_compatible_with(self, other: Any) -> bool:
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other.base_dtype._type_enum)

    def __eq__(self, other: Any) -> bool:
        if other is None:
            return False
        if not isinstance(other, DType):
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._type_enum == other._type_enum

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return as_dtype, (self.name,)


_NAMES = {
    0: "invalid", 1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
    7: "string", 8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8",
    13: "qint32", 14: "bfloat16", 15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128",
    19: "float16", 20: "resource", 21: "variant", 22: "uint32", 23: "uint64",
}

float16 = half = DType(19)
float32 = DType(1)
float64 = double = DType(2)
bfloat16 = DType(14)
int8 = DType(6)
int16 = DType(5)
int32 = DType(3)
int64 = DType(9)
uint8 = DType(4)
uint16 = DType(17)
uint32 = DType(22)
uint64 = DType(23)
bool = DType(10)  # noqa: A001 - TensorFlow's name
string = DType(7)
complex64 = DType(8)
complex128 = DType(18)
qint8 = DType(11)
quint8 = DType(12)
qint32 = DType(13)
qint16 = DType(15)
quint16 = DType(16)
resource = DType(20)
variant = DType(21)
float32_ref = DType(101)
float64_ref = DType(102)
int32_ref = DType(103)
int64_ref = DType(109)

_TO_NP = {
    1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
    7: np.object_, 8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16,
    18: np.complex128, 19: np.float16, 22: np.uint32, 23: np.uint64,
    11: np.int8, 12: np.uint8, 13: np.int32, 15: np.int16, 16: np.uint16, 14: np.uint16,
}
_FROM_NP = {np.dtype(v): k for k, v in _TO_NP.items() if k < 11 or k in (17, 18, 19, 22, 23)}
_FROM_NP[np.dtype(np.bytes_)] = 7
_FROM_NP[np.dtype(np.str_)] = 7
_BY_NAME = {name: DType(e) for e, name in _NAMES.items()}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})
for _e, _n in list(_NAMES.items()):
    _BY_NAME[_n + "_ref"] = DType(_e + _REF_OFFSET)


def as_dtype(type_value: Any) -> DType:
    """A DType from a DType, an enum, a name ("float32", "float"), a numpy dtype or a Python
    type (float -> float32, int -> int32, ...)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, (int, np.integer)) and not isinstance(type_value, type(True)):
        v = int(type_value)
        if v in _NAMES or (v - _REF_OFFSET) in _NAMES:
            return DType(v)
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is type(True):
        return bool
    if type_value in (bytes, str):
        return string
    try:
        npd = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if npd.kind in ("S", "U", "O"):
        return string
    if npd in _FROM_NP:
        return DType(_FROM_NP[npd])
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
