// Placeholder until the implementation lands: every call reports TG_UNIMPLEMENTED.
#include "tensor_io.h"

namespace tgraph::tool {

TG_Tensor* ReadNpy(const std::string& path, TG_Status* status) {
  TG_SetStatus(status, TG_UNIMPLEMENTED, ("ReadNpy not implemented yet: " + path).c_str());
  return nullptr;
}
bool WriteNpy(const std::string& path, const TG_Tensor*, TG_Status* status) {
  TG_SetStatus(status, TG_UNIMPLEMENTED, ("WriteNpy not implemented yet: " + path).c_str());
  return false;
}
TG_Tensor* ParseTensorLiteral(const std::string&, TG_DataType, TG_Status* status) {
  TG_SetStatus(status, TG_UNIMPLEMENTED, "ParseTensorLiteral not implemented yet");
  return nullptr;
}
std::string FormatTensor(const TG_Tensor*) { return "<FormatTensor not implemented yet>"; }

}  // namespace tgraph::tool
