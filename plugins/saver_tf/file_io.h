// The bundle's file access is the savers' shared I/O (plugins/saver_io/file_io.h: direct and
// overlapped reads and writes, atomic renames), named here in the bundle's namespace.
#pragma once

#include "bundle_status.h"
#include "saver_io/file_io.h"

namespace tgraph::saver_tf {

using saver_io::CodeForErrno;
using saver_io::DirectIoEnabled;
using saver_io::FileExists;
using saver_io::FileReader;
using saver_io::FileWriter;
using saver_io::FreeAligned;
using saver_io::RemoveFileIfExists;
using saver_io::RenameFile;
using saver_io::SetDirectIoForTesting;
using saver_io::SetReadBlockSizeForTesting;
using saver_io::SetReadFaultHookForTesting;
using saver_io::SetWriteFaultHookForTesting;
using saver_io::SyncDirectoryOf;
using saver_io::TemporaryNameFor;
using saver_io::WriteFaultHook;

}  // namespace tgraph::saver_tf
