// Constant folding: a stateless op whose inputs are all constants computes the same value on
// every run, so it is computed once here, by the CPU kernel the run would use, and replaced
// by a Const (kept in the plan's scratch graph, shared with the run as a constant view).
// Folding walks the order, so chains of constant ops fold one after another.
//
// Left alone: ops with several outputs or none, ops without inputs (Const itself, random
// ops are stateful anyway), values over RewriteOptions::max_constant_bytes or of a type a
// Const cannot hold, and ops whose kernel fails or does not exist on the CPU (the run then
// reports the error as it would have).
#include "core/exec/kernel_runner.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

bool StaticallyTooLarge(const Operation& op, int64_t max_bytes) {
  const PartialShape& shape = op.output_shape(0);
  if (!shape.IsFullyDefined()) return false;
  int64_t n = 1;
  for (int64_t d : shape.dims()) n *= d;
  const DataType t = op.output_type(0);
  return t != DT_STRING && n * static_cast<int64_t>(DataTypeSize(t)) > max_bytes;
}

// The values of a node's inputs when every one is a Const of the fragment; else false.
bool ConstantInputs(const RewriteGraph& g, int i, std::vector<Tensor>* values, std::vector<int>* consts) {
  values->clear();
  consts->clear();
  for (const Output& in : g.node(i).inputs) {
    const int p = g.Producer(in);
    if (p < 0) return false;  // fed, or from outside the fragment
    const Operation& producer = *g.node(p).op;
    if (producer.type() != "Const" || producer.constant_value() == nullptr) return false;
    values->push_back(*producer.constant_value());
    consts->push_back(p);
  }
  return !values->empty();
}

}  // namespace

int FoldConstants(RewriteGraph& g) {
  const int64_t max_bytes = g.request().options.max_constant_bytes;
  int count = 0;
  std::vector<Tensor> values;
  std::vector<int> consts;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i)) continue;
    const Operation& op = *g.node(i).op;
    if (op.num_outputs() != 1 || op.type() == "Const" || op.type() == "NoOp") continue;
    const DataType out_type = op.output_type(0);
    if (out_type == DT_RESOURCE || out_type == DT_VARIANT || IsRefType(out_type)) continue;
    if (StaticallyTooLarge(op, max_bytes)) continue;
    if (!ConstantInputs(g, i, &values, &consts)) continue;

    auto runner = KernelRunner::Create(op, "CPU");
    if (!runner.ok()) continue;
    std::vector<Tensor> outputs;
    if (!(*runner)->Run(values, &outputs).ok() || outputs.size() != 1) continue;
    const Tensor& value = outputs[0];
    if (value.dtype() != BaseType(out_type) || static_cast<int64_t>(value.ByteSize()) > max_bytes) continue;

    auto folded = g.NewConstant(StrCat("ConstantFolding/", op.name()), value, op.device());
    if (!folded.ok()) continue;
    // The Const waits for what the op and the constants it read waited for.
    std::vector<int> controls = g.node(i).controls;
    for (int c : consts) {
      for (int cc : g.node(c).controls) controls.push_back(cc);
    }
    g.Replace(i, *folded, {}, controls);
    ++count;
  }
  return count;
}

}  // namespace tgraph
