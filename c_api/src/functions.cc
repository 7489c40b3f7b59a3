// The graph's function library (GraphDef.library) through the C API: how many functions
// it holds, adding a serialized FunctionDefLibrary (so a client can build call, If and
// While nodes by name with TG_SetAttrValueProto), and reading it back.
#include <google/protobuf/io/coded_stream.h>

#include "c_api/src/c_api_internal.h"
#include "core/graph/function_library.h"
#include "core/graph/proto_budget.h"
#include "core/graph/proto_limits.h"

using namespace tgraph;
using namespace tgraph::capi;

extern "C" int TG_GraphNumFunctions(TG_Graph* g) {
  if (g == nullptr) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(g->graph.mutex());
    return g->graph.functions().size();
  });
}

extern "C" void TG_GraphAddFunctionLibrary(TG_Graph* g, const void* proto, size_t proto_len,
                                           TG_Status* status) {
  Guard(status, [&]() -> Status {
    constexpr const char* fn = "TG_GraphAddFunctionLibrary";
    if (g == nullptr) return NullArg(fn, "the graph");
    if (proto == nullptr && proto_len > 0) return NullArg(fn, "proto");
    if (proto_len > static_cast<size_t>(INT_MAX)) {
      return InvalidArgument(fn, ": a FunctionDefLibrary of ", proto_len, " bytes is too large");
    }
    TG_RETURN_IF_ERROR(CheckImportFitsInMemory(*tf::FunctionDefLibrary::descriptor(), proto,
                                               proto_len, StrCat(fn, ": the FunctionDefLibrary")));
    tf::FunctionDefLibrary lib;
    if (!lib.ParseFromArray(proto, static_cast<int>(proto_len))) {
      return InvalidArgument(fn, ": the bytes are not a serialized FunctionDefLibrary");
    }
    GraphLock lock(g->graph.mutex());
    if (g->graph.finalized()) {
      return FailedPrecondition("Graph is finalized and cannot be modified (tried to add functions)");
    }
    return g->graph.functions().Add(lib);
  });
}

extern "C" void TG_GraphGetFunctionLibrary(TG_Graph* g, TG_Buffer* output, TG_Status* status) {
  Guard(status, [&]() -> Status {
    constexpr const char* fn = "TG_GraphGetFunctionLibrary";
    if (g == nullptr) return NullArg(fn, "the graph");
    if (output == nullptr) return NullArg(fn, "output");
    tf::FunctionDefLibrary lib;
    {
      GraphLock lock(g->graph.mutex());
      g->graph.functions().ToProto(&lib);
    }
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      lib.SerializeToCodedStream(&coded);
    }
    return FillBuffer(output, bytes);
  });
}
