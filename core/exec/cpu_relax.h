// The pause of a spin-wait: tells the core this thread only polls (frees the pipeline for a
// sibling hyperthread, saves power). Spins pause rather than sched_yield: on a busy machine
// a yield hands the core to another process for a whole time slice.
#pragma once

namespace tgraph {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace tgraph
