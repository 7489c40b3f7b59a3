/* This CPU's fp32 FMA peak, measured: THREADS threads (default 2, the sessions' intra-op
 * threads) each run independent chains of fused multiply-adds on registers, nothing from
 * memory. The widest ISA the CPU has is chosen at run time (AVX-512F, else AVX2+FMA, else
 * SSE2 multiply + add), so one binary, built without -march, measures any x86-64 machine.
 * bench/compare shows GEMM figures as a fraction of this.
 *
 * Usage: peak [THREADS] [SECONDS]   prints "isa NAME" and "peak_gflops G" (best of trials) */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* 12 independent accumulators: more than FMA latency (4 cycles) x FMA ports (2), so the loop
 * is bound by the ports' throughput, not by the chains' latency. */
#define CHAINS 12

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((target("avx512f"))) static float Avx512(long iters) {
  __m512 acc[CHAINS];
  const __m512 b = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  for (int k = 0; k < CHAINS; ++k) acc[k] = _mm512_set1_ps((float)k);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < CHAINS; ++k) acc[k] = _mm512_fmadd_ps(acc[k], b, c);
  }
  float sum = 0;
  for (int k = 0; k < CHAINS; ++k) sum += _mm512_reduce_add_ps(acc[k]);
  return sum;
}

__attribute__((target("avx2,fma"))) static float Avx2(long iters) {
  __m256 acc[CHAINS];
  const __m256 b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  for (int k = 0; k < CHAINS; ++k) acc[k] = _mm256_set1_ps((float)k);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < CHAINS; ++k) acc[k] = _mm256_fmadd_ps(acc[k], b, c);
  }
  float out[8], sum = 0;
  for (int k = 0; k < CHAINS; ++k) {
    _mm256_storeu_ps(out, acc[k]);
    for (int j = 0; j < 8; ++j) sum += out[j];
  }
  return sum;
}

static float Sse2(long iters) { /* multiply and add: two instructions per 4 FMAs' worth */
  __m128 acc[CHAINS];
  const __m128 b = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-6f);
  for (int k = 0; k < CHAINS; ++k) acc[k] = _mm_set1_ps((float)k);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < CHAINS; ++k) acc[k] = _mm_add_ps(_mm_mul_ps(acc[k], b), c);
  }
  float out[4], sum = 0;
  for (int k = 0; k < CHAINS; ++k) {
    _mm_storeu_ps(out, acc[k]);
    for (int j = 0; j < 4; ++j) sum += out[j];
  }
  return sum;
}

static float (*kernel)(long);
static int lanes;
static long iters;
static volatile float sink;

static double ThreadCpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void* Worker(void* arg) {
  const double start = ThreadCpu();
  sink = kernel(iters);
  *(double*)arg = ThreadCpu() - start;
  return NULL;
}

/* Runs `threads` threads of `iters` iterations each; returns the wall seconds and sets
 * *rate to the sum of the threads' iterations per second of their own CPU time. The CPU
 * time leaves out the time a thread waited for a core taken by another process (this
 * machine is shared), yet counts the slowdown of two threads sharing one physical core. */
static double Trial(int threads, double* rate) {
  pthread_t t[64];
  double cpu[64];
  const double start = Now();
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, Worker, &cpu[i]);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  const double wall = Now() - start;
  *rate = 0;
  for (int i = 0; i < threads; ++i) *rate += (double)iters / cpu[i];
  return wall;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  if (threads < 1 || threads > 64) return 2;
  __builtin_cpu_init();
  const char* isa;
  if (__builtin_cpu_supports("avx512f")) kernel = Avx512, lanes = 16, isa = "avx512f";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    kernel = Avx2, lanes = 8, isa = "avx2+fma";
  else kernel = Sse2, lanes = 4, isa = "sse2";
  /* Size a trial to about 20 ms, then keep the best of the trials that fit in `seconds`
   * (the best is the machine's; the others are lost to neighbours). */
  double rate = 0;
  iters = 1 << 16;
  while (Trial(threads, &rate) < 0.02) iters *= 2;
  const double flop_per_iter = 2.0 * CHAINS * lanes;
  double best = 0, best_wall = 0;
  const double end = Now() + seconds;
  while (Now() < end) {
    const double wall = flop_per_iter * (double)iters * threads / Trial(threads, &rate) * 1e-9;
    if (wall > best_wall) best_wall = wall;
    if (rate * flop_per_iter * 1e-9 > best) best = rate * flop_per_iter * 1e-9;
  }
  /* peak_gflops from the threads' CPU time; wall_gflops from the wall clock (lower when
   * other processes took the cores during every trial). */
  printf("isa %s\nthreads %d\npeak_gflops %.1f\nwall_gflops %.1f\n", isa, threads, best,
         best_wall);
  return 0;
}
