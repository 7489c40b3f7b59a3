// Shared by the GraphDef import/export tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/graph/graphdef_io.h"
#include "core/ops/op_registry.h"
#include "tests/core/graph/graph_test_util.h"

namespace tgraph::testing {

inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
const Status& AsStatus(const StatusOr<T>& s) {
  return s.status();
}

#define TG_EXPECT_OK(expr)                                                  \
  do {                                                                      \
    const auto& tg_s_ = (expr);                                             \
    EXPECT_TRUE(::tgraph::testing::AsStatus(tg_s_).ok())                    \
        << ::tgraph::testing::AsStatus(tg_s_).ToString();                   \
  } while (0)
#define TG_ASSERT_OK(expr)                                                  \
  do {                                                                      \
    const auto& tg_s_ = (expr);                                             \
    ASSERT_TRUE(::tgraph::testing::AsStatus(tg_s_).ok())                    \
        << ::tgraph::testing::AsStatus(tg_s_).ToString();                   \
  } while (0)

// The standard ops plus two test ops that the standard set lacks: one with two outputs and
// one with a list input and list attrs.
inline const OpRegistry* GraphDefTestRegistry() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    Status s = RegisterStandardOps(r);
    if (s.ok()) {
      s = r->Register(OpDefBuilder("TestSplit")
                          .Input("x: T")
                          .Output("a: T")
                          .Output("b: T")
                          .Attr("T: type")
                          .SetShapeFn(shape_fns::UnchangedShape));
    }
    if (s.ok()) {
      s = r->Register(OpDefBuilder("TestConcat")
                          .Input("values: N * T")
                          .Output("output: T")
                          .Attr("N: int >= 1")
                          .Attr("T: type")
                          .Attr("axes: list(int) = []")
                          .Attr("labels: list(string) = []")
                          .Attr("scale: float = 1.0"));
    }
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }();
  return registry;
}

inline std::vector<std::string> OpNames(const Graph& g) {
  std::vector<std::string> names;
  for (const auto& op : g.operations()) names.push_back(op->name());
  return names;
}

inline tf::GraphDef ParseText(const std::string& text) {
  tf::GraphDef def;
  Status s = ParseGraphDefText(text, &def);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << text;
  return def;
}

inline std::string ExportBytes(const Graph& g) {
  std::string bytes;
  Status s = ExportGraphDefBytes(g, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

inline std::string ExportText(const Graph& g) {
  std::string text;
  Status s = ExportGraphDefText(g, &text);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return text;
}

inline ImportOptions NoPrefix() {
  ImportOptions opts;
  opts.prefix = "";
  return opts;
}

inline NodeSpec PlaceholderSpec(DataType dtype, const PartialShape& shape, const std::string& name) {
  NodeSpec spec;
  spec.type = "Placeholder";
  spec.name = name;
  spec.attrs["dtype"] = AttrOfType(dtype);
  spec.attrs["shape"] = AttrOfShape(shape);
  return spec;
}

inline Tensor IntScalar(int32_t v) {
  Tensor t = Tensor::Allocate(DT_INT32, {}).value();
  *t.flat<int32_t>() = v;
  return t;
}

}  // namespace tgraph::testing
