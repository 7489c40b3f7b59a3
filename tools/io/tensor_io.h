// Tensor input/output for the `tgraph` command-line tool: .npy files, tensor literals typed
// on the command line, and numpy-style printing of fetched tensors. A client of the public
// C API only (libtgraph.so); every failure is a TG_Status naming the file or literal.
#ifndef TGRAPH_TOOLS_IO_TENSOR_IO_H_
#define TGRAPH_TOOLS_IO_TENSOR_IO_H_

#include <string>

#include "tgraph/c_api.h"

namespace tgraph::tool {

// Reads a .npy file into a new tensor (the caller owns it: TG_DeleteTensor). NULL and a
// status naming the file and the problem on error: TG_NOT_FOUND for a missing file,
// TG_INVALID_ARGUMENT / TG_DATA_LOSS for a malformed or truncated one, TG_UNIMPLEMENTED for
// what tgraph cannot hold (object arrays, structured dtypes, long double, datetimes).
// Big-endian data is swapped to native, Fortran-order data transposed to row-major; '|S<n>'
// elements lose their trailing NULs (as numpy's do) and 'U' elements become UTF-8 strings.
TG_Tensor* ReadNpy(const std::string& path, TG_Status* status);

// Writes `t` as a .npy file (format 1.0, or 2.0/3.0 when the header needs it). TG_STRING
// tensors are written as fixed-width bytes ('|S<longest element>'; trailing NUL bytes of an
// element do not survive, as in numpy). false + status on error (bfloat16 and other types
// without a numpy code: TG_UNIMPLEMENTED).
bool WriteNpy(const std::string& path, const TG_Tensor* t, TG_Status* status);

// Parses a tensor literal from the command line with the given dtype: "3", "-1.5",
// "[1, 2, 3]", "[[1,2],[3,4]]" (ragged nesting is an error), "true"/"false" for bool, strings
// for TG_STRING ("abc" or ["a","b"] with JSON-like quoting). Shape from the nesting. Values
// out of the dtype's range are TG_INVALID_ARGUMENT. Integers are decimal; floats also take
// nan/inf; complex numbers Python's 1+2j; bools also True/False/1/0. For TG_STRING, text
// that does not start with '"' or '[' is the (scalar) string itself, as typed.
TG_Tensor* ParseTensorLiteral(const std::string& text, TG_DataType dtype, TG_Status* status);

// numpy-style text of a tensor, as numpy's repr of the array would print it, e.g.
// "array([[1., 2.],\n       [3., 4.]], dtype=float32)". bfloat16 prints like float16 with
// dtype=bfloat16; types numpy has no printing for give "<tensor of dtype X, shape (2, 3)>".
std::string FormatTensor(const TG_Tensor* t);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_TENSOR_IO_H_
