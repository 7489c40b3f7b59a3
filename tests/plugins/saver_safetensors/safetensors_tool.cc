// A test program for tests/interop/test_safetensors.py, which checks the safetensors saver
// against the reference `safetensors` package:
//   safetensors_tool write PATH   saves tensors of every dtype the format has through the
//                                 plugin, and prints them;
//   safetensors_tool read PATH    lists and restores every tensor of PATH through the
//                                 plugin, and prints them.
// Printed as one JSON object: {name: {"dtype": tgraph's name, "shape": [...], "hex": bytes}}.
// A failure prints the status on stderr and exits 1.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/tensor.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

std::string Hex(const Tensor& t) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  const auto* bytes = static_cast<const unsigned char*>(t.data());
  for (size_t i = 0; i < t.ByteSize(); ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  return out;
}

nlohmann::json Describe(const std::vector<std::string>& names, const std::vector<Tensor>& ts) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < names.size(); ++i) {
    out[names[i]] = {{"dtype", DataTypeName(ts[i].dtype())},
                     {"shape", ts[i].dims()},
                     {"hex", Hex(ts[i])}};
  }
  return out;
}

Tensor Pattern(DataType dtype, std::vector<int64_t> dims, unsigned seed) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  auto* bytes = static_cast<unsigned char*>(t.data());
  for (size_t i = 0; i < t.ByteSize(); ++i) {
    bytes[i] = static_cast<unsigned char>((i * 37 + seed * 11 + 5) % 253);
    if (dtype == DT_BOOL) bytes[i] &= 1;
  }
  return t;
}

Status Write(const SaverRegistration& saver, const std::string& path) {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  unsigned seed = 0;
  for (DataType dtype : {DT_BOOL, DT_UINT8, DT_INT8, DT_INT16, DT_UINT16, DT_HALF, DT_BFLOAT16,
                         DT_INT32, DT_UINT32, DT_FLOAT, DT_DOUBLE, DT_INT64, DT_UINT64,
                         DT_COMPLEX64, DT_FLOAT8_E5M2, DT_FLOAT8_E4M3FN, DT_FLOAT8_E4M3FNUZ,
                         DT_FLOAT8_E5M2FNUZ}) {
    names.push_back(DataTypeName(dtype));
    tensors.push_back(Pattern(dtype, {2, 3}, ++seed));
  }
  Tensor scalar = Tensor::Allocate(DT_FLOAT, {}).value();
  *scalar.flat<float>() = 3.5f;
  names.push_back("scalar");
  tensors.push_back(scalar);
  names.push_back("empty");
  tensors.push_back(Pattern(DT_INT32, {0, 3}, ++seed));
  names.push_back("scope/large");
  tensors.push_back(Pattern(DT_FLOAT, {512, 1024}, ++seed));
  TG_RETURN_IF_ERROR(saver.Save(path, names, tensors));
  std::cout << Describe(names, tensors).dump() << "\n";
  return Status::OK();
}

Status Read(const SaverRegistration& saver, const std::string& path) {
  std::vector<SaverRegistration::Entry> entries;
  TG_RETURN_IF_ERROR(saver.List(path, &entries));
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  std::vector<Tensor> tensors;
  TG_RETURN_IF_ERROR(saver.Restore(path, names, &tensors));
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].dtype != tensors[i].dtype() || entries[i].dims != tensors[i].dims()) {
      return Internal("list and restore disagree about '", names[i], "'");
    }
  }
  std::cout << Describe(names, tensors).dump() << "\n";
  return Status::OK();
}

Status Run(const std::string& command, const std::string& path) {
  TG_RETURN_IF_ERROR(LoadPlugin(TGRAPH_SAFETENSORS_PLUGIN_PATH).status());
  TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverRegistry::Global()->ForPrefix(path));
  if (saver->format != "safetensors") {
    return InvalidArgument("'", path, "' does not select the safetensors saver");
  }
  if (command == "write") return Write(*saver, path);
  if (command == "read") return Read(*saver, path);
  return InvalidArgument("unknown command '", command, "' (write or read)");
}

}  // namespace
}  // namespace tgraph

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: safetensors_tool write|read PATH.safetensors\n";
    return 2;
  }
  const tgraph::Status s = tgraph::Run(argv[1], argv[2]);
  if (!s.ok()) {
    std::cerr << s.ToString() << "\n";
    return 1;
  }
  return 0;
}
