#include "common/einsum.h"

#include <algorithm>
#include <array>

namespace tgraph::einsum {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// One term ("ab...c") into axes; letters get ids through `ids` (letter -> id, -1 unseen).
std::string ParseTerm(const std::string& term, std::array<int, 128>& ids, Equation* eq,
                      std::vector<int>* axes) {
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == '.') {
      if (term.compare(i, 3, "...") != 0) return "'.' outside an ellipsis in '" + term + "'";
      if (ellipsis) return "more than one ellipsis in '" + term + "'";
      ellipsis = true;
      axes->push_back(kEllipsis);
      i += 2;
    } else if (IsLetter(c)) {
      int& id = ids[static_cast<unsigned char>(c)];
      if (id < 0) {
        id = eq->num_labels++;
        eq->letters.push_back(c);
      }
      axes->push_back(id);
    } else {
      return std::string("invalid character '") + c + "' in '" + term + "'";
    }
  }
  return "";
}

}  // namespace

std::string Parse(const std::string& equation, int num_inputs, Equation* out) {
  *out = Equation();
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  if (arrow != std::string::npos && eq.find("->", arrow + 2) != std::string::npos) {
    return "more than one '->' in equation '" + equation + "'";
  }
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos
                                                                   : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(terms.size()) != num_inputs) {
    return "equation '" + equation + "' has " + std::to_string(terms.size()) +
           " input term(s) but the op has " + std::to_string(num_inputs) + " input(s)";
  }
  if (num_inputs < 1 || num_inputs > 2) {
    return "Einsum takes 1 or 2 inputs, got " + std::to_string(num_inputs);
  }
  std::array<int, 128> ids;
  ids.fill(-1);
  bool any_ellipsis = false;
  for (const std::string& term : terms) {
    out->inputs.emplace_back();
    std::string error = ParseTerm(term, ids, out, &out->inputs.back());
    if (!error.empty()) return error;
    const auto& axes = out->inputs.back();
    any_ellipsis |= std::find(axes.begin(), axes.end(), kEllipsis) != axes.end();
  }
  if (arrow != std::string::npos) {
    std::array<int, 128> before = ids;
    std::string error = ParseTerm(eq.substr(arrow + 2), ids, out, &out->output);
    if (!error.empty()) return error;
    std::vector<int> seen;
    for (int id : out->output) {
      if (id != kEllipsis && std::find(seen.begin(), seen.end(), id) != seen.end()) {
        return std::string("label '") + out->letters[static_cast<size_t>(id)] +
               "' appears more than once in the output of '" + equation + "'";
      }
      seen.push_back(id);
    }
    if (std::count(out->output.begin(), out->output.end(), kEllipsis) > 0 && !any_ellipsis) {
      return "the output of '" + equation + "' has an ellipsis but no input has one";
    }
    for (int c = 0; c < 128; ++c) {
      if (before[static_cast<size_t>(c)] < 0 && ids[static_cast<size_t>(c)] >= 0) {
        return std::string("output label '") + static_cast<char>(c) +
               "' appears in no input of '" + equation + "'";
      }
    }
    return "";
  }
  // Implicit output: the ellipsis, then the labels used once, alphabetically.
  std::vector<int> count(static_cast<size_t>(out->num_labels), 0);
  for (const auto& term : out->inputs) {
    for (int id : term) {
      if (id != kEllipsis) ++count[static_cast<size_t>(id)];
    }
  }
  if (any_ellipsis) out->output.push_back(kEllipsis);
  std::vector<std::pair<char, int>> once;
  for (int id = 0; id < out->num_labels; ++id) {
    if (count[static_cast<size_t>(id)] == 1) once.emplace_back(out->letters[static_cast<size_t>(id)], id);
  }
  std::sort(once.begin(), once.end());
  for (const auto& [letter, id] : once) out->output.push_back(id);
  return "";
}

std::string Resolve(const Equation& eq, const std::vector<std::vector<int64_t>>& input_dims,
                    Resolved* out) {
  *out = Resolved();
  if (input_dims.size() != eq.inputs.size()) return "wrong number of input shapes";
  // How many dims each input's ellipsis stands for; the broadcast rank of them all.
  std::vector<int> ell_rank(eq.inputs.size(), 0);
  int max_ell = 0;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const auto& term = eq.inputs[i];
    const int named = static_cast<int>(std::count_if(term.begin(), term.end(),
                                                     [](int id) { return id != kEllipsis; }));
    const bool has_ell = named != static_cast<int>(term.size());
    const int rank = static_cast<int>(input_dims[i].size());
    if (has_ell ? rank < named : rank != named) {
      return "input " + std::to_string(i) + " has rank " + std::to_string(rank) +
             " but its term names " + std::to_string(named) + " dimension(s)" +
             (has_ell ? " besides the ellipsis" : "");
    }
    ell_rank[i] = rank - named;
    max_ell = std::max(max_ell, ell_rank[i]);
  }
  out->num_ids = eq.num_labels + max_ell;
  out->id_size.assign(static_cast<size_t>(out->num_ids), -2);  // -2: not seen yet
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    std::vector<int>& ids = out->input_ids.emplace_back();
    const auto& dims = input_dims[i];
    for (int id : eq.inputs[i]) {
      if (id != kEllipsis) {
        ids.push_back(id);
        continue;
      }
      for (int k = 0; k < ell_rank[i]; ++k) ids.push_back(eq.num_labels + max_ell - ell_rank[i] + k);
    }
    for (size_t a = 0; a < ids.size(); ++a) {
      const int id = ids[a];
      int64_t& size = out->id_size[static_cast<size_t>(id)];
      const int64_t d = dims[a];
      if (size == -2 || size == d) {
        size = d;
        continue;
      }
      if (id < eq.num_labels) {  // a label: sizes must agree where known
        if (size < 0) {
          size = d;
        } else if (d >= 0) {
          return std::string("label '") + eq.letters[static_cast<size_t>(id)] +
                 "' has size " + std::to_string(size) + " in one place and " +
                 std::to_string(d) + " in another (input " + std::to_string(i) + ")";
        }
        continue;
      }
      // An ellipsis dim: NumPy broadcasting (1 stretches; unknown with 1 stays unknown).
      if (d == 1) continue;
      if (size == 1) {
        size = d;
      } else if (d >= 0 && size >= 0) {
        return "the dimensions of the ellipsis do not broadcast: " + std::to_string(size) +
               " vs. " + std::to_string(d) + " (input " + std::to_string(i) + ")";
      } else if (size < 0 && d > 1) {
        size = d;
      }
    }
  }
  for (int id : eq.output) {
    if (id != kEllipsis) {
      out->output_ids.push_back(id);
      continue;
    }
    for (int k = 0; k < max_ell; ++k) out->output_ids.push_back(eq.num_labels + k);
  }
  for (int id : out->output_ids) {
    out->output_dims.push_back(std::max<int64_t>(out->id_size[static_cast<size_t>(id)], -1));
  }
  for (int64_t& s : out->id_size) s = std::max<int64_t>(s, -1);
  return "";
}

}  // namespace tgraph::einsum
