#include "core/ops/op_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace tgraph {
namespace {

// Register() must refuse an inconsistent definition with INVALID_ARGUMENT naming the op.
void ExpectRejected(OpRegistration reg, const std::string& fragment) {
  OpRegistry registry;
  const std::string name = reg.op_def.name();
  Status s = registry.Register(std::move(reg));
  ASSERT_FALSE(s.ok()) << "accepted; expected: " << fragment;
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  EXPECT_EQ(registry.Find(name), nullptr);  // nothing half-registered
}

void ExpectRejected(const OpDefBuilder& builder, const std::string& fragment) {
  OpRegistration reg;
  ASSERT_TRUE(builder.Finalize(&reg).ok());
  ExpectRejected(std::move(reg), fragment);
}

TEST(OpRegistryTest, RegisterFindLookup) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(OpDefBuilder("Foo").Output("y: float")).ok());
  ASSERT_TRUE(registry.Register(OpDefBuilder("Bar")).ok());
  const OpRegistration* foo = registry.Find("Foo");
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(foo->op_def.name(), "Foo");
  EXPECT_EQ(registry.Find("Baz"), nullptr);
  auto found = registry.Lookup("Foo");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found.value(), foo);
  EXPECT_EQ(registry.ListOps(), (std::vector<std::string>{"Bar", "Foo"}));
}

TEST(OpRegistryTest, LookupUnknownNamesNode) {
  OpRegistry registry;
  auto plain = registry.Lookup("Nope");
  EXPECT_EQ(plain.status().code(), Code::kNotFound);
  EXPECT_NE(plain.status().message().find("Op type not registered 'Nope'"), std::string::npos);
  auto with_node = registry.Lookup("Nope", "scope/n");
  EXPECT_EQ(with_node.status().code(), Code::kNotFound);
  EXPECT_NE(with_node.status().message().find("'scope/n'"), std::string::npos)
      << with_node.status().message();
}

TEST(OpRegistryTest, DuplicateIsAlreadyExists) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(OpDefBuilder("Foo")).ok());
  const OpRegistration* first = registry.Find("Foo");
  Status s = registry.Register(OpDefBuilder("Foo").Output("y: int32"));
  EXPECT_EQ(s.code(), Code::kAlreadyExists);
  EXPECT_NE(s.message().find("'Foo'"), std::string::npos);
  EXPECT_EQ(registry.Find("Foo"), first);
  EXPECT_EQ(first->op_def.output_arg_size(), 0);  // the original is untouched
}

TEST(OpRegistryTest, BuilderErrorsPassThrough) {
  OpRegistry registry;
  Status s = registry.Register(OpDefBuilder("Foo").Attr("T: nonsense"));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("T: nonsense"), std::string::npos);
}

TEST(OpRegistryTest, RegistrationsDoNotMove) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(OpDefBuilder("A0")).ok());
  const OpRegistration* a0 = registry.Find("A0");
  for (int i = 1; i < 200; ++i) {
    ASSERT_TRUE(registry.Register(OpDefBuilder(StrCat("A", i))).ok());
  }
  EXPECT_EQ(registry.Find("A0"), a0);
}

TEST(OpRegistryTest, RejectsBadOpNames) {
  for (const char* name : {"", "lower", "Has Space", "Dash-Op", "9Lives"}) {
    OpRegistration reg;
    reg.op_def.set_name(name);
    ExpectRejected(reg, "invalid op name");
  }
  OpRegistry registry;
  EXPECT_TRUE(registry.Register(OpDefBuilder("_Internal")).ok());
  EXPECT_TRUE(registry.Register(OpDefBuilder("Op>Nested_2")).ok());
}

TEST(OpRegistryTest, RejectsArgsReferringToMissingOrWrongAttrs) {
  {
    OpRegistration reg;
    reg.op_def.set_name("Foo");
    auto* arg = reg.op_def.add_input_arg();
    arg->set_name("x");
    arg->set_type_attr("T");
    ExpectRejected(reg, "missing attr 'T'");
  }
  {
    auto reg = OpRegistration();
    reg.op_def.set_name("Foo");
    auto* arg = reg.op_def.add_output_arg();
    arg->set_name("y");
    arg->set_type_list_attr("Tout");
    ExpectRejected(reg, "missing attr 'Tout'");
  }
  OpRegistry registry;
  EXPECT_TRUE(registry
                  .Register(OpDefBuilder("Foo").Attr("N: int >= 0").Attr("T: type")
                                .Input("x: N * T").Output("y: T"))
                  .ok());
}

TEST(OpRegistryTest, ConsistencyChecks) {
  auto base = [] {
    OpRegistration reg;
    reg.op_def.set_name("Foo");
    return reg;
  };
  {
    auto reg = base();
    auto* a = reg.op_def.add_attr();
    a->set_name("T");
    a->set_type("int");
    auto* arg = reg.op_def.add_input_arg();
    arg->set_name("x");
    arg->set_type_attr("T");
    ExpectRejected(reg, "of type int; expected type");
  }
  {
    auto reg = base();
    auto* a = reg.op_def.add_attr();
    a->set_name("N");
    a->set_type("type");
    auto* arg = reg.op_def.add_input_arg();
    arg->set_name("x");
    arg->set_type(tf::DT_FLOAT);
    arg->set_number_attr("N");
    ExpectRejected(reg, "expected int");
  }
  {
    auto reg = base();
    auto* a = reg.op_def.add_attr();
    a->set_name("L");
    a->set_type("type");
    auto* arg = reg.op_def.add_output_arg();
    arg->set_name("y");
    arg->set_type_list_attr("L");
    ExpectRejected(reg, "expected list(type)");
  }
  {
    auto reg = base();  // an arg with no type at all
    reg.op_def.add_input_arg()->set_name("x");
    ExpectRejected(reg, "exactly one of");
  }
  {
    auto reg = base();  // both a fixed type and a type attr
    auto* a = reg.op_def.add_attr();
    a->set_name("T");
    a->set_type("type");
    auto* arg = reg.op_def.add_input_arg();
    arg->set_name("x");
    arg->set_type(tf::DT_FLOAT);
    arg->set_type_attr("T");
    ExpectRejected(reg, "exactly one of");
  }
  {
    auto reg = base();  // a fixed _REF type instead of is_ref
    auto* arg = reg.op_def.add_input_arg();
    arg->set_name("x");
    arg->set_type(tf::DT_FLOAT_REF);
    ExpectRejected(reg, "is_ref");
  }
  {
    auto reg = base();
    auto* a = reg.op_def.add_attr();
    a->set_name("T");
    a->set_type("list(nothing)");
    ExpectRejected(reg, "unknown type 'list(nothing)'");
  }
  // A number attr needs a minimum so negative lengths are caught.
  ExpectRejected(OpDefBuilder("Foo").Attr("N: int").Input("x: N * float"), "needs a minimum");
  ExpectRejected(OpDefBuilder("Foo").Input("x: float").Input("x: int32"), "duplicate input 'x'");
  ExpectRejected(OpDefBuilder("Foo").Output("y: float").Output("y: int32"),
                 "duplicate output 'y'");
  // An input and an output may share a name (they live in separate namespaces).
  OpRegistry registry;
  EXPECT_TRUE(registry.Register(OpDefBuilder("Foo").Input("x: float").Output("x: float")).ok());
}

TEST(OpRegistryTest, DefaultsMustBeValid) {
  ExpectRejected(OpDefBuilder("Foo").Attr("T: {float, int32} = DT_INT64"),
                 "not in the allowed list");
  ExpectRejected(OpDefBuilder("Foo").Attr("p: {'SAME', 'VALID'} = 'FULL'"),
                 "not in the allowed list");
  ExpectRejected(OpDefBuilder("Foo").Attr("n: int >= 2 = 1"), "must be >= 2");
  ExpectRejected(OpDefBuilder("Foo").Attr("l: list(int) >= 2 = [1]"), "at least 2");
  {
    OpRegistration reg;
    reg.op_def.set_name("Foo");
    auto* a = reg.op_def.add_attr();
    a->set_name("T");
    a->set_type("type");
    a->mutable_default_value()->set_i(3);  // an int where a type belongs
    ExpectRejected(reg, "bad default");
  }
  {
    OpRegistration reg;
    reg.op_def.set_name("Foo");
    auto* a = reg.op_def.add_attr();
    a->set_name("n");
    a->set_type("int");
    a->mutable_allowed_values()->mutable_list()->add_i(1);
    ExpectRejected(reg, "cannot have allowed values");
  }
  {
    OpRegistration reg;
    reg.op_def.set_name("Foo");
    auto* a = reg.op_def.add_attr();
    a->set_name("b");
    a->set_type("bool");
    a->set_has_minimum(true);
    ExpectRejected(reg, "cannot have a minimum");
  }
  // Empty lists are valid defaults for any list kind.
  OpRegistry registry;
  EXPECT_TRUE(registry.Register(OpDefBuilder("Foo").Attr("l: list(shape) = []")).ok());
}

TEST(OpRegistryTest, GlobalHasStandardOpsAndIsShared) {
  OpRegistry* global = OpRegistry::Global();
  ASSERT_NE(global, nullptr);
  EXPECT_EQ(OpRegistry::Global(), global);
  for (const char* op : {"Const", "Placeholder", "PlaceholderWithDefault", "Identity", "NoOp",
                         "VariableV2", "Assign", "AssignAdd", "AssignSub", "Add", "AddV2", "Mul",
                         "MatMul"}) {
    EXPECT_NE(global->Find(op), nullptr) << op;
  }
  auto ops = global->ListOps();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

TEST(OpRegistryTest, RegisterStandardOpsIntoPrivateRegistry) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterStandardOps(&registry).ok());
  EXPECT_EQ(registry.ListOps(), OpRegistry::Global()->ListOps());
  // A second time every op is taken.
  EXPECT_EQ(RegisterStandardOps(&registry).code(), Code::kAlreadyExists);
}

TEST(OpRegistryTest, ConcurrentUse) {
  OpRegistry registry;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  std::vector<OpRegistry*> globals(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      globals[static_cast<size_t>(t)] = OpRegistry::Global();
      for (int i = 0; i < 50; ++i) {
        const std::string name = StrCat("T", t, "x", i);
        if (!registry.Register(OpDefBuilder(name)).ok()) ++failures;
        if (registry.Find(name) == nullptr) ++failures;
        registry.ListOps();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(registry.ListOps().size(), 400u);
  for (OpRegistry* g : globals) EXPECT_EQ(g, OpRegistry::Global());
}

}  // namespace
}  // namespace tgraph
