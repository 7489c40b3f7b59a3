// Text-format GraphDefs: a graph written the way TensorFlow 1.x writes it imports, and text
// export parses back to the same graph.
#include <gtest/gtest.h>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "tests/core/graph/graphdef_test_util.h"

namespace tgraph {
namespace {

using testing::ExportBytes;
using testing::ExportText;
using testing::NoPrefix;
using testing::ParseText;

// y = x @ W + b with W a variable, as tf.Graph.as_graph_def() prints it in TF 1.x
// (attrs sorted by key, tensor_content as octal escapes, versions at the end).
constexpr char kTensorFlowGraph[] = R"pb(node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: -1
        }
        dim {
          size: 3
        }
      }
    }
  }
}
node {
  name: "W/initial_value"
  op: "Const"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
          dim {
            size: 3
          }
          dim {
            size: 2
          }
        }
        tensor_content: "\000\000\200?\000\000\000@\000\000@@\000\000\200@\000\000\240@\000\000\300@"
      }
    }
  }
}
node {
  name: "W"
  op: "VariableV2"
  attr {
    key: "container"
    value {
      s: ""
    }
  }
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: 3
        }
        dim {
          size: 2
        }
      }
    }
  }
  attr {
    key: "shared_name"
    value {
      s: ""
    }
  }
}
node {
  name: "W/Assign"
  op: "Assign"
  input: "W"
  input: "W/initial_value"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_class"
    value {
      list {
        s: "loc:@W"
      }
    }
  }
  attr {
    key: "use_locking"
    value {
      b: true
    }
  }
  attr {
    key: "validate_shape"
    value {
      b: true
    }
  }
}
node {
  name: "W/read"
  op: "Identity"
  input: "W"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_class"
    value {
      list {
        s: "loc:@W"
      }
    }
  }
}
node {
  name: "b"
  op: "Const"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
          dim {
            size: 2
          }
        }
        float_val: 0.5
      }
    }
  }
}
node {
  name: "MatMul"
  op: "MatMul"
  input: "x"
  input: "W/read"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "transpose_a"
    value {
      b: false
    }
  }
  attr {
    key: "transpose_b"
    value {
      b: false
    }
  }
}
node {
  name: "add"
  op: "Add"
  input: "MatMul"
  input: "b"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
node {
  name: "MatMul_1"
  op: "MatMul"
  input: "W/read"
  input: "x"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "transpose_a"
    value {
      b: true
    }
  }
  attr {
    key: "transpose_b"
    value {
      b: true
    }
  }
}
node {
  name: "init"
  op: "NoOp"
  input: "^W/Assign"
}
versions {
  producer: 27
}
)pb";

TEST(GraphDefTextTest, ImportsATensorFlowWrittenGraph) {
  Graph g;
  ImportResults results;
  ImportOptions opts;
  opts.return_tensors = {{"add", 0}};
  opts.return_operations = {"init"};
  TG_ASSERT_OK(ImportGraphDef(ParseText(kTensorFlowGraph), opts, &g, &results));
  ASSERT_EQ(g.num_operations(), 10);

  Operation* x = g.FindOperation("import/x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->output_type(0), DT_FLOAT);
  EXPECT_EQ(x->output_shape(0), PartialShape({-1, 3}));

  Operation* w0 = g.FindOperation("import/W/initial_value");
  ASSERT_NE(w0, nullptr);
  ASSERT_NE(w0->constant_value(), nullptr);
  const Tensor& w0v = *w0->constant_value();
  ASSERT_EQ(w0v.NumElements(), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w0v.flat<float>()[i], static_cast<float>(i + 1));

  Operation* b = g.FindOperation("import/b");
  ASSERT_NE(b->constant_value(), nullptr);
  EXPECT_EQ(b->constant_value()->flat<float>()[0], 0.5f);
  EXPECT_EQ(b->constant_value()->flat<float>()[1], 0.5f);  // float_val padded, as TF does

  Operation* w = g.FindOperation("import/W");
  EXPECT_EQ(w->output_type(0), DT_FLOAT_REF);
  EXPECT_EQ(w->output_shape(0), PartialShape({3, 2}));
  Operation* assign = g.FindOperation("import/W/Assign");
  EXPECT_EQ(assign->input(0).op, w);
  EXPECT_EQ(assign->ColocationGroups(), (std::vector<std::string>{"loc:@import/W"}));
  EXPECT_EQ(g.FindOperation("import/W/read")->ColocationGroups(),
            (std::vector<std::string>{"loc:@import/W"}));

  Operation* mm = g.FindOperation("import/MatMul");
  EXPECT_EQ(mm->output_shape(0), PartialShape({-1, 2}));
  // Attrs that this TF version did not write get their defaults.
  ASSERT_NE(mm->FindAttr("grad_a"), nullptr);
  EXPECT_FALSE(mm->FindAttr("grad_a")->b());
  EXPECT_EQ(g.FindOperation("import/MatMul_1")->output_shape(0), PartialShape({2, -1}));
  EXPECT_EQ(g.FindOperation("import/add")->output_shape(0), PartialShape({-1, 2}));

  Operation* init = g.FindOperation("import/init");
  ASSERT_EQ(init->control_inputs().size(), 1u);
  EXPECT_EQ(init->control_inputs()[0], assign);

  ASSERT_EQ(results.return_tensors.size(), 1u);
  EXPECT_EQ(results.return_tensors[0].op->name(), "import/add");
  ASSERT_EQ(results.return_operations.size(), 1u);
  EXPECT_EQ(results.return_operations[0], init);

  // And out again: the export parses and re-imports to the same bytes.
  const std::string text = ExportText(g);
  EXPECT_NE(text.find("loc:@import/W"), std::string::npos);
  EXPECT_NE(text.find("producer: " + std::to_string(kGraphDefProducer)), std::string::npos);
  Graph g2;
  TG_ASSERT_OK(ImportGraphDef(ParseText(text), NoPrefix(), &g2, nullptr));
  EXPECT_EQ(ExportBytes(g2), ExportBytes(g));
  EXPECT_EQ(ExportText(g2), text);
}

TEST(GraphDefTextTest, TextExportLooksLikeTensorFlows) {
  Graph g;
  TG_ASSERT_OK(ImportGraphDef(ParseText(kTensorFlowGraph), NoPrefix(), &g, nullptr));
  const std::string text = ExportText(g);
  // Nodes in order, attrs sorted by key (T before _class before use_locking), inputs as
  // TF writes them.
  EXPECT_EQ(text.rfind("node {\n  name: \"x\"\n  op: \"Placeholder\"\n", 0), 0u) << text;
  const size_t assign = text.find("name: \"W/Assign\"");
  ASSERT_NE(assign, std::string::npos);
  const size_t t = text.find("key: \"T\"", assign);
  const size_t cls = text.find("key: \"_class\"", assign);
  const size_t lock = text.find("key: \"use_locking\"", assign);
  EXPECT_LT(t, cls);
  EXPECT_LT(cls, lock);
  EXPECT_NE(text.find("input: \"^W/Assign\""), std::string::npos);
  EXPECT_NE(text.find("versions {\n  producer: " + std::to_string(kGraphDefProducer)), std::string::npos);
}

}  // namespace
}  // namespace tgraph
