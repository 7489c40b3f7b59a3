// Making and reading AttrValue protos from core types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/shape.h"
#include "core/base/tensor.h"
#include "tgraph/proto/attr_value.pb.h"
#include "tgraph/proto/op_def.pb.h"

namespace tgraph {

tf::AttrValue AttrOfString(std::string value);
tf::AttrValue AttrOfInt(int64_t value);
tf::AttrValue AttrOfFloat(float value);
tf::AttrValue AttrOfBool(bool value);
tf::AttrValue AttrOfType(DataType value);
tf::AttrValue AttrOfShape(const PartialShape& value);
tf::AttrValue AttrOfTensor(const Tensor& value);
tf::AttrValue AttrOfStringList(const std::vector<std::string>& values);
tf::AttrValue AttrOfIntList(const std::vector<int64_t>& values);
tf::AttrValue AttrOfFloatList(const std::vector<float>& values);
tf::AttrValue AttrOfBoolList(const std::vector<bool>& values);
tf::AttrValue AttrOfTypeList(const std::vector<DataType>& values);
tf::AttrValue AttrOfShapeList(const std::vector<PartialShape>& values);
tf::AttrValue AttrOfTensorList(const std::vector<Tensor>& values);

// TF's type string for a value: "string", "int", "list(float)", ...; an empty list is
// "list(any)"; "placeholder" for a function-body placeholder; "" when no value is set.
// Used in error messages and attr metadata.
std::string AttrValueKind(const tf::AttrValue& value);

// Whether `def` gives attr `name` a default and `value` is that default (compared as
// serialized protos). GraphDef and MetaGraph export use it to leave such attrs out.
bool IsDefaultAttrValue(const tf::OpDef& def, const std::string& name,
                        const tf::AttrValue& value);

}  // namespace tgraph
