// Running a graph file (see graph_run.h).
#include "graph_run.h"

#include "tensor_io.h"

namespace tgraph::tool {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void AddRunSpecOptions(CLI::App* command, RunSpec* spec) {
  command->add_option("GRAPH", spec->graph_file, "A GraphDef or MetaGraphDef, binary or text")
      ->required();
  command
      ->add_option("--feed", spec->feeds,
                   "NAME=VALUE: feed tensor NAME a literal (3, [1,2], [[1,2],[3,4]], strings "
                   "for string tensors) of its dtype, or the contents of VALUE if it ends in "
                   ".npy (repeatable)")
      ->type_name("NAME=VALUE");
  command
      ->add_option("--fetch", spec->fetches, "A tensor to fetch and print: op or op:k (repeatable)")
      ->type_name("TENSOR");
  command->add_option("--target", spec->targets, "An operation to run for its effects (repeatable)")
      ->type_name("OP");
  command->add_option("--restore", spec->restore,
                      "Restore the variables from this checkpoint prefix first, by running the "
                      "restore op of GRAPH's SaverDef (GRAPH must be a MetaGraph, e.g. the "
                      "checkpoint's .meta)")
      ->type_name("PREFIX");
  command->add_option("--device", spec->device,
                      "Where ops without a device request run, e.g. /device:GPU:0");
  command
      ->add_option("--inter-op-threads", spec->inter_op_threads,
                   "Threads running independent ops (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--intra-op-threads", spec->intra_op_threads,
                   "Threads inside one op's kernel (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  AddPluginOptions(command, &spec->plugins);
}

GraphRun::GraphRun(const RunSpec& spec) : spec_(spec) {
  if (spec_.fetches.empty() && spec_.targets.empty()) {
    throw CLI::ValidationError("--fetch", "nothing to run: give at least one --fetch or --target");
  }
  LoadPlugins(spec_.plugins);
  if (spec_.restore.empty()) {
    graph_ = ImportGraphFile(spec_.graph_file);
  } else {
    // The MetaGraph as a whole: its SaverDef names the restore op.
    graph_.reset(TG_NewGraph());
    saver_def_.reset(TG_NewBuffer());
    StatusPtr status = NewStatus();
    TG_ImportMetaGraphFile(graph_.get(), spec_.graph_file.c_str(), nullptr, saver_def_.get(),
                           status.get());
    Check(status.get(), spec_.graph_file + ": cannot import the MetaGraph");
    if (saver_def_->length == 0) {
      throw ToolError("--restore " + spec_.restore + ": " + spec_.graph_file +
                      " has no SaverDef to restore with");
    }
  }
  ResolveFeeds();
  ResolveFetchesAndTargets();
  StatusPtr status = NewStatus();
  SessionOptionsPtr options(TG_NewSessionOptions());
  TG_SetSessionInterOpThreads(options.get(), spec_.inter_op_threads);
  TG_SetSessionIntraOpThreads(options.get(), spec_.intra_op_threads);
  if (!spec_.device.empty()) TG_SetSessionDefaultDevice(options.get(), spec_.device.c_str());
  session_ = TG_NewSession(graph_.get(), options.get(), status.get());
  Check(status.get(), spec_.graph_file + ": cannot open a session");
  if (!spec_.restore.empty()) Restore();
}

void GraphRun::Restore() {
  StatusPtr status = NewStatus();
  std::unique_ptr<TG_Saver, Deleter<TG_DeleteSaver>> saver(
      TG_NewSaverFromDef(graph_.get(), saver_def_->data, saver_def_->length, status.get()));
  Check(status.get(), spec_.graph_file + ": its SaverDef");
  TG_SaverRestore(saver.get(), session_, spec_.restore.c_str(), status.get());
  Check(status.get(), "--restore " + spec_.restore);
}

GraphRun::~GraphRun() {
  StatusPtr status(TG_NewStatus());
  TG_DeleteSession(session_, status.get());
}

void GraphRun::ResolveFeeds() {
  StatusPtr status = NewStatus();
  for (const std::string& feed : spec_.feeds) {
    size_t equals = feed.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw CLI::ValidationError("--feed", "'" + feed + "' is not NAME=VALUE");
    }
    std::string name = feed.substr(0, equals), value = feed.substr(equals + 1);
    TG_Output output = TG_GraphOutputByName(graph_.get(), name.c_str(), status.get());
    Check(status.get(), "--feed " + name + " (" + spec_.graph_file + ")");
    TG_Tensor* tensor =
        EndsWith(value, ".npy")
            ? ReadNpy(value, status.get())
            : ParseTensorLiteral(value, TG_OperationOutputType(output), status.get());
    TensorPtr owned(tensor);
    Check(status.get(), "--feed " + name);
    feed_outputs_.push_back(output);
    feed_values_.push_back(std::move(owned));
  }
}

void GraphRun::ResolveFetchesAndTargets() {
  StatusPtr status = NewStatus();
  for (const std::string& name : spec_.fetches) {
    fetch_outputs_.push_back(TG_GraphOutputByName(graph_.get(), name.c_str(), status.get()));
    Check(status.get(), "--fetch " + name + " (" + spec_.graph_file + ")");
  }
  for (const std::string& name : spec_.targets) {
    TG_Operation* op = TG_GraphOperationByName(graph_.get(), name.c_str());
    if (op == nullptr) {
      throw ToolError("--target " + name + ": no operation of that name in " + spec_.graph_file);
    }
    targets_.push_back(op);
  }
}

std::vector<TensorPtr> GraphRun::Step(const TG_RunOptions* run_options, TG_RunMetadata* metadata) {
  std::vector<TG_Tensor*> feeds;
  for (const TensorPtr& t : feed_values_) feeds.push_back(t.get());
  std::vector<TG_Tensor*> outputs(fetch_outputs_.size(), nullptr);
  StatusPtr status = NewStatus();
  TG_SessionRun(session_, run_options, feed_outputs_.data(), feeds.data(),
                static_cast<int>(feeds.size()), fetch_outputs_.data(), outputs.data(),
                static_cast<int>(outputs.size()), targets_.data(),
                static_cast<int>(targets_.size()), metadata, status.get());
  std::vector<TensorPtr> owned;
  for (TG_Tensor* t : outputs) owned.emplace_back(t);
  Check(status.get(), spec_.graph_file + ": the run failed");
  return owned;
}

}  // namespace tgraph::tool
