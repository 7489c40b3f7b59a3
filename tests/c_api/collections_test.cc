// Collections: any key, every item kind, scope filters, keys, clear, standard keys.
#include <cstring>
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class CollectionsTest : public CApiTest {
 protected:
  TG_Collection* Get(const char* key, const char* scope = nullptr) {
    TG_Collection* c = TG_GraphGetCollection(g_, key, scope, s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    return c;
  }
};

TEST_F(CollectionsTest, StandardKeysAreTensorFlowsValues) {
  EXPECT_STREQ(TG_GLOBAL_VARIABLES, "variables");
  EXPECT_STREQ(TG_TRAINABLE_VARIABLES, "trainable_variables");
  EXPECT_STREQ(TG_LOCAL_VARIABLES, "local_variables");
  EXPECT_STREQ(TG_MODEL_VARIABLES, "model_variables");
  EXPECT_STREQ(TG_UPDATE_OPS, "update_ops");
  EXPECT_STREQ(TG_SUMMARIES, "summaries");
  EXPECT_STREQ(TG_TRAIN_OP, "train_op");
  EXPECT_STREQ(TG_LOSSES, "losses");
  EXPECT_STREQ(TG_REGULARIZATION_LOSSES, "regularization_losses");
  EXPECT_STREQ(TG_GLOBAL_STEP, "global_step");
}

TEST_F(CollectionsTest, EveryItemKindInInsertionOrder) {
  TG_Operation* op = NoOp("op");
  TG_Operation* c = ScalarConst(1, "c");
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, t, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);

  const char* key = "my stuff";  // any string
  TG_GraphAddToCollectionOperation(g_, key, op, s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionOutput(g_, key, Out(c), s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionVariable(g_, key, v, s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionBytes(g_, key, "a\0b", 3, s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionInt64(g_, key, -7, s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionFloat(g_, key, 0.25f, s_);
  TG_ASSERT_OK(s_);
  TG_GraphAddToCollectionOperation(g_, key, op, s_);  // duplicates are kept
  TG_ASSERT_OK(s_);

  TG_Collection* coll = Get(key);
  ASSERT_EQ(TG_CollectionSize(coll), 7);
  EXPECT_EQ(TG_CollectionItemKind(coll, 0), TG_COLLECTION_ITEM_OPERATION);
  EXPECT_EQ(TG_CollectionItemOperation(coll, 0), op);
  EXPECT_EQ(TG_CollectionItemKind(coll, 1), TG_COLLECTION_ITEM_OUTPUT);
  EXPECT_EQ(TG_CollectionItemOutput(coll, 1).oper, c);
  EXPECT_EQ(TG_CollectionItemOutput(coll, 1).index, 0);
  EXPECT_EQ(TG_CollectionItemKind(coll, 2), TG_COLLECTION_ITEM_VARIABLE);
  EXPECT_EQ(TG_CollectionItemVariable(coll, 2), v);
  EXPECT_EQ(TG_CollectionItemKind(coll, 3), TG_COLLECTION_ITEM_BYTES);
  const void* data = nullptr;
  size_t len = 0;
  EXPECT_EQ(TG_CollectionItemBytes(coll, 3, &data, &len), 1);
  EXPECT_EQ(std::string(static_cast<const char*>(data), len), std::string("a\0b", 3));
  EXPECT_EQ(TG_CollectionItemKind(coll, 4), TG_COLLECTION_ITEM_INT64);
  EXPECT_EQ(TG_CollectionItemInt64(coll, 4), -7);
  EXPECT_EQ(TG_CollectionItemKind(coll, 5), TG_COLLECTION_ITEM_FLOAT);
  EXPECT_EQ(TG_CollectionItemFloat(coll, 5), 0.25f);
  EXPECT_EQ(TG_CollectionItemOperation(coll, 6), op);

  // Wrong kind or index: neutral values.
  EXPECT_EQ(TG_CollectionItemOperation(coll, 1), nullptr);
  EXPECT_EQ(TG_CollectionItemOutput(coll, 0).oper, nullptr);
  EXPECT_EQ(TG_CollectionItemVariable(coll, 0), nullptr);
  EXPECT_EQ(TG_CollectionItemBytes(coll, 0, &data, &len), 0);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(len, 0u);
  EXPECT_EQ(TG_CollectionItemInt64(coll, 0), 0);
  EXPECT_EQ(TG_CollectionItemFloat(coll, 0), 0.0f);
  EXPECT_EQ(TG_CollectionItemKind(coll, 7), TG_COLLECTION_ITEM_INVALID);
  EXPECT_EQ(TG_CollectionItemKind(coll, -1), TG_COLLECTION_ITEM_INVALID);
  EXPECT_EQ(TG_CollectionItemKind(nullptr, 0), TG_COLLECTION_ITEM_INVALID);
  EXPECT_EQ(TG_CollectionSize(nullptr), 0);
  TG_DeleteCollection(coll);
  TG_DeleteCollection(nullptr);
}

TEST_F(CollectionsTest, SnapshotDoesNotChangeLater) {
  TG_Operation* a = NoOp("a");
  TG_GraphAddToCollectionOperation(g_, TG_UPDATE_OPS, a, s_);
  TG_Collection* snap = Get(TG_UPDATE_OPS);
  TG_GraphAddToCollectionOperation(g_, TG_UPDATE_OPS, a, s_);
  EXPECT_EQ(TG_CollectionSize(snap), 1);
  TG_Collection* now = Get(TG_UPDATE_OPS);
  EXPECT_EQ(TG_CollectionSize(now), 2);
  TG_DeleteCollection(snap);
  TG_DeleteCollection(now);
}

TEST_F(CollectionsTest, MissingKeyIsEmpty) {
  TG_Collection* c = Get("never_used");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(TG_CollectionSize(c), 0);
  TG_DeleteCollection(c);
}

TEST_F(CollectionsTest, ScopeFilterMatchesNamesAtTheStart) {
  TG_GraphPushNameScope(g_, "tower_0", s_);
  TG_Operation* l0 = ScalarConst(1, "loss");
  TG_GraphPopNameScope(g_, s_);
  TG_GraphPushNameScope(g_, "tower_1", s_);
  TG_Operation* l1 = ScalarConst(2, "loss");
  TG_GraphPopNameScope(g_, s_);
  TG_Operation* top = ScalarConst(3, "total");
  for (TG_Operation* op : {l0, l1, top}) {
    TG_GraphAddToCollectionOutput(g_, TG_LOSSES, Out(op), s_);
    TG_ASSERT_OK(s_);
  }
  TG_GraphAddToCollectionFloat(g_, TG_LOSSES, 1.0f, s_);

  TG_Collection* all = Get(TG_LOSSES);
  EXPECT_EQ(TG_CollectionSize(all), 4);
  TG_DeleteCollection(all);
  TG_Collection* all2 = Get(TG_LOSSES, "");
  EXPECT_EQ(TG_CollectionSize(all2), 4);
  TG_DeleteCollection(all2);

  TG_Collection* t1 = Get(TG_LOSSES, "tower_1");
  ASSERT_EQ(TG_CollectionSize(t1), 1);
  EXPECT_EQ(TG_CollectionItemOutput(t1, 0).oper, l1);
  TG_DeleteCollection(t1);

  TG_Collection* towers = Get(TG_LOSSES, "tower_[0-9]");  // a regular expression
  EXPECT_EQ(TG_CollectionSize(towers), 2);
  TG_DeleteCollection(towers);

  TG_Collection* mid = Get(TG_LOSSES, "loss");  // must match at the start
  EXPECT_EQ(TG_CollectionSize(mid), 0);
  TG_DeleteCollection(mid);

  EXPECT_EQ(TG_GraphGetCollection(g_, TG_LOSSES, "tower_[", s_), nullptr);
  EXPECT_NE(code(), TG_OK);
}

TEST_F(CollectionsTest, VariablesFilteredByScope) {
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  TG_GraphPushNameScope(g_, "enc", s_);
  opts.name = "w";
  TG_Variable* enc_w = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_GraphPopNameScope(g_, s_);
  TG_GraphPushNameScope(g_, "dec", s_);
  TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_GraphPopNameScope(g_, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);
  TG_Collection* enc = Get(TG_TRAINABLE_VARIABLES, "enc");
  ASSERT_EQ(TG_CollectionSize(enc), 1);
  EXPECT_EQ(TG_CollectionItemVariable(enc, 0), enc_w);
  TG_DeleteCollection(enc);
}

TEST_F(CollectionsTest, KeysAreSortedAndStable) {
  TG_Operation* a = NoOp("a");
  TG_GraphAddToCollectionOperation(g_, "zeta", a, s_);
  TG_GraphAddToCollectionOperation(g_, "alpha", a, s_);
  TG_ASSERT_OK(s_);
  ASSERT_EQ(TG_GraphNumCollectionKeys(g_), 2);
  const char* k0 = TG_GraphCollectionKey(g_, 0);
  const char* k1 = TG_GraphCollectionKey(g_, 1);
  EXPECT_STREQ(k0, "alpha");
  EXPECT_STREQ(k1, "zeta");
  // Pointers stay valid while the set of keys does not change.
  TG_GraphAddToCollectionOperation(g_, "zeta", a, s_);
  EXPECT_EQ(TG_GraphCollectionKey(g_, 0), k0);
  EXPECT_STREQ(k0, "alpha");
  EXPECT_EQ(TG_GraphCollectionKey(g_, 2), nullptr);
  EXPECT_EQ(TG_GraphCollectionKey(g_, -1), nullptr);
  EXPECT_EQ(TG_GraphNumCollectionKeys(nullptr), 0);
  EXPECT_EQ(TG_GraphCollectionKey(nullptr, 0), nullptr);

  // Variables populate the standard keys.
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_GraphNewVariableFromTensor(g_, t, nullptr, s_);
  TG_DeleteTensor(t);
  std::vector<std::string> keys;
  for (int i = 0; i < TG_GraphNumCollectionKeys(g_); ++i) keys.push_back(TG_GraphCollectionKey(g_, i));
  EXPECT_EQ(keys, (std::vector<std::string>{"alpha", "trainable_variables", "variables", "zeta"}));
}

TEST_F(CollectionsTest, ClearEmptiesACollection) {
  TG_Operation* a = NoOp("a");
  TG_GraphAddToCollectionOperation(g_, TG_TRAIN_OP, a, s_);
  TG_GraphClearCollection(g_, TG_TRAIN_OP, s_);
  TG_ASSERT_OK(s_);
  TG_Collection* c = Get(TG_TRAIN_OP);
  EXPECT_EQ(TG_CollectionSize(c), 0);
  TG_DeleteCollection(c);
  TG_GraphClearCollection(g_, "never_used", s_);
  TG_EXPECT_OK(s_);
}

TEST_F(CollectionsTest, BadArguments) {
  TG_Operation* a = NoOp("a");
  TG_GraphAddToCollectionOperation(g_, nullptr, a, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionOperation(g_, "k", nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionOperation(nullptr, "k", a, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionOutput(g_, "k", Out(a, 0), s_);  // NoOp has no outputs
  EXPECT_EQ(code(), TG_OUT_OF_RANGE);
  EXPECT_NE(msg().find("'a'"), std::string::npos) << msg();
  TG_GraphAddToCollectionVariable(g_, "k", nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionBytes(g_, "k", nullptr, 4, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionBytes(g_, "k", nullptr, 0, s_);  // empty bytes are fine
  TG_EXPECT_OK(s_);
  TG_Graph* other = TG_NewGraph();
  TG_Operation* foreign = ScalarConstIn(other, 1, "foreign");
  TG_GraphAddToCollectionOperation(g_, "k", foreign, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddToCollectionOutput(g_, "k", Out(foreign), s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteGraph(other);
  EXPECT_EQ(TG_GraphGetCollection(g_, nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphGetCollection(nullptr, "k", nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphClearCollection(g_, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

}  // namespace
