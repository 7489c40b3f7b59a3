// The core Saver's checkpoint rotation on a clock the test controls:
// keep_checkpoint_every_n_hours keeps one checkpoint per period on disk beside the last
// max_to_keep, and the state file tracks only the last max_to_keep.
#include "core/checkpoint/saver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/exec/session.h"
#include "core/graph/variables.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph {
namespace {

namespace fs = std::filesystem;

void LoadPlugins() {
  static Status cpu = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  static Status saver = LoadPlugin(TGRAPH_SAVER_TF_PLUGIN_PATH).status();
  ASSERT_TRUE(cpu.ok()) << cpu.ToString();
  ASSERT_TRUE(saver.ok()) << saver.ToString();
}

TEST(SaverTest, KeepEveryNHoursPreservesOneCheckpointPerPeriod) {
  LoadPlugins();
  const fs::path dir = fs::temp_directory_path() / ("tgraph_core_saver_" + std::to_string(getpid()));
  fs::create_directories(dir);
  Graph g;
  Tensor init = Tensor::Allocate(DT_FLOAT, {}).value();
  *init.flat<float>() = 1.0f;
  VariableOptions var_options;
  var_options.name = "v";
  Variable* v = g.variables().CreateVariableFromTensor(init, var_options).value();
  SaverBuildOptions options;
  options.max_to_keep = 2;
  options.keep_checkpoint_every_n_hours = 1.0f;
  auto saver = Saver::Create(g, {{"v", v}}, options);
  ASSERT_TRUE(saver.ok()) << saver.status().ToString();
  double now = 1000;
  saver.value()->SetClockForTesting([&now] { return now; });  // first keep due at 4600
  auto session = Session::Create(&g, {}).value();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());

  const std::vector<double> times = {1000, 2000, 5000, 6000, 7000, 8000, 9000};
  for (size_t i = 0; i < times.size(); ++i) {
    now = times[i];
    auto path = saver.value()->Save(*session, (dir / "m").string(), static_cast<int64_t>(i + 1));
    ASSERT_TRUE(path.ok()) << path.status().ToString();
  }
  // m-3 (saved at 5000, past the first hour) stays when it leaves the last two; the next
  // keep is due an hour after the first was (8200), so m-4 and m-5 go; m-6 and m-7 are the
  // last two.
  for (int step = 1; step <= 7; ++step) {
    const bool kept = step == 3 || step >= 6;
    EXPECT_EQ(fs::exists(dir / ("m-" + std::to_string(step) + ".index")), kept) << step;
  }
  const auto& last = saver.value()->last_checkpoints();
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].second, 8000);
  EXPECT_EQ(last[1].second, 9000);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tgraph
