// Restore and list check the whole header before trusting it: files as a hostile or broken
// writer could make them fail with DATA_LOSS naming the file (and the tensor), and never
// crash or allocate what the header claims.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "safetensors_test_util.h"

namespace tgraph::testing {
namespace {

struct BadFile {
  const char* what;
  std::string bytes;
  const char* tensor;  // the tensor the message must name, or nullptr
};

std::string Floats(size_t n) { return std::string(4 * n, '\x01'); }

std::vector<BadFile> BadFiles() {
  const std::string ok_entry = R"("x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";
  return {
      {"shorter than the length field", "\x05\0\0", nullptr},
      {"header length 2^63", SafetensorsBytes("{}", "", uint64_t{1} << 63), nullptr},
      {"header length 2^64-2", SafetensorsBytes("{}", "", UINT64_MAX - 1), nullptr},
      {"header longer than the file", SafetensorsBytes("{}", "", 1000), nullptr},
      {"not JSON", SafetensorsBytes("{\"x\": nope}"), nullptr},
      {"cut-off JSON", SafetensorsBytes("{\"x\": {\"dtype\""), nullptr},
      {"empty header", SafetensorsBytes(""), nullptr},
      {"not an object", SafetensorsBytes("[1, 2]"), nullptr},
      {"bytes that are not UTF-8", SafetensorsBytes("{\"\xff\": 1}"), nullptr},
      {"nested too deep", SafetensorsBytes(std::string(5000, '[') + std::string(5000, ']')),
       nullptr},
      {"entry deeper than a header", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [[2]], "data_offsets": [0, 8]}})", Floats(2)),
       nullptr},
      {"duplicate tensor", SafetensorsBytes("{" + ok_entry + ", " + ok_entry + "}", Floats(2)),
       nullptr},
      {"entry not an object", SafetensorsBytes(R"({"x": 3})"), "x"},
      {"no dtype", SafetensorsBytes(R"({"x": {"shape": [2], "data_offsets": [0, 8]}})",
                                    Floats(2)), "x"},
      {"unknown dtype", SafetensorsBytes(
           R"({"x": {"dtype": "Q32", "shape": [2], "data_offsets": [0, 8]}})", Floats(2)), "x"},
      {"dtype not a string", SafetensorsBytes(
           R"({"x": {"dtype": 1, "shape": [2], "data_offsets": [0, 8]}})", Floats(2)), "x"},
      {"negative dim", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", Floats(2)), "x"},
      {"fractional dim", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}})", Floats(2)), "x"},
      {"shape that overflows", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [4611686018427387904, 4611686018427387904],
                "data_offsets": [0, 8]}})", Floats(2)), "x"},
      {"shape larger than its bytes", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [1000000000000], "data_offsets": [0, 8]}})",
           Floats(2)), "x"},
      {"offsets past the data", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", Floats(2)), "x"},
      {"offsets past 2^64", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 18446744073709551624]}})",
           Floats(2)), "x"},
      {"offsets reversed", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", Floats(2)), "x"},
      {"three offsets", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 8]}})", Floats(2)),
       "x"},
      {"offsets not dtype x shape", SafetensorsBytes(
           R"({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", Floats(3)), "x"},
      {"overlapping tensors", SafetensorsBytes(
           R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", Floats(3)), "b"},
      {"F4 elements not filling a byte", SafetensorsBytes(
           R"({"x": {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}})", Floats(1)), "x"},
      {"metadata not an object", SafetensorsBytes(R"({"__metadata__": [1]})"), nullptr},
      {"metadata value not a string", SafetensorsBytes(R"({"__metadata__": {"k": 1}})"),
       nullptr},
  };
}

TEST(SafetensorsHeader, CorruptFilesAreDataLossNamingFileAndTensor) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  int i = 0;
  for (const BadFile& bad : BadFiles()) {
    SCOPED_TRACE(bad.what);
    const std::string path = dir / ("bad" + std::to_string(i++) + ".safetensors");
    WriteFile(path, bad.bytes);
    std::vector<Tensor> out;
    const std::string wanted = bad.tensor != nullptr ? bad.tensor : "x";
    for (const Status& s : {saver->Restore(path, {wanted}, &out),
                            [&] {
                              std::vector<SaverRegistration::Entry> entries;
                              return saver->List(path, &entries);
                            }()}) {
      EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
      EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
      if (bad.tensor != nullptr) {
        EXPECT_NE(s.message().find("tensor '" + std::string(bad.tensor) + "'"),
                  std::string::npos)
            << s.ToString();
      }
    }
  }
}

TEST(SafetensorsHeader, TruncatedDataIsDataLossNamingTheTensor) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "t.safetensors";
  ASSERT_TRUE(saver->Save(path, {"big", "small"},
                          {PatternTensor(DT_FLOAT, {1000}, 1), PatternTensor(DT_INT8, {10}, 2)})
                  .ok());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  std::vector<Tensor> out;
  Status s = saver->Restore(path, {"big"}, &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("tensor 'small'"), std::string::npos)
      << "the whole header is checked, not just the tensors asked for: " << s.ToString();
}

TEST(SafetensorsHeader, AcceptsWhatTheFormatAllows) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "ok.safetensors";
  // Metadata, keys in any order, unknown fields, trailing spaces, a zero-size tensor, a
  // hole in the data, and a tensor of a dtype tgraph lacks (F8_E8M0) beside others.
  std::string data;
  const float values[3] = {1.5f, -2.0f, 3.25f};
  data.append(reinterpret_cast<const char*>(values), sizeof(values));
  data.append(4, '\0');  // hole
  data.append(1, '\x7f');
  WriteFile(path, SafetensorsBytes(
                       R"({"__metadata__": {"format": "pt", "step": "7"},
                           "v": {"shape": [3], "data_offsets": [0, 12], "dtype": "F32",
                                 "extra": "ignored"},
                           "e": {"dtype": "I64", "shape": [0, 5], "data_offsets": [12, 12]},
                           "scale": {"dtype": "F8_E8M0", "shape": [], "data_offsets": [16, 17]}}
                          )",
                       data));
  std::vector<Tensor> out;
  Status s = saver->Restore(path, {"v", "e"}, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DT_FLOAT);
  EXPECT_EQ(out[0].dims(), std::vector<int64_t>{3});
  EXPECT_EQ(out[0].flat<float>()[2], 3.25f);
  EXPECT_EQ(out[1].dtype(), DT_INT64);
  EXPECT_EQ(out[1].dims(), (std::vector<int64_t>{0, 5}));

  // The tensor tgraph has no dtype for: named, with its dtype, and not DATA_LOSS.
  s = saver->Restore(path, {"scale"}, &out);
  EXPECT_EQ(s.code(), Code::kUnimplemented) << s.ToString();
  EXPECT_NE(s.message().find("'scale'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("F8_E8M0"), std::string::npos) << s.ToString();
  std::vector<SaverRegistration::Entry> entries;
  EXPECT_EQ(saver->List(path, &entries).code(), Code::kUnimplemented);
}

}  // namespace
}  // namespace tgraph::testing
