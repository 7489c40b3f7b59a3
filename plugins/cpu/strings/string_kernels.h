// The CPU plugin's string kernels (string_kernels.cc), a library of their own: they have no
// vector code, so every CPU variant links the one copy instead of compiling it per -march.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// StringJoin, StaticRegexFullMatch, RegexFullMatch, ShardedFilename, ShardedFilespec, and the
// string instances of Select and Pack (tf.train.Saver's sharded save uses all of them).
// Also registers the two families below.
void RegisterStringKernels(tgraph::plugin::Init& init);

// StringToHashBucketFast, StringToNumber, AsString (string_convert_kernels.cc).
void RegisterStringConvertKernels(tgraph::plugin::Init& init);
// StringLength, StringStrip, Substr, ReduceJoin (string_edit_kernels.cc).
void RegisterStringEditKernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
