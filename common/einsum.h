// Einsum equations ("bqhd,bkhd->bhqk", "...ij,...jk->...ik"): parsing, and resolving the
// labels against input shapes. Shared by the core's shape function (core/ops/einsum_ops.cc)
// and the CPU kernel (plugins/cpu/einsum_op.cc), so the two can never disagree on what an
// equation means. No tgraph types: errors are returned as strings.
//
// Rules (TensorFlow's Einsum op): one or two inputs; labels are ASCII letters; each term may
// hold one "..." standing for the dims not named by letters, which broadcast across inputs
// as in NumPy; a label repeated within an input takes its diagonal; the output names each
// label at most once, and only labels of the inputs. Without "->" the output is NumPy's
// implicit one: "..." first, then the labels seen exactly once, in alphabetical order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::einsum {

// An axis of a term: a label id in [0, num_labels), or kEllipsis.
constexpr int kEllipsis = -1;

struct Equation {
  std::vector<std::vector<int>> inputs;  // one term per input, in axis order
  std::vector<int> output;
  int num_labels = 0;  // distinct letters
  std::vector<char> letters;  // label id -> letter
};

// Parses `equation` for `num_inputs` inputs. Returns "" on success, else what is wrong.
std::string Parse(const std::string& equation, int num_inputs, Equation* out);

// An equation resolved against input shapes. Every axis of every input and of the output is
// mapped to a dimension id: a label's id, or num_labels + k for the k-th dim (counted from
// the left of the broadcast) that "..." stands for.
struct Resolved {
  int num_ids = 0;
  std::vector<int64_t> id_size;                // -1 where unknown
  std::vector<std::vector<int>> input_ids;     // per input, per axis
  std::vector<int> output_ids;                 // per output axis
  std::vector<int64_t> output_dims;            // -1 where unknown
};

// `input_dims` holds each input's dims (-1 for an unknown dim). Returns "" on success, else
// what is wrong (a rank too small for the term, sizes of one label that differ, ellipsis
// dims that do not broadcast).
std::string Resolve(const Equation& eq, const std::vector<std::vector<int64_t>>& input_dims,
                    Resolved* out);

}  // namespace tgraph::einsum
