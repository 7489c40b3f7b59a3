// The CPU plugin's string kernels (string_kernels.cc), a library of their own: they have no
// vector code, so every CPU variant links the one copy instead of compiling it per -march.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// StringJoin, StaticRegexFullMatch, RegexFullMatch, ShardedFilename, ShardedFilespec, and the
// string instances of Select and Pack (tf.train.Saver's sharded save uses all of them).
void RegisterStringKernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
