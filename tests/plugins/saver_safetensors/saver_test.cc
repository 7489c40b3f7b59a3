// The safetensors saver through the core: registration, round trips of every dtype, the
// file layout, reading some tensors, list / exists / remove, and the save-side errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/plugin/abi_handles.h"
#include "safetensors_test_util.h"

namespace tgraph::testing {
namespace {

// Every tgraph dtype the format holds, with its safetensors name.
const std::vector<std::pair<DataType, std::string>>& MappedDtypes() {
  static const std::vector<std::pair<DataType, std::string>> kDtypes = {
      {DT_BOOL, "BOOL"},       {DT_UINT8, "U8"},          {DT_INT8, "I8"},
      {DT_INT16, "I16"},       {DT_UINT16, "U16"},        {DT_HALF, "F16"},
      {DT_BFLOAT16, "BF16"},   {DT_INT32, "I32"},         {DT_UINT32, "U32"},
      {DT_FLOAT, "F32"},       {DT_DOUBLE, "F64"},        {DT_INT64, "I64"},
      {DT_UINT64, "U64"},      {DT_COMPLEX64, "C64"},     {DT_FLOAT8_E5M2, "F8_E5M2"},
      {DT_FLOAT8_E4M3FN, "F8_E4M3"}, {DT_FLOAT8_E4M3FNUZ, "F8_E4M3FNUZ"},
      {DT_FLOAT8_E5M2FNUZ, "F8_E5M2FNUZ"},
  };
  return kDtypes;
}

std::vector<std::string> Names(const std::vector<SaverRegistration::Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  return names;
}

TEST(SafetensorsSaver, RegistersFormatAndFileExtension) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  EXPECT_STREQ(saver->def.file_extension, ".safetensors");
  auto chosen = SaverRegistry::Global()->ForPrefix("/ckpt/model.safetensors");
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  EXPECT_EQ(chosen.value(), saver);
  EXPECT_NE(saver->def.list, nullptr);
  EXPECT_NE(saver->def.exists, nullptr);
  EXPECT_NE(saver->def.remove, nullptr);
  EXPECT_EQ(saver->def.merge, nullptr);
}

TEST(SafetensorsSaver, EveryDtypeRoundTrips) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "all.safetensors";
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  int seed = 0;
  for (const auto& [dtype, st_name] : MappedDtypes()) {
    names.push_back(st_name + "_matrix");
    tensors.push_back(PatternTensor(dtype, {3, 5}, ++seed));
    names.push_back(st_name + "_scalar");
    tensors.push_back(PatternTensor(dtype, {}, ++seed));
    names.push_back(st_name + "_empty");
    tensors.push_back(PatternTensor(dtype, {0, 4}, ++seed));
  }
  ASSERT_TRUE(saver->Save(path, names, tensors).ok());

  std::vector<Tensor> restored;
  Status s = saver->Restore(path, names, &restored);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(restored.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_TRUE(SameBytes(restored[i], tensors[i]))
        << names[i] << ": " << restored[i].DebugString() << " vs " << tensors[i].DebugString();
  }

  std::vector<SaverRegistration::Entry> entries;
  s = saver->List(path, &entries);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(Names(entries), sorted);  // name order
  for (const auto& e : entries) {
    const size_t i = static_cast<size_t>(std::find(names.begin(), names.end(), e.name) -
                                         names.begin());
    EXPECT_EQ(e.dtype, tensors[i].dtype()) << e.name;
    EXPECT_EQ(e.dims, tensors[i].dims()) << e.name;
  }
}

TEST(SafetensorsSaver, WritesTheSafetensorsLayout) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "layout.safetensors";
  const Tensor w = PatternTensor(DT_FLOAT, {2, 3}, 1);
  const Tensor b = PatternTensor(DT_INT16, {3}, 2);
  const Tensor d = PatternTensor(DT_DOUBLE, {2}, 3);
  ASSERT_TRUE(saver->Save(path, {"w", "b", "d"}, {w, b, d}).ok());

  const std::string bytes = ReadFile(path);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) {
    n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  ASSERT_LE(8 + n, bytes.size());
  EXPECT_EQ((8 + n) % 8, 0u) << "the data section starts 8-byte aligned";
  EXPECT_EQ(bytes[8], '{');
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  const std::string data = bytes.substr(8 + n);
  // Wider elements first (the reference writer's order): d (8 bytes), w (4), b (2).
  EXPECT_EQ(header["d"]["dtype"], "F64");
  EXPECT_EQ(header["d"]["shape"], nlohmann::json::array({2}));
  EXPECT_EQ(header["d"]["data_offsets"], nlohmann::json::array({0, 16}));
  EXPECT_EQ(header["w"]["dtype"], "F32");
  EXPECT_EQ(header["w"]["shape"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(header["w"]["data_offsets"], nlohmann::json::array({16, 40}));
  EXPECT_EQ(header["b"]["dtype"], "I16");
  EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json::array({40, 46}));
  EXPECT_FALSE(header.contains("__metadata__"));
  ASSERT_EQ(data.size(), 46u);
  EXPECT_EQ(data.substr(0, 16), std::string(static_cast<const char*>(d.data()), 16));
  EXPECT_EQ(data.substr(16, 24), std::string(static_cast<const char*>(w.data()), 24));
  EXPECT_EQ(data.substr(40, 6), std::string(static_cast<const char*>(b.data()), 6));
}

TEST(SafetensorsSaver, RestoresOnlyTheNamedTensors) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "some.safetensors";
  const Tensor a = PatternTensor(DT_FLOAT, {4}, 1);
  const Tensor b = PatternTensor(DT_INT64, {2, 2}, 2);
  ASSERT_TRUE(saver->Save(path, {"a", "b"}, {a, b}).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(saver->Restore(path, {"b"}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(SameBytes(out[0], b));
  // The same name twice is two reads of one tensor.
  ASSERT_TRUE(saver->Restore(path, {"a", "a"}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(SameBytes(out[0], a));
  EXPECT_TRUE(SameBytes(out[1], a));
}

TEST(SafetensorsSaver, SaveReplacesAnOlderCheckpoint) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "m.safetensors";
  ASSERT_TRUE(saver->Save(path, {"old"}, {PatternTensor(DT_FLOAT, {100}, 1)}).ok());
  const Tensor fresh = PatternTensor(DT_FLOAT, {3}, 2);
  ASSERT_TRUE(saver->Save(path, {"new"}, {fresh}).ok());
  std::vector<SaverRegistration::Entry> entries;
  ASSERT_TRUE(saver->List(path, &entries).ok());
  EXPECT_EQ(Names(entries), std::vector<std::string>{"new"});
  EXPECT_EQ(dir.Files(), std::vector<std::string>{"m.safetensors"});
}

TEST(SafetensorsSaver, NoTensorsIsAnEmptyCheckpoint) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "empty.safetensors";
  ASSERT_TRUE(saver->Save(path, {}, {}).ok());
  std::vector<SaverRegistration::Entry> entries;
  ASSERT_TRUE(saver->List(path, &entries).ok());
  EXPECT_TRUE(entries.empty());
}

TEST(SafetensorsSaver, ExistsAndRemove) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "r.safetensors";
  EXPECT_FALSE(saver->Exists(path));
  ASSERT_TRUE(saver->Save(path, {"x"}, {PatternTensor(DT_FLOAT, {1}, 1)}).ok());
  EXPECT_TRUE(saver->Exists(path));
  EXPECT_TRUE(saver->Remove(path).ok());
  EXPECT_FALSE(saver->Exists(path));
  EXPECT_TRUE(saver->Remove(path).ok()) << "removing what is not there is not an error";
  EXPECT_TRUE(dir.Files().empty());
  EXPECT_EQ(saver->Merge({path}, dir / "m.safetensors", false).code(),
            Code::kUnimplemented);
}

TEST(SafetensorsSaver, DtypesTheFormatLacksFailTheSave) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "bad.safetensors";
  for (DataType dtype : {DT_STRING, DT_COMPLEX128, DT_QINT8, DT_INT4, DT_FLOAT4_E2M1FN,
                         DT_FLOAT8_E4M3B11FNUZ}) {
    auto t = Tensor::Allocate(dtype, {2});
    ASSERT_TRUE(t.ok());
    Status s =
        saver->Save(path, {"ok", "the_tensor"}, {PatternTensor(DT_FLOAT, {2}, 1), t.value()});
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find("'the_tensor'"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(DataTypeName(dtype)), std::string::npos) << s.ToString();
  }
  EXPECT_TRUE(dir.Files().empty()) << "a refused save writes nothing";
}

TEST(SafetensorsSaver, BadNamesFailTheSave) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "bad.safetensors";
  const Tensor t = PatternTensor(DT_FLOAT, {2}, 1);
  Status s = saver->Save(path, {"x", "x"}, {t, t});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'x' appears twice"), std::string::npos) << s.ToString();
  s = saver->Save(path, {"__metadata__"}, {t});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("__metadata__"), std::string::npos) << s.ToString();
  s = saver->Save(path, {std::string("bad\xff")}, {t});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s.ToString();
  EXPECT_TRUE(dir.Files().empty());
}

TEST(SafetensorsSaver, MissingFileAndMissingTensorAreNotFound) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "absent.safetensors";
  std::vector<Tensor> out;
  Status s = saver->Restore(path, {"x"}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  std::vector<SaverRegistration::Entry> entries;
  EXPECT_EQ(saver->List(path, &entries).code(), Code::kNotFound);

  ASSERT_TRUE(saver->Save(path, {"x"}, {PatternTensor(DT_FLOAT, {2}, 1)}).ok());
  s = saver->Restore(path, {"x", "nope"}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("'nope'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
}

TEST(SafetensorsSaver, SaveIntoAMissingDirectoryFails) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "no/such/dir/m.safetensors";
  Status s = saver->Save(path, {"x"}, {PatternTensor(DT_FLOAT, {2}, 1)});
  EXPECT_EQ(s.code(), Code::kNotFound) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
}

TEST(SafetensorsSaver, NullArgumentsAreInvalidArgument) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "n.safetensors";
  const TG_SaverDefinition& def = saver->def;
  TG_Status st;
  def.save(def.user_data, path.c_str(), nullptr, nullptr, 1, &st);
  EXPECT_EQ(st.status.code(), Code::kInvalidArgument) << st.status.ToString();
  st.status = Status::OK();
  def.save(def.user_data, nullptr, nullptr, nullptr, 0, &st);
  EXPECT_EQ(st.status.code(), Code::kInvalidArgument) << st.status.ToString();
  ASSERT_TRUE(saver->Save(path, {"x"}, {PatternTensor(DT_FLOAT, {2}, 1)}).ok());
  st.status = Status::OK();
  def.restore(def.user_data, path.c_str(), nullptr, 1, nullptr, &st);
  EXPECT_EQ(st.status.code(), Code::kInvalidArgument) << st.status.ToString();
  st.status = Status::OK();
  def.list(def.user_data, path.c_str(), nullptr, nullptr, &st);
  EXPECT_EQ(st.status.code(), Code::kInvalidArgument) << st.status.ToString();
  EXPECT_EQ(def.exists(def.user_data, nullptr), 0);
}

}  // namespace
}  // namespace tgraph::testing
