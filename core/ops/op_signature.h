// Checks a node against its OpDef and works out its flat input and output types: shared by
// graph building (inputs grouped per argument, attrs inferred) and GraphDef import (flat
// inputs, attrs given).
#pragma once

#include <string>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/status.h"
#include "core/graph/attr_map.h"
#include "core/graph/operation.h"
#include "tgraph/proto/op_def.pb.h"

namespace tgraph {

struct ResolvedSignature {
  std::vector<DataType> input_types;   // what each flat input must be (_REF for ref args)
  std::vector<DataType> output_types;  // _REF for ref outputs
  std::vector<ArgRange> input_args;    // one per OpDef input_arg
  std::vector<ArgRange> output_args;   // one per OpDef output_arg
};

// Builders: sets type attrs (T), number attrs (N) and type-list attrs from the dtypes of the
// inputs given per argument (`groups[i]` feeds op_def.input_arg(i)). An attr that is already
// set must agree. INVALID_ARGUMENT naming the node and argument on a wrong count, a list
// given for a single input (or the reverse), or conflicting dtypes.
Status InferAttrsFromInputs(const tf::OpDef& op_def, const std::string& node_name,
                            const std::vector<std::vector<DataType>>& groups,
                            const std::vector<bool>& group_is_list, AttrMap* attrs);

// Fills in defaults; rejects unknown attrs (names not in the OpDef and not starting with
// '_'), missing attrs, wrong attr kinds, values outside allowed_values, and values below
// minimums; then computes the flat signature. Errors name the node and the attr.
Status ResolveSignature(const tf::OpDef& op_def, const std::string& node_name, AttrMap* attrs,
                        ResolvedSignature* out);

// Checks actual input dtypes against the resolved signature: a ref input wants the _REF
// dtype; a non-ref input accepts T or T_REF. Errors name the node, input index and dtypes.
Status CheckInputTypes(const tf::OpDef& op_def, const std::string& node_name,
                       const ResolvedSignature& signature, const std::vector<DataType>& actual);

// "list(int)", "type", ... : the AttrValue kind TF's attr type string wants; used to
// validate a value against an AttrDef.
Status ValidateAttrValue(const std::string& node_name, const tf::OpDef::AttrDef& attr_def,
                         const tf::AttrValue& value);

}  // namespace tgraph
