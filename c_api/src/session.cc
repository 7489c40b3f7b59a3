// Sessions: options, TG_NewSession / Close / Delete, devices, run options and metadata, and
// TG_SessionRun over tgraph::Session.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api/src/c_api_internal.h"
#include "core/exec/session.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_SessionOptions {
  SessionOptions options;
};

struct TG_RunOptions {
  RunOptions options;
};

struct TG_RunMetadata {
  RunMetadata metadata;
};

namespace {

// A C int flag as a bool (any non-zero value is true).
bool Flag(int v) { return v != 0; }

const SessionDevice* DeviceAt(const TG_Session* s, int index) {
  if (s == nullptr || index < 0 || static_cast<size_t>(index) >= s->devices.size()) return nullptr;
  return &s->devices[static_cast<size_t>(index)];
}

const NodeStepStats* StatsAt(const TG_RunMetadata* m, int i) {
  if (m == nullptr || i < 0 || static_cast<size_t>(i) >= m->metadata.step_stats.size()) {
    return nullptr;
  }
  return &m->metadata.step_stats[static_cast<size_t>(i)];
}

// A tensor argument of TG_SessionRun: it must be an existing output of the session's graph.
// A bad index is a bad argument of this call, so it reads INVALID_ARGUMENT here (not the
// OUT_OF_RANGE that CheckOutput gives to getters).
Status CheckRunTensor(const Graph* graph, const char* what, int i, TG_Output o) {
  Status st = CheckOutput("TG_SessionRun", graph, o);
  if (st.ok()) return st;
  return Status(Code::kInvalidArgument, StrCat(st.message(), " (", what, " ", i, ")"));
}

Status CheckCount(const char* what, int n, const void* array) {
  if (n < 0) return InvalidArgument("TG_SessionRun: the number of ", what, " is ", n);
  if (n > 0 && array == nullptr) return NullArg("TG_SessionRun", what);
  return Status::OK();
}

struct RunRequest {
  std::vector<std::pair<Output, Tensor>> feeds;
  std::vector<Output> fetches;
  std::vector<Operation*> targets;
  std::vector<Tensor> fetched;
  void Clear() {
    feeds.clear();
    fetches.clear();
    targets.clear();
    fetched.clear();
  }
};

// Each thread reuses one request's vectors, so a repeated run allocates nothing here. A
// nested call on the same thread (none is expected) gets a fresh one.
struct ThreadScratch {
  RunRequest request;
  bool busy = false;
};
// Out of line: in a shared library every thread-local access is a call, and the compiler
// repeats it at each use rather than keep the address.
[[gnu::noinline]] ThreadScratch* ThisThreadScratch() {
  thread_local ThreadScratch scratch;
  return &scratch;
}

class ScratchRequest {
 public:
  ScratchRequest() {
    ThreadScratch& scratch = *ThisThreadScratch();
    if (scratch.busy) {
      req_ = &own_;
    } else {
      scratch.busy = true;
      busy_ = &scratch.busy;
      req_ = &scratch.request;
    }
  }
  ~ScratchRequest() {
    req_->Clear();  // lets go of the caller's fed tensors now
    if (busy_ != nullptr) *busy_ = false;
  }
  ScratchRequest(const ScratchRequest&) = delete;
  ScratchRequest& operator=(const ScratchRequest&) = delete;
  RunRequest& operator*() { return *req_; }

 private:
  RunRequest own_;
  RunRequest* req_ = nullptr;
  bool* busy_ = nullptr;  // the thread's flag, when its request is the one in use
};

Status ReadRequest(const Graph* graph, const TG_Output* inputs, TG_Tensor* const* input_values,
                   int ninputs, const TG_Output* outputs, int noutputs,
                   const TG_Operation* const* target_opers, int ntargets, RunRequest* req) {
  TG_RETURN_IF_ERROR(CheckCount("inputs", ninputs, inputs));
  TG_RETURN_IF_ERROR(CheckCount("input_values", ninputs, input_values));
  TG_RETURN_IF_ERROR(CheckCount("target_opers", ntargets, target_opers));
  req->feeds.reserve(static_cast<size_t>(ninputs));
  for (int i = 0; i < ninputs; ++i) {
    TG_RETURN_IF_ERROR(CheckRunTensor(graph, "input", i, inputs[i]));
    if (input_values[i] == nullptr) {
      return InvalidArgument("TG_SessionRun: the value fed to '", ToOutput(inputs[i]).Name(),
                             "' (input_values[", i, "]) is NULL");
    }
    req->feeds.emplace_back(ToOutput(inputs[i]), input_values[i]->tensor);
  }
  req->fetches.reserve(static_cast<size_t>(noutputs));
  for (int i = 0; i < noutputs; ++i) {
    TG_RETURN_IF_ERROR(CheckRunTensor(graph, "output", i, outputs[i]));
    req->fetches.push_back(ToOutput(outputs[i]));
  }
  req->targets.reserve(static_cast<size_t>(ntargets));
  for (int i = 0; i < ntargets; ++i) {
    const Operation* op = ToOp(target_opers[i]);
    if (op == nullptr) return InvalidArgument("TG_SessionRun: target_opers[", i, "] is NULL");
    if (op->graph() != graph) {
      return InvalidArgument("TG_SessionRun: target operation '", op->name(),
                             "' is not in the session's graph");
    }
    // The core takes targets as mutable operations; it does not change them.
    req->targets.push_back(const_cast<Operation*>(op));
  }
  return Status::OK();
}

}  // namespace

// ---- session options ----

extern "C" TG_SessionOptions* TG_NewSessionOptions(void) {
  return NoThrow<TG_SessionOptions*>(nullptr, [] { return new TG_SessionOptions(); });
}

extern "C" void TG_DeleteSessionOptions(TG_SessionOptions* options) { delete options; }

extern "C" void TG_SetSessionInterOpThreads(TG_SessionOptions* options, int threads) {
  if (options != nullptr) options->options.inter_op_threads = threads;
}

extern "C" void TG_SetSessionIntraOpThreads(TG_SessionOptions* options, int threads) {
  if (options != nullptr) options->options.intra_op_threads = threads;
}

extern "C" void TG_SetSessionAllowSoftPlacement(TG_SessionOptions* options, int allow) {
  if (options != nullptr) options->options.allow_soft_placement = Flag(allow);
}

// The core writes to standard error when SessionOptions::log_sink is empty, which is what
// the header promises; no sink is set here.
extern "C" void TG_SetSessionLogDevicePlacement(TG_SessionOptions* options, int log) {
  if (options != nullptr) options->options.log_device_placement = Flag(log);
}

extern "C" void TG_SetSessionDeterministic(TG_SessionOptions* options, int on) {
  if (options != nullptr) options->options.deterministic = Flag(on);
}

extern "C" void TG_SetSessionDefaultDevice(TG_SessionOptions* options, const char* device) {
  if (options == nullptr) return;
  NoThrow(0, [&] {
    options->options.default_device = Str(device);
    return 0;
  });
}

extern "C" void TG_SetSessionRewrite(TG_SessionOptions* options, const char* name, int on,
                                     TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (options == nullptr) return NullArg("TG_SetSessionRewrite", "the options");
    if (name == nullptr) return NullArg("TG_SetSessionRewrite", "the rewrite's name");
    return options->options.rewrites.Set(name, Flag(on));
  });
}

// ---- sessions ----

extern "C" TG_Session* TG_NewSession(TG_Graph* graph, const TG_SessionOptions* options,
                                     TG_Status* status) {
  return GuardValue<TG_Session*>(status, nullptr, [&](TG_Session** out) -> Status {
    if (graph == nullptr) return NullArg("TG_NewSession", "the graph");
    SessionOptions opts = options == nullptr ? SessionOptions() : options->options;
    auto handle = std::make_unique<TG_Session>();
    TG_ASSIGN_OR_RETURN(handle->session, Session::Create(&graph->graph, std::move(opts)));
    handle->devices = handle->session->devices();
    *out = handle.release();
    return Status::OK();
  });
}

extern "C" void TG_CloseSession(TG_Session* session, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (session == nullptr) return NullArg("TG_CloseSession", "the session");
    return session->session->Close();
  });
}

extern "C" void TG_DeleteSession(TG_Session* session, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (session == nullptr) return Status::OK();
    // Close reports what went wrong while waiting for runs in flight; the session is freed
    // whatever it says, so nothing leaks.
    Status st = session->session->Close();
    delete session;
    return st;
  });
}

extern "C" int TG_SessionNumDevices(const TG_Session* session) {
  return session == nullptr ? 0 : static_cast<int>(session->devices.size());
}

extern "C" const char* TG_SessionDeviceName(const TG_Session* session, int index) {
  const SessionDevice* d = DeviceAt(session, index);
  return d == nullptr ? nullptr : d->name.c_str();
}

extern "C" const char* TG_SessionDeviceType(const TG_Session* session, int index) {
  const SessionDevice* d = DeviceAt(session, index);
  return d == nullptr ? nullptr : d->type.c_str();
}

extern "C" const char* TG_SessionDeviceDescription(const TG_Session* session, int index) {
  const SessionDevice* d = DeviceAt(session, index);
  return d == nullptr ? nullptr : d->description.c_str();
}

// ---- run options and metadata ----

extern "C" TG_RunOptions* TG_NewRunOptions(void) {
  return NoThrow<TG_RunOptions*>(nullptr, [] { return new TG_RunOptions(); });
}

extern "C" void TG_DeleteRunOptions(TG_RunOptions* options) { delete options; }

extern "C" void TG_SetRunOptionsTraceLevel(TG_RunOptions* options, int trace_level) {
  if (options != nullptr) options->options.trace_level = trace_level;
}

extern "C" TG_RunMetadata* TG_NewRunMetadata(void) {
  return NoThrow<TG_RunMetadata*>(nullptr, [] { return new TG_RunMetadata(); });
}

extern "C" void TG_DeleteRunMetadata(TG_RunMetadata* metadata) { delete metadata; }

extern "C" int TG_RunMetadataNumNodes(const TG_RunMetadata* metadata) {
  return metadata == nullptr ? 0 : static_cast<int>(metadata->metadata.step_stats.size());
}

extern "C" const char* TG_RunMetadataNodeName(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? nullptr : s->node_name.c_str();
}

extern "C" const char* TG_RunMetadataNodeOpType(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? nullptr : s->op_type.c_str();
}

extern "C" const char* TG_RunMetadataNodeDevice(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? nullptr : s->device.c_str();
}

extern "C" int64_t TG_RunMetadataNodeStartNs(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? -1 : s->start_ns;
}

extern "C" int64_t TG_RunMetadataNodeDurationNs(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? -1 : s->duration_ns;
}

extern "C" int64_t TG_RunMetadataNodeOutputBytes(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? -1 : s->output_bytes;
}

extern "C" int TG_RunMetadataNodeThreadId(const TG_RunMetadata* metadata, int i) {
  const NodeStepStats* s = StatsAt(metadata, i);
  return s == nullptr ? -1 : s->thread_id;
}

extern "C" int64_t TG_RunMetadataPeakBytes(const TG_RunMetadata* metadata) {
  return metadata == nullptr ? -1 : metadata->metadata.peak_bytes;
}

extern "C" int64_t TG_RunMetadataAllocatedBytes(const TG_RunMetadata* metadata) {
  return metadata == nullptr ? -1 : metadata->metadata.allocated_bytes;
}

// ---- running ----

extern "C" void TG_SessionRun(TG_Session* session, const TG_RunOptions* run_options,
                              const TG_Output* inputs, TG_Tensor* const* input_values,
                              int ninputs, const TG_Output* outputs, TG_Tensor** output_values,
                              int noutputs, const TG_Operation* const* target_opers,
                              int ntargets, TG_RunMetadata* run_metadata, TG_Status* status) {
  // Every output slot reads NULL unless the whole run succeeds.
  if (output_values != nullptr) {
    for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  }
  Guard(status, [&]() -> Status {
    if (session == nullptr) return NullArg("TG_SessionRun", "the session");
    TG_RETURN_IF_ERROR(CheckCount("outputs", noutputs, outputs));
    TG_RETURN_IF_ERROR(CheckCount("output_values", noutputs, output_values));
    // Strings of an earlier run's metadata go now, as the header says, even if this run fails.
    if (run_metadata != nullptr) run_metadata->metadata.step_stats.clear();

    ScratchRequest scratch;
    RunRequest& req = *scratch;
    TG_RETURN_IF_ERROR(ReadRequest(session->session->graph(), inputs, input_values, ninputs, outputs,
                                   noutputs, target_opers, ntargets, &req));
    static const RunOptions kDefaultRunOptions;
    std::vector<Tensor>& fetched = req.fetched;
    TG_RETURN_IF_ERROR(session->session->Run(
        run_options == nullptr ? kDefaultRunOptions : run_options->options, req.feeds,
        req.fetches, req.targets, &fetched,
        run_metadata == nullptr ? nullptr : &run_metadata->metadata));
    if (fetched.size() != req.fetches.size()) {
      return Internal("TG_SessionRun: the session returned ", fetched.size(),
                      " tensor(s) for ", req.fetches.size(), " fetch(es)");
    }
    // A failed allocation takes back the handles already given, so every slot reads NULL.
    for (int i = 0; i < noutputs; ++i) {
      try {
        output_values[i] = new TG_Tensor{std::move(fetched[static_cast<size_t>(i)])};
      } catch (...) {
        for (int j = 0; j < i; ++j) {
          delete output_values[j];
          output_values[j] = nullptr;
        }
        throw;
      }
    }
    return Status::OK();
  });
}
