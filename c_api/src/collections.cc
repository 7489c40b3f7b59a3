// Collections: add, snapshot (get_collection with a scope filter), keys, clear.
#include "c_api/src/c_api_internal.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

template <typename MakeItem>
void AddItem(const char* fn, TG_Graph* g, const char* key, TG_Status* status,
             MakeItem&& make_item) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (key == nullptr) return NullArg(fn, "key");
    GraphLock lock(g->graph.mutex());
    CollectionItem item;
    TG_RETURN_IF_ERROR(make_item(&item));
    return g->graph.AddToCollection(key, std::move(item));
  });
}

const CollectionItem* ItemAt(const TG_Collection* c, int i) {
  if (c == nullptr || i < 0 || static_cast<size_t>(i) >= c->items.size()) return nullptr;
  return &c->items[static_cast<size_t>(i)];
}

}  // namespace

extern "C" void TG_GraphAddToCollectionOperation(TG_Graph* g, const char* key, TG_Operation* op,
                                                 TG_Status* status) {
  const char* fn = "TG_GraphAddToCollectionOperation";
  AddItem(fn, g, key, status, [&](CollectionItem* item) -> Status {
    if (op == nullptr) return NullArg(fn, "the operation");
    if (ToOp(op)->graph() != &g->graph) {
      return InvalidArgument(fn, ": operation '", ToOp(op)->name(), "' is not in this graph");
    }
    *item = CollectionItem::OfOperation(ToOp(op));
    return Status::OK();
  });
}

extern "C" void TG_GraphAddToCollectionOutput(TG_Graph* g, const char* key, TG_Output output,
                                              TG_Status* status) {
  const char* fn = "TG_GraphAddToCollectionOutput";
  AddItem(fn, g, key, status, [&](CollectionItem* item) -> Status {
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, output));
    *item = CollectionItem::OfTensor(ToOutput(output));
    return Status::OK();
  });
}

extern "C" void TG_GraphAddToCollectionVariable(TG_Graph* g, const char* key, TG_Variable* var,
                                                TG_Status* status) {
  const char* fn = "TG_GraphAddToCollectionVariable";
  AddItem(fn, g, key, status, [&](CollectionItem* item) -> Status {
    if (var == nullptr) return NullArg(fn, "the variable");
    Variable* v = ToVar(var);
    if (v->op == nullptr || v->op->graph() != &g->graph) {
      return InvalidArgument(fn, ": variable '", v->name, "' is not in this graph");
    }
    *item = CollectionItem::OfVariable(v);
    return Status::OK();
  });
}

extern "C" void TG_GraphAddToCollectionBytes(TG_Graph* g, const char* key, const void* data,
                                             size_t len, TG_Status* status) {
  const char* fn = "TG_GraphAddToCollectionBytes";
  AddItem(fn, g, key, status, [&](CollectionItem* item) -> Status {
    if (data == nullptr && len > 0) return NullArg(fn, "data");
    *item = CollectionItem::OfBytes(std::string(static_cast<const char*>(data), data ? len : 0));
    return Status::OK();
  });
}

extern "C" void TG_GraphAddToCollectionInt64(TG_Graph* g, const char* key, int64_t value,
                                             TG_Status* status) {
  AddItem("TG_GraphAddToCollectionInt64", g, key, status, [&](CollectionItem* item) -> Status {
    *item = CollectionItem::OfInt64(value);
    return Status::OK();
  });
}

extern "C" void TG_GraphAddToCollectionFloat(TG_Graph* g, const char* key, float value,
                                             TG_Status* status) {
  AddItem("TG_GraphAddToCollectionFloat", g, key, status, [&](CollectionItem* item) -> Status {
    *item = CollectionItem::OfFloat(value);
    return Status::OK();
  });
}

extern "C" TG_Collection* TG_GraphGetCollection(TG_Graph* g, const char* key, const char* scope,
                                                TG_Status* status) {
  return GuardValue<TG_Collection*>(status, nullptr, [&](TG_Collection** out) -> Status {
    if (g == nullptr) return NullArg("TG_GraphGetCollection", "the graph");
    if (key == nullptr) return NullArg("TG_GraphGetCollection", "key");
    GraphLock lock(g->graph.mutex());
    TG_ASSIGN_OR_RETURN(std::vector<CollectionItem> items,
                        g->graph.collections().Get(key, Str(scope)));
    *out = new TG_Collection{std::move(items)};
    return Status::OK();
  });
}

extern "C" int TG_CollectionSize(const TG_Collection* c) {
  return c == nullptr ? 0 : static_cast<int>(c->items.size());
}

extern "C" TG_CollectionItemType TG_CollectionItemKind(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr) return TG_COLLECTION_ITEM_INVALID;
  switch (item->kind) {
    case CollectionItem::Kind::kOperation: return TG_COLLECTION_ITEM_OPERATION;
    case CollectionItem::Kind::kTensor: return TG_COLLECTION_ITEM_OUTPUT;
    case CollectionItem::Kind::kVariable: return TG_COLLECTION_ITEM_VARIABLE;
    case CollectionItem::Kind::kBytes: return TG_COLLECTION_ITEM_BYTES;
    case CollectionItem::Kind::kInt64: return TG_COLLECTION_ITEM_INT64;
    case CollectionItem::Kind::kFloat: return TG_COLLECTION_ITEM_FLOAT;
  }
  return TG_COLLECTION_ITEM_INVALID;
}

extern "C" TG_Operation* TG_CollectionItemOperation(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr || item->kind != CollectionItem::Kind::kOperation) return nullptr;
  return ToC(item->op);
}

extern "C" TG_Output TG_CollectionItemOutput(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr || item->kind != CollectionItem::Kind::kTensor) return NullOutput();
  return ToC(item->tensor);
}

extern "C" TG_Variable* TG_CollectionItemVariable(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr || item->kind != CollectionItem::Kind::kVariable) return nullptr;
  return ToC(item->variable);
}

extern "C" int TG_CollectionItemBytes(const TG_Collection* c, int i, const void** data,
                                      size_t* len) {
  const CollectionItem* item = ItemAt(c, i);
  bool ok = item != nullptr && item->kind == CollectionItem::Kind::kBytes;
  if (data != nullptr) *data = ok ? item->bytes.data() : nullptr;
  if (len != nullptr) *len = ok ? item->bytes.size() : 0;
  return ok ? 1 : 0;
}

extern "C" int64_t TG_CollectionItemInt64(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr || item->kind != CollectionItem::Kind::kInt64) return 0;
  return item->int64_value;
}

extern "C" float TG_CollectionItemFloat(const TG_Collection* c, int i) {
  const CollectionItem* item = ItemAt(c, i);
  if (item == nullptr || item->kind != CollectionItem::Kind::kFloat) return 0.0f;
  return item->float_value;
}

extern "C" void TG_DeleteCollection(TG_Collection* c) { delete c; }

namespace {
// Refreshes g->key_cache when the set of keys changed; call with the graph lock held.
void RefreshKeys(TG_Graph* g) {
  std::vector<std::string> keys = g->graph.collections().Keys();
  if (keys != g->key_cache) g->key_cache = std::move(keys);
}
}  // namespace

extern "C" int TG_GraphNumCollectionKeys(TG_Graph* g) {
  if (g == nullptr) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(g->graph.mutex());
    RefreshKeys(g);
    return static_cast<int>(g->key_cache.size());
  });
}

extern "C" const char* TG_GraphCollectionKey(TG_Graph* g, int i) {
  if (g == nullptr) return nullptr;
  return NoThrow<const char*>(nullptr, [&]() -> const char* {
    GraphLock lock(g->graph.mutex());
    RefreshKeys(g);
    if (i < 0 || static_cast<size_t>(i) >= g->key_cache.size()) return nullptr;
    return g->key_cache[static_cast<size_t>(i)].c_str();
  });
}

extern "C" void TG_GraphClearCollection(TG_Graph* g, const char* key, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg("TG_GraphClearCollection", "the graph");
    if (key == nullptr) return NullArg("TG_GraphClearCollection", "key");
    GraphLock lock(g->graph.mutex());
    if (g->graph.finalized()) {
      return FailedPrecondition("TG_GraphClearCollection: the graph is finalized (collection '",
                                key, "')");
    }
    g->graph.collections().Clear(key);
    return Status::OK();
  });
}
