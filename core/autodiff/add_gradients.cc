// The backward pass is built in one sweep over the ops that lie between xs and ys, in
// reverse creation order. Creation order is a topological order (an op's inputs exist before
// it), so when an op is reached every consumer has already sent it its gradients.
#include "core/autodiff/add_gradients.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/property_map.hpp>

#include <map>
#include <unordered_map>

#include "core/autodiff/differentiable.h"
#include "core/autodiff/gradient_registry.h"
#include "core/autodiff/list_grad.h"
#include "core/autodiff/plugin_gradient.h"
#include "core/autodiff/while_grad.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"
#include "core/plugin/registry.h"

namespace tgraph {

bool IsDifferentiable(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

namespace {

// Does a gradient flow along input i of op (a differentiable tensor into a differentiable
// argument, or a TensorList into a list op with a gradient or the control-flow plumbing)?
// A resource variable's handle carries the gradient of what a read or a gather of it gave
// (resource_variable_grad.cc), so that the handle stands for the variable's value.
bool CarriesVariableGradient(const Operation& op, int i) {
  return i == 0 && BaseType(op.input(i).dtype()) == DT_RESOURCE &&
         (op.type() == "ReadVariableOp" || op.type() == "ResourceGather");
}

bool CarriesGradient(const Operation& op, int i) {
  if (IsDifferentiable(op.input(i).dtype()) && IsDifferentiable(op.input_type(i))) return true;
  if (CarriesVariableGradient(op, i)) return true;
  return BaseType(op.input(i).dtype()) == DT_VARIANT && CarriesListGradient(op.type());
}

// The data edges that can carry gradients, producer -> consumer, one vertex per op id.
using FlowGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

FlowGraph BuildFlowGraph(const Graph& graph) {
  FlowGraph flow(static_cast<size_t>(graph.num_operations()));
  for (const auto& op : graph.operations()) {
    for (int i = 0; i < op->num_inputs(); ++i) {
      if (CarriesGradient(*op, i)) {
        boost::add_edge(static_cast<size_t>(op->input(i).op->id()), static_cast<size_t>(op->id()),
                        flow);
      }
    }
  }
  return flow;
}

// Marks every vertex a breadth-first search discovers.
class MarkVisitor : public boost::default_bfs_visitor {
 public:
  explicit MarkVisitor(std::vector<char>* marks) : marks_(marks) {}
  template <typename Vertex, typename G>
  void discover_vertex(Vertex v, const G&) const {
    (*marks_)[static_cast<size_t>(v)] = 1;
  }

 private:
  std::vector<char>* marks_;
};

template <typename G>
void MarkReachable(const G& g, const std::vector<size_t>& sources, std::vector<char>* marks) {
  std::vector<boost::default_color_type> colors(boost::num_vertices(g), boost::white_color);
  auto color_map = boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, g));
  boost::queue<typename boost::graph_traits<G>::vertex_descriptor> queue;
  boost::breadth_first_search(g, sources.begin(), sources.end(), queue, MarkVisitor(marks),
                              color_map);
}

// Keeps the vertices marked in `keep` (the reverse walk stays among ops reachable from xs).
struct MarkedVertices {
  const std::vector<char>* keep = nullptr;
  bool operator()(size_t v) const { return (*keep)[v] != 0; }
};

// Ops on a path from some x to some y.
std::vector<char> OpsBetween(const Graph& graph, const std::vector<Output>& xs,
                             const std::vector<Output>& ys) {
  const FlowGraph flow = BuildFlowGraph(graph);
  const size_t n = static_cast<size_t>(graph.num_operations());
  std::vector<char> from_xs(n, 0);
  std::vector<size_t> x_ops;
  for (const Output& x : xs) x_ops.push_back(static_cast<size_t>(x.op->id()));
  MarkReachable(flow, x_ops, &from_xs);

  std::vector<char> between(n, 0);
  std::vector<size_t> y_ops;
  for (const Output& y : ys) {
    if (from_xs[static_cast<size_t>(y.op->id())]) y_ops.push_back(static_cast<size_t>(y.op->id()));
  }
  if (y_ops.empty()) return between;
  auto reversed = boost::make_reverse_graph(flow);
  boost::filtered_graph<decltype(reversed), boost::keep_all, MarkedVertices> walk(
      reversed, boost::keep_all(), MarkedVertices{&from_xs});
  MarkReachable(walk, y_ops, &between);
  return between;
}

// Where an op's gradient comes from.
struct GradientSource {
  const GradientFunction* core = nullptr;
  const GradientRegistration* plugin = nullptr;
  bool not_differentiable = false;
  bool found() const { return core != nullptr || plugin != nullptr || not_differentiable; }
};

// The gradient an op asks for: its type, or what TF's gradient_override_map put in its
// "_gradient_op_type" attr when it was built.
std::string GradientOpType(const Operation& op) {
  const tf::AttrValue* overridden = op.FindAttr("_gradient_op_type");
  if (overridden != nullptr && overridden->value_case() == tf::AttrValue::kS &&
      !overridden->s().empty()) {
    return overridden->s();
  }
  return op.type();
}

GradientSource FindGradient(const std::string& op_type) {
  GradientSource source;
  const GradientFunctionRegistry& core = GradientFunctionRegistry::Global();
  source.core = core.Find(op_type);
  source.not_differentiable = core.IsNotDifferentiable(op_type);
  if (!source.core && !source.not_differentiable) {
    source.plugin = GradientRegistry::Global()->Find(op_type);
  }
  return source;
}

// Does backprop have to go through `op` into at least one of its inputs?
bool NeedsInputGradients(const Operation& op, const std::vector<char>& between) {
  for (int i = 0; i < op.num_inputs(); ++i) {
    if (CarriesGradient(op, i) && between[static_cast<size_t>(op.input(i).op->id())]) return true;
  }
  return false;
}

// Sums the gradients that reached one tensor: AddN of dense ones; sparse ones stay sparse
// (concatenated slices) when all are sparse, else they are made dense first.
GradValue Aggregate(GraphBuilder& b, std::vector<GradValue>& parts) {
  if (parts.empty()) return GradValue{};
  if (parts.size() == 1) return parts[0];
  bool all_sparse = true;
  for (const GradValue& g : parts) all_sparse = all_sparse && g.is_sparse();
  if (all_sparse) {
    std::vector<Output> values, indices;
    for (const GradValue& g : parts) {
      values.push_back(g.values);
      indices.push_back(g.indices);
    }
    Output axis = b.ScalarInt32(0);
    return GradValue::Sparse(b.Op("ConcatV2", {GradInput::List(values), axis}),
                             b.Op("ConcatV2", {GradInput::List(indices), axis}),
                             parts[0].dense_shape);
  }
  std::vector<Output> dense;
  for (const GradValue& g : parts) dense.push_back(b.Densify(g));
  return GradValue::Dense(b.AddN(std::move(dense)));
}

Status ValidateTensors(const Graph& graph, const std::vector<Output>& ts, const char* what) {
  for (size_t i = 0; i < ts.size(); ++i) {
    const Output& t = ts[i];
    if (t.op == nullptr) return InvalidArgument("AddGradients: ", what, "[", i, "] is null");
    if (t.op->graph() != &graph) {
      return InvalidArgument("AddGradients: ", what, "[", i, "] ('", t.Name(),
                             "') belongs to another graph");
    }
    if (t.index < 0 || t.index >= t.op->num_outputs()) {
      return InvalidArgument("AddGradients: ", what, "[", i, "]: operation '", t.op->name(),
                             "' has no output ", t.index);
    }
  }
  return Status::OK();
}

}  // namespace

StatusOr<std::vector<GradValue>> AddGradients(Graph& graph, const std::vector<Output>& ys,
                                              const std::vector<Output>& xs,
                                              const std::vector<Output>& grad_ys,
                                              const AddGradientsOptions& options) {
  std::lock_guard lock(graph.mutex());
  if (graph.finalized()) {
    return FailedPrecondition("Graph is finalized and cannot be modified (AddGradients)");
  }
  if (ys.empty()) return InvalidArgument("AddGradients: no ys to differentiate");
  TG_RETURN_IF_ERROR(ValidateTensors(graph, ys, "ys"));
  TG_RETURN_IF_ERROR(ValidateTensors(graph, xs, "xs"));
  TG_RETURN_IF_ERROR(ValidateTensors(graph, grad_ys, "grad_ys"));
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    return InvalidArgument("AddGradients: ", grad_ys.size(), " grad_ys given for ", ys.size(),
                           " ys (give one per y, or none for ones)");
  }
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!IsDifferentiable(ys[i].dtype())) {
      return InvalidArgument("AddGradients: cannot differentiate '", ys[i].Name(), "' of type ",
                             DataTypeName(BaseType(ys[i].dtype())),
                             " (only floating-point and complex tensors have gradients)");
    }
    if (!grad_ys.empty() && BaseType(grad_ys[i].dtype()) != BaseType(ys[i].dtype())) {
      return InvalidArgument("AddGradients: grad_ys[", i, "] ('", grad_ys[i].Name(), "') is ",
                             DataTypeName(BaseType(grad_ys[i].dtype())), " but y '",
                             ys[i].Name(), "' is ", DataTypeName(BaseType(ys[i].dtype())));
    }
  }

  const std::vector<char> between = OpsBetween(graph, xs, ys);
  // While loops on the way get backward loops (while_grad.h); their plumbing has no
  // gradient functions.
  WhileGradients loops(graph);
  TG_RETURN_IF_ERROR(loops.Analyze(between));

  // Every op the gradient must pass through needs a gradient function: checked before
  // anything is built, so a missing one leaves the graph untouched.
  std::unordered_map<const Operation*, GradientSource> sources;
  for (int id = static_cast<int>(between.size()) - 1; id >= 0; --id) {
    if (!between[static_cast<size_t>(id)]) continue;
    const Operation* op = graph.operation(id);
    if (!NeedsInputGradients(*op, between) || loops.IsPlumbing(op)) continue;
    const std::string gradient_type = GradientOpType(*op);
    GradientSource source = FindGradient(gradient_type);
    if (!source.found()) {
      const std::string overridden =
          gradient_type == op->type() ? "" : StrCat(", gradient overridden as '", gradient_type, "'");
      return NotFound("No gradient defined for operation '", op->name(), "' (op type: ",
                      op->type(), overridden, "), which lies between ", ys[0].Name(),
                      " and the xs");
    }
    sources.emplace(op, source);
  }

  GraphContextGuard prefix_scope(graph);
  TG_RETURN_IF_ERROR(prefix_scope.NameScope(options.prefix.empty() ? "gradients" : options.prefix).status());
  GraphBuilder builder(graph);

  // Gradients received per op output, summed when the op is reached.
  std::unordered_map<const Operation*, std::vector<std::vector<GradValue>>> received;
  auto receive = [&](Output t, GradValue g) {
    auto& slots = received[t.op];
    if (slots.empty()) slots.resize(static_cast<size_t>(t.op->num_outputs()));
    slots[static_cast<size_t>(t.index)].push_back(std::move(g));
  };
  for (size_t i = 0; i < ys.size(); ++i) {
    const Output& y = ys[i];
    if (!between[static_cast<size_t>(y.op->id())]) continue;
    if (!grad_ys.empty()) {
      receive(y, GradValue::Dense(grad_ys[i]));
      continue;
    }
    Output one = builder.Scalar(y.dtype(), 1.0, "grad_ys_" + std::to_string(i));
    // A known shape is a constant, so the backward graph keeps static shapes.
    Output shape;
    if (y.shape().IsFullyDefined()) {
      const std::vector<int64_t>& dims = y.shape().dims();
      shape = builder.ConstInt32(std::vector<int32_t>(dims.begin(), dims.end()));
    } else {
      shape = builder.Shape(y);
    }
    receive(y, GradValue::Dense(builder.Fill(shape, one)));
  }

  // Aggregated output gradients of each processed op (the xs' results are read from here).
  std::unordered_map<const Operation*, std::vector<GradValue>> summed;
  // Only the ops that existed before this call: the nodes built here are not in `between`.
  for (int id = static_cast<int>(between.size()) - 1; id >= 0 && builder.ok(); --id) {
    if (!between[static_cast<size_t>(id)]) continue;
    Operation* op = graph.operation(id);
    auto it = received.find(op);
    if (it == received.end()) continue;
    // Loops the sweep has left end first: the sums below belong outside them.
    TG_RETURN_IF_ERROR(loops.Leave(op));
    std::vector<GradValue> out_grads(static_cast<size_t>(op->num_outputs()));
    for (int k = 0; k < op->num_outputs(); ++k) {
      out_grads[static_cast<size_t>(k)] = Aggregate(builder, it->second[static_cast<size_t>(k)]);
    }
    received.erase(it);
    summed[op] = out_grads;

    auto take = [&](const Operation* o) {
      std::vector<GradValue> g(static_cast<size_t>(o->num_outputs()));
      auto r = received.find(o);
      if (r == received.end()) return g;
      for (size_t k = 0; k < g.size(); ++k) g[k] = Aggregate(builder, r->second[k]);
      received.erase(r);
      return g;
    };
    TG_ASSIGN_OR_RETURN(bool handled, loops.Visit(op, out_grads, builder, take, receive));
    if (handled) continue;

    auto source_it = sources.find(op);
    if (source_it == sources.end() || source_it->second.not_differentiable) continue;
    GraphContextGuard op_scope(graph);
    TG_RETURN_IF_ERROR(op_scope.NameScope(op->name() + "_grad").status());
    GradientContext ctx(graph, op, std::move(out_grads));
    Status s = source_it->second.core ? (*source_it->second.core)(ctx)
                                      : CallPluginGradient(*source_it->second.plugin, ctx);
    if (s.ok()) s = ctx.status();
    if (!s.ok()) {
      return Status(s.code(), StrCat("gradient of '", op->name(), "' (", op->type(), "): ",
                                     s.message()));
    }
    for (int i = 0; i < op->num_inputs(); ++i) {
      const GradValue& g = ctx.input_grads()[static_cast<size_t>(i)];
      if (!g.defined() || !CarriesGradient(*op, i)) continue;
      const Output in = op->input(i);
      if (!between[static_cast<size_t>(in.op->id())]) continue;
      if (BaseType(g.values.dtype()) != BaseType(in.dtype()) && !CarriesVariableGradient(*op, i)) {
        return Internal("gradient of '", op->name(), "' (", op->type(), ") for input ", i, " is ",
                        DataTypeName(BaseType(g.values.dtype())), " but '", in.Name(), "' is ",
                        DataTypeName(BaseType(in.dtype())));
      }
      receive(in, g);
    }
  }
  TG_RETURN_IF_ERROR(builder.status());
  TG_RETURN_IF_ERROR(loops.FinishAll());

  std::vector<GradValue> result(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const Output& x = xs[i];
    // A resource variable's handle (VarHandleOp) has its value's gradient.
    if (!IsDifferentiable(x.dtype()) && !(BaseType(x.dtype()) == DT_RESOURCE && x.op->type() == "VarHandleOp")) {
      continue;
    }
    auto it = summed.find(x.op);
    if (it == summed.end()) continue;
    GradValue g = it->second[static_cast<size_t>(x.index)];
    if (g.is_sparse() && !options.allow_sparse) {
      g = GradValue::Dense(builder.Densify(g));
      // Later xs naming the same tensor reuse the dense node.
      it->second[static_cast<size_t>(x.index)] = g;
    }
    result[i] = g;
  }
  TG_RETURN_IF_ERROR(builder.status());
  return result;
}

}  // namespace tgraph
