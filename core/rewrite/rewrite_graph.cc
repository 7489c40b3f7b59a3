#include "core/rewrite/rewrite_graph.h"

#include <algorithm>

#include "core/exec/control_flow.h"
#include "core/graph/device_spec.h"
#include "core/graph/proto_convert.h"

namespace tgraph {
namespace {

// Integer constants up to this many elements stand in for themselves (StandIn).
constexpr int64_t kConstantStandInElements = 64;

uint64_t Key(const Operation* op, int index) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(op->id())) << 32) | static_cast<uint32_t>(index);
}

// Ops that are stateless in the registry but whose running is the point (their failure is
// their effect): never removed, merged or folded.
bool KeepForEffect(const Operation& op) {
  const std::string& t = op.type();
  return t == "Assert" || t == "CheckNumerics" || t == "Print" || t == "PrintV2" ||
         t == "Placeholder" || t == "PlaceholderV2" || t == "PlaceholderWithDefault";
}

// The attr name, made once rather than as a temporary string per node.
const std::string& ColocationAttr() {
  static const std::string name = "_class";
  return name;
}

}  // namespace

RewriteGraph::RewriteGraph(const RewriteRequest& request)
    : request_(request), scratch_(std::make_unique<Graph>(&request.graph->registry())) {
  const Graph& graph = *request.graph;
  const std::vector<Operation*>& ordered = *request.ordered;
  index_of_id_.assign(static_cast<size_t>(graph.num_operations()), -1);
  for (const Output& o : request.fed) fed_.insert(Key(o.op, o.index));
  nodes_.resize(ordered.size());
  for (size_t i = 0; i < ordered.size(); ++i) {
    index_of_id_[static_cast<size_t>(ordered[i]->id())] = static_cast<int>(i);
    nodes_[i].op = ordered[i];
  }
  for (const Output& o : request.fed) {
    const int i = index_of_id_[static_cast<size_t>(o.op->id())];
    if (i >= 0) nodes_[static_cast<size_t>(i)].fed_output = true;
  }
  for (const Output& o : request.fetches) {
    const int i = index_of_id_[static_cast<size_t>(o.op->id())];
    if (i >= 0) nodes_[static_cast<size_t>(i)].fetched = true;
  }
  for (const Operation* op : request.targets) {
    const int i = index_of_id_[static_cast<size_t>(op->id())];
    if (i >= 0) nodes_[static_cast<size_t>(i)].fetched = true;
  }
  for (size_t i = 0; i < ordered.size(); ++i) {
    Node& n = nodes_[i];
    n.inputs = n.op->inputs();
    n.eligible = Eligible(n);
    n.colocated = n.op->FindAttr(ColocationAttr()) != nullptr;
    for (int k = 0; k < static_cast<int>(n.inputs.size()); ++k) {
      const int p = Producer(n.inputs[static_cast<size_t>(k)]);
      if (p < 0) continue;
      nodes_[static_cast<size_t>(p)].readers.emplace_back(static_cast<int>(i), k);
      ++nodes_[static_cast<size_t>(p)].num_readers;
    }
    // Control inputs outside the fragment (a fed placeholder's) constrain nothing.
    for (const Operation* c : n.op->control_inputs()) {
      const int p = index_of_id_[static_cast<size_t>(c->id())];
      if (p < 0 || std::find(n.controls.begin(), n.controls.end(), p) != n.controls.end()) continue;
      n.controls.push_back(p);
      nodes_[static_cast<size_t>(p)].control_readers.push_back(static_cast<int>(i));
      ++nodes_[static_cast<size_t>(p)].num_control_readers;
    }
  }
}

bool RewriteGraph::IsFed(const Output& o) const {
  return o.op->graph() == request_.graph && !fed_.empty() && fed_.count(Key(o.op, o.index)) != 0;
}

int RewriteGraph::Producer(const Output& o) const {
  if (o.op->graph() != request_.graph) {
    auto it = index_of_scratch_.find(o.op);
    return it == index_of_scratch_.end() ? -1 : it->second;
  }
  if (IsFed(o)) return -1;
  return index_of_id_[static_cast<size_t>(o.op->id())];
}

int& RewriteGraph::IndexSlot(const Operation* op) {
  if (op->graph() == request_.graph) return index_of_id_[static_cast<size_t>(op->id())];
  return index_of_scratch_[op];
}

bool RewriteGraph::Rewritable(int i, unsigned flags) const {
  const Node& n = node(i);
  if (n.removed || (n.fetched && !(flags & kMayBeFetched)) || n.fed_output || !n.eligible) return false;
  return !n.colocated || (flags & kMayBeColocated);
}

bool RewriteGraph::Eligible(const Node& n) {
  const Operation& op = *n.op;
  if (op.is_stateful() || KeepForEffect(op) || IsControlFlowOp(op)) return false;
  for (const Output& in : n.inputs) {
    // A ref or resource input reads state: two reads at two times may differ.
    if (IsRefType(in.dtype()) || BaseType(in.dtype()) == DT_RESOURCE) return false;
  }
  for (int k = 0; k < op.num_outputs(); ++k) {
    const DataType t = op.output_type(k);
    if (IsRefType(t) || t == DT_RESOURCE || t == DT_VARIANT) return false;
  }
  auto it = cpu_device_.find(op.device());
  if (it == cpu_device_.end()) {
    bool cpu = false;
    if (op.device().empty()) {
      cpu = request_.default_device_type == "CPU";
    } else if (auto spec = DeviceSpec::Parse(op.device()); spec.ok()) {
      cpu = spec->type ? *spec->type == "CPU" : request_.default_device_type == "CPU";
    }
    it = cpu_device_.emplace(op.device(), cpu).first;
  }
  return it->second;
}

const std::vector<std::pair<int, int>>& RewriteGraph::Readers(int i) {
  auto& readers = node(i).readers;
  std::erase_if(readers, [&](const std::pair<int, int>& r) {
    const Node& reader = node(r.first);
    // A reader replaced meanwhile may have fewer inputs (a folded constant has none).
    return reader.removed || static_cast<size_t>(r.second) >= reader.inputs.size() ||
           Producer(reader.inputs[static_cast<size_t>(r.second)]) != i;
  });
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  return readers;
}

const std::vector<int>& RewriteGraph::ControlReaders(int i) {
  auto& waiting = node(i).control_readers;
  std::erase_if(waiting, [&](int w) {
    const Node& n = node(w);
    return n.removed || std::find(n.controls.begin(), n.controls.end(), i) == n.controls.end();
  });
  std::sort(waiting.begin(), waiting.end());
  waiting.erase(std::unique(waiting.begin(), waiting.end()), waiting.end());
  return waiting;
}

void RewriteGraph::SetInput(int reader, int k, const Output& to) {
  Output& in = node(reader).inputs[static_cast<size_t>(k)];
  const int old_producer = Producer(in);
  if (old_producer >= 0) --node(old_producer).num_readers;
  in = to;
  const int p = Producer(to);
  if (p >= 0) {
    node(p).readers.emplace_back(reader, k);
    ++node(p).num_readers;
  }
  changed_ = true;
}

void RewriteGraph::AddControl(int n, int producer) {
  if (producer < 0 || producer == n) return;
  Node& node_n = node(n);
  if (std::find(node_n.controls.begin(), node_n.controls.end(), producer) != node_n.controls.end()) return;
  for (const Output& in : node_n.inputs) {
    if (Producer(in) == producer) return;  // the data edge orders them already
  }
  node_n.controls.push_back(producer);
  node(producer).control_readers.push_back(n);
  ++node(producer).num_control_readers;
  changed_ = true;
}

void RewriteGraph::RemoveControl(int n, int producer) {
  auto& controls = node(n).controls;
  auto it = std::find(controls.begin(), controls.end(), producer);
  if (it == controls.end()) return;
  controls.erase(it);
  --node(producer).num_control_readers;  // its entry in control_readers goes lazily
  changed_ = true;
}

void RewriteGraph::Bypass(int i, int index, const Output& to) {
  const std::vector<int> controls = node(i).controls;
  const std::vector<std::pair<int, int>> readers = Readers(i);
  for (const auto& [reader, k] : readers) {
    if (node(reader).inputs[static_cast<size_t>(k)].index != index) continue;
    SetInput(reader, k, to);
    for (int c : controls) AddControl(reader, c);
  }
  MoveControlReaders(i, Producer(to));
}

void RewriteGraph::MoveControlReaders(int i, int producer) {
  const std::vector<int> controls = node(i).controls;
  const std::vector<int> waiting = ControlReaders(i);
  for (int w : waiting) {
    RemoveControl(w, i);
    AddControl(w, producer);
    for (int c : controls) AddControl(w, c);
  }
}

void RewriteGraph::Replace(int i, Operation* op, std::vector<Output> inputs,
                           const std::vector<int>& controls) {
  const std::vector<std::pair<int, int>> readers = Readers(i);
  Node& n = node(i);
  Operation* old = n.op;
  for (const Output& in : n.inputs) {
    const int p = Producer(in);
    if (p >= 0) --node(p).num_readers;
  }
  for (int c : std::vector<int>(n.controls)) RemoveControl(i, c);
  IndexSlot(old) = -1;
  IndexSlot(op) = i;
  n.op = op;
  n.inputs = std::move(inputs);
  n.eligible = Eligible(n);
  n.colocated = op->FindAttr(ColocationAttr()) != nullptr;
  for (int k = 0; k < static_cast<int>(n.inputs.size()); ++k) {
    const int p = Producer(n.inputs[static_cast<size_t>(k)]);
    if (p < 0) continue;
    node(p).readers.emplace_back(i, k);
    ++node(p).num_readers;
  }
  for (int c : controls) AddControl(i, c);
  // Readers of the old op's outputs read the same outputs of the new one.
  for (const auto& [reader, k] : readers) node(reader).inputs[static_cast<size_t>(k)].op = op;
  changed_ = true;
}

int RewriteGraph::Insert(Operation* op, std::vector<Output> inputs, int anchor, bool after) {
  const int i = size();
  nodes_.emplace_back();
  Node& n = nodes_.back();
  n.op = op;
  n.inputs = std::move(inputs);
  n.anchor = anchor;
  n.eligible = Eligible(n);
  n.colocated = false;
  IndexSlot(op) = i;
  for (int k = 0; k < static_cast<int>(n.inputs.size()); ++k) {
    const int p = Producer(n.inputs[static_cast<size_t>(k)]);
    if (p < 0) continue;
    node(p).readers.emplace_back(i, k);
    ++node(p).num_readers;
  }
  Node& a = node(anchor);
  (after ? a.run_after : a.run_before).push_back(i);
  inserted_ = changed_ = true;
  return i;
}

std::vector<int> RewriteGraph::RunOrder() const {
  std::vector<int> order;
  order.reserve(nodes_.size());
  auto add = [&](int i) {
    if (!node(i).removed) order.push_back(i);
  };
  for (int i = 0; i < size(); ++i) {
    const Node& n = node(i);
    if (n.anchor >= 0) continue;  // placed with its anchor
    for (int b : n.run_before) add(b);
    add(i);
    for (int a : n.run_after) add(a);
  }
  return order;
}

void RewriteGraph::Remove(int i) {
  Node& n = node(i);
  for (const Output& in : n.inputs) {
    const int p = Producer(in);
    if (p >= 0) --node(p).num_readers;
  }
  for (int c : std::vector<int>(n.controls)) RemoveControl(i, c);
  n.removed = true;
  changed_ = true;
}

int RewriteGraph::RemoveDead() {
  int removed = 0;
  // Reverse order: removing a reader may leave its producers, which come earlier, dead.
  // Inserted nodes sit at the end of the list whatever their place in the run order, so
  // with any of them a pass may leave work for another.
  for (bool again = true; again;) {
    again = false;
    for (int i = size() - 1; i >= 0; --i) {
      const Node& n = node(i);
      if (n.removed || n.fetched || n.num_readers != 0 || n.num_control_readers != 0) continue;
      if (n.op->is_stateful() || KeepForEffect(*n.op) || IsControlFlowOp(*n.op)) continue;
      Remove(i);
      ++removed;
      again = inserted_;
    }
  }
  return removed;
}

StatusOr<Output> RewriteGraph::StandIn(const Output& real) {
  const auto key = std::make_pair(static_cast<const Operation*>(real.op), real.index);
  auto it = stand_ins_.find(key);
  if (it != stand_ins_.end()) return it->second;
  NodeSpec spec;
  spec.type = "Placeholder";
  spec.name = StrCat("rewrite/input_", stand_ins_.size());
  spec.exact_name = true;
  spec.apply_context = false;
  spec.infer_attrs_from_inputs = false;
  // A small integer constant stands in as itself, so that shape functions reading values
  // (a Reshape's shape, a Pad's paddings) give the new op the static shape the old one had.
  const Tensor* value = real.op->constant_value();
  if (value != nullptr && (value->dtype() == DT_INT32 || value->dtype() == DT_INT64) &&
      value->NumElements() <= kConstantStandInElements) {
    spec.type = "Const";
    spec.attrs["dtype"].set_type(static_cast<tf::DataType>(value->dtype()));
    TensorToProto(*value, spec.attrs["value"].mutable_tensor());
  } else {
    spec.attrs["dtype"].set_type(static_cast<tf::DataType>(BaseType(real.dtype())));
    ShapeToProto(real.shape(), spec.attrs["shape"].mutable_shape());
  }
  TG_ASSIGN_OR_RETURN(Operation * op, scratch_->AddOperation(std::move(spec)));
  const Output out{op, 0};
  stand_ins_.emplace(key, out);
  return out;
}

StatusOr<Operation*> RewriteGraph::NewOp(NodeSpec spec, const std::vector<Output>& real_inputs) {
  spec.exact_name = true;
  spec.apply_context = false;
  spec.infer_attrs_from_inputs = false;
  spec.inputs.clear();
  for (const Output& real : real_inputs) {
    TG_ASSIGN_OR_RETURN(Output stand_in, StandIn(real));
    spec.inputs.push_back(NodeSpec::InputGroup{{stand_in}, false});
  }
  return scratch_->AddOperation(std::move(spec));
}

StatusOr<Operation*> RewriteGraph::NewConstant(const std::string& name, const Tensor& value,
                                               const std::string& device) {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.device = device;
  spec.attrs["dtype"].set_type(static_cast<tf::DataType>(value.dtype()));
  TensorToProto(value, spec.attrs["value"].mutable_tensor());
  return NewOp(std::move(spec), {});
}

StatusOr<Output> RewriteGraph::InsertConstant(const std::string& name, const Tensor& value, int anchor) {
  if (node(anchor).anchor >= 0) return Internal("an inserted node cannot anchor another");
  TG_ASSIGN_OR_RETURN(Operation * op, NewConstant(name, value, node(anchor).op->device()));
  Insert(op, {}, anchor, /*after=*/false);
  return op->output(0);
}

}  // namespace tgraph
