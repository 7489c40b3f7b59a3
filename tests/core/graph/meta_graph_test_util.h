// A small graph with variables and every kind of collection, for the MetaGraph tests.
#pragma once

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "core/graph/graph.h"
#include "core/graph/variables.h"
#include "tests/core/graph/graph_test_util.h"
#include "tgraph/proto/saver.pb.h"

namespace tgraph::testing {

// model/W (2x3, trainable), model/step (scalar, not trainable, also in "global_step"),
// model/y = Mul(model/W/read, model/x), a NoOp "train" (train_op), user collections of an
// operation, a tensor, int64s, floats and bytes; everything but "train" under "model".
inline void BuildMetaGraphTestGraph(Graph& g) {
  ASSERT_TRUE(g.PushNameScope("model").ok());
  VariableOptions w_opts;
  w_opts.name = "W";
  Variable* w = g.variables().CreateVariableFromTensor(FloatMatrix(2, 3, 0.5f), w_opts).value();
  VariableOptions step_opts;
  step_opts.name = "step";
  step_opts.trainable = false;
  step_opts.collections = {"global_step"};
  g.variables().CreateVariableFromTensor(ScalarFloat(0), step_opts).value();
  Operation* x = MustAdd(g, ConstSpec(FloatMatrix(2, 3, 2.0f), "x"));
  Operation* y = MustAdd(g, BinarySpec("Mul", w->snapshot, x->output(0), "y"));
  ASSERT_TRUE(g.PopNameScope().ok());
  Operation* train = MustAdd(g, NoOpSpec("train"));
  ASSERT_TRUE(g.AddToCollection("train_op", CollectionItem::OfOperation(train)).ok());
  ASSERT_TRUE(g.AddToCollection("my_ops", CollectionItem::OfOperation(y)).ok());
  ASSERT_TRUE(g.AddToCollection("my_tensors", CollectionItem::OfTensor(y->output(0))).ok());
  ASSERT_TRUE(g.AddToCollection("my_vars", CollectionItem::OfVariable(w)).ok());
  ASSERT_TRUE(g.AddToCollection("ints", CollectionItem::OfInt64(7)).ok());
  ASSERT_TRUE(g.AddToCollection("ints", CollectionItem::OfInt64(-3)).ok());
  ASSERT_TRUE(g.AddToCollection("floats", CollectionItem::OfFloat(0.25f)).ok());
  ASSERT_TRUE(g.AddToCollection("strings", CollectionItem::OfBytes("hello")).ok());
  ASSERT_TRUE(g.AddToCollection("strings", CollectionItem::OfBytes(std::string("\0b", 2))).ok());
}

// A SaverDef naming nodes of that graph (the real Saver builds save/... nodes; any existing
// names will do for export and import).
inline std::string TestSaverDef(const std::string& scope = "model") {
  tf::SaverDef saver;
  saver.set_filename_tensor_name(scope + "/x:0");
  saver.set_save_tensor_name(scope + "/y:0");
  saver.set_restore_op_name(scope + "/W/Assign");
  saver.set_max_to_keep(5);
  saver.set_keep_checkpoint_every_n_hours(10000.0f);
  saver.set_version(tf::SaverDef::V2);
  return saver.SerializeAsString();
}

// Serialized with map entries sorted, so equal messages give equal bytes.
inline std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

}  // namespace tgraph::testing
