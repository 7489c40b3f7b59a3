// Large tensor buffers, kept for reuse instead of going back to malloc.
//
// Why: a training step allocates and frees the same large buffers (activations, gradients,
// im2col-sized temporaries) every step, from several threads. Through glibc's malloc, the
// first free of a large mmapped chunk raises the mmap threshold to that chunk's size
// (glibc's dynamic threshold, up to 32 MiB), after which such buffers come from the calling
// thread's arena and stay resident there when freed; with one arena per thread, each keeps
// its own copy of the step's working set. The CNN step of bench/compare rose 59-64 MiB in
// resident size that way against TensorFlow's 41 MiB (a fixed mmap threshold took it to
// 26 MiB, but every step then paid page faults for fresh pages and ran slower).
//
// Here buffers of at least kMinBytes are whole pages mapped directly (glibc never sees
// them), rounded up to a size class (at most 1/8 larger than asked), and a freed buffer
// waits in its class's free list for the next request of that class: in steady state a step
// allocates nothing new, faults no page in, and holds per class at most what was live at
// once. What is cached is bounded by CacheLimit: kBaseCachedBytes plus twice the most bytes
// ever in use at once; a buffer freed beyond it is unmapped at once (so a workload whose
// shapes change every step does not collect buffers of classes it never asks for again).
//
// Buffers whose mapping reaches a 2 MiB huge page start on a 2 MiB boundary and are marked
// for transparent huge pages (madvise MADV_HUGEPAGE; Linux's default THP mode "madvise"
// gives huge pages only to regions so marked). Why: an optimizer update or a product streams
// through several such arrays per step, and with 4 KiB pages each 4 KiB costs a TLB miss,
// which inside a virtual machine is a two-level page walk: on this project's VMs Adam over
// 400k floats takes 30% less time, the CNN step 2-4% less CPU time, the MLP step's
// ApplyAdams 6% less (bench/README.md; oneDNN's products take the same time either way).
// A class just under one huge page is mapped as one when that adds at most a quarter
// (784x512 floats: 1.625 MiB class, 2 MiB mapping); a larger class is mapped as it is, its
// whole 2 MiB pieces huge and its tail in small pages (rounding the tail up would make a
// whole last huge page resident: the CNN's 6.5 MiB activations rose its peak by 4 MiB).
// Mappings larger than kMaxHugeMappingBytes are not marked: a huge page's first fault takes a
// free 2 MiB block, and on this project's VMs (THP defrag "madvise", the page cache full, free
// blocks handed back to the host by the balloon's free page reporting) that cost 3-7 s per GiB
// against 0.6 s in small pages, which a restore of 1 GiB of variables or any first step
// allocating hundreds of MiB paid in full; arrays that large stream from memory, where the
// page walks hide behind the transfers, so the steps lose nothing measurable (bench/README.md).
// TGRAPH_HUGE_PAGES=0 turns huge pages off (mappings as before).
//
// Builds with AddressSanitizer skip the pool (every buffer is malloc'd and freed), so that
// use-after-free of tensor data is still caught; TGRAPH_BUFFER_POOL=0 does the same.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tgraph {

class BufferPool {
 public:
  static constexpr size_t kMinBytes = size_t{128} << 10;
  static constexpr size_t kBaseCachedBytes = size_t{64} << 20;
  static int64_t CacheLimit(int64_t peak_in_use);

  // The process-wide pool, or null when pooling is off (sanitizer builds, the environment).
  static BufferPool* Global();

  // The size class holding `bytes` (a multiple of the page size, >= bytes); 0 for sizes
  // beyond a quarter of the address space.
  static size_t ClassOf(size_t bytes);
  static constexpr size_t kHugePageBytes = size_t{2} << 20;
  // The bytes mapped for a buffer of class `class_size` (see above): the class, or one huge
  // page for a class under one that is at least 3/4 of it. With huge pages off (`huge_pages`
  // false): the class.
  static size_t MappingOf(size_t class_size, bool huge_pages);
  // The largest mapping marked for huge pages (see above).
  static constexpr size_t kMaxHugeMappingBytes = size_t{32} << 20;
  // Whether a mapping of `mapping_size` bytes is marked for huge pages (and so starts on a
  // huge-page boundary): huge pages on, and between one huge page and kMaxHugeMappingBytes.
  static bool MarkedHuge(size_t mapping_size, bool huge_pages);
  // Whether this pool maps with huge pages (TGRAPH_HUGE_PAGES unset or not "0"; Linux).
  bool huge_pages() const;

  // A page-aligned buffer of ClassOf(bytes) bytes: a cached one (contents left over) or a
  // fresh mapping (zeroed); null when the mapping fails. *fresh says which.
  void* Get(size_t bytes, bool* fresh);
  // Gives back a buffer from Get(bytes) (same bytes).
  void Put(void* data, size_t bytes);

  // For tests: bytes mapped in all (in use and cached; MappingOf each buffer's class), and
  // cached now.
  int64_t mapped_bytes() const;
  int64_t cached_bytes() const;
  // The most bytes in use (handed out, not given back) at once since the last Trim.
  int64_t peak_in_use_bytes() const;
  // Unmaps every cached buffer and starts the peak in use afresh.
  void Trim();

 private:
  struct State;
  BufferPool();
  State* state_;
};

}  // namespace tgraph
