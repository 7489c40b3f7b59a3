/* One side of bench/compare: imports a GraphDef, runs its init ops once, then runs it (feeds
 * from raw files, fetches, targets) and prints what it measured. The same source is compiled
 * twice, against TensorFlow's C API (-DRUNNER_TF, tensorflow/c/c_api.h from the wheel) and
 * against tgraph's (tgraph/c_api.h): the two C APIs have the same shape, so one file with a
 * prefix macro guarantees that both sides do exactly the same calls. The two libraries are
 * never loaded into one process (both carry protobuf).
 *
 * Usage: runner GRAPH.pb [options]
 *   --threads N              intra-op and inter-op threads of the session (default 2)
 *   --amp 1                  automatic mixed precision (bfloat16): TF's RewriterConfig
 *                            auto_mixed_precision_onednn_bfloat16 ON, tgraph's
 *                            "auto_mixed_precision" rewrite
 *   --init OP                run OP once after creating the session (repeatable)
 *   --feed T:I=DTYPE:SHAPE:FILE  feed tensor T:I from FILE's raw bytes; DTYPE float, int32,
 *                            int64 or bfloat16; SHAPE "scalar" or dims joined by ',' (repeatable)
 *   --fetch T:I              fetch this output every run (repeatable)
 *   --target OP              run OP every run (repeatable)
 *   --check K --dump DIR     instead of timing: K runs, each fetch of run r written to
 *                            DIR/r<r>_f<f>.bin (raw bytes); one "dump" line per file
 *   --warmup S               seconds of untimed runs after the first (default 0.2)
 *   --time S                 seconds of timed runs (default 1)
 *   --serve 1                instead of --time: after the warm-up print "ready BATCH", then
 *                            time one batch per line "b" read from stdin, until EOF or "q"
 *   --profile N              (tgraph only) instead of timing: 20 warm-up runs, N runs timed
 *                            ("step_ns" wall, "step_cpu_ns" the process's CPU time, per run),
 *                            then N traced runs (step stats), one "op TYPE count mean_ns
 *                            min_ns" line per op type, sorted by min_ns: its nodes' total time
 *                            per run, the mean over runs and the least (on a loaded machine
 *                            the least is the kernels' own cost, the mean adds the waits)
 *   --nodes 1                with --profile: also one "node LEAST_NS TYPE NAME" line per node
 *                            that took 5 us or more in every traced run, the least over them,
 *                            slowest first (which product of a step is slow for its size)
 * Output lines (all times in ns): "version V", "plugins NAME[@CPU_VARIANT]..." (tgraph),
 * "load_ns N" (tgraph's plugin loading),
 * "import_ns", "session_ns", "init_ns", "first_run_ns", "first_ns" (their sum: GraphDef bytes
 * read and imported, session, init, first run: the time to the first result), then one
 * "run_ns N" per timed sample (N = mean time of one run over a batch of runs), and
 * "runs_peak_rss_bytes B": how far the resident size rose above its size after init during
 * the runs (the high-water mark, reset after init; Linux only). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RUNNER_TF
#include <tensorflow/c/c_api.h>
#define P(name) TF_##name
#else
#include <tgraph/c_api.h>
#define P(name) TG_##name
#endif

typedef P(Status) Status;
typedef P(Output) Output;
typedef P(Tensor) Tensor;
typedef P(Operation) Operation;

enum { kMaxList = 32 };

static int64_t NowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

#ifndef RUNNER_TF
static int64_t CpuNs(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return ((int64_t)u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000 +
         ((int64_t)u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000;
}
#endif

static void Check(Status* s, const char* what, const char* detail) {
  if (P(GetCode)(s) != P(OK)) {
    fprintf(stderr, "error: %s %s: %s\n", what, detail ? detail : "", P(Message)(s));
    exit(1);
  }
}

static void Die(const char* what, const char* detail) {
  fprintf(stderr, "error: %s %s\n", what, detail ? detail : "");
  exit(2);
}

/* A field of /proc/self/status in bytes ("VmRSS", "VmHWM"), -1 where there is none. */
static long long StatusBytes(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long long kib = -1;
  const size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') kib = atoll(line + n + 1);
  fclose(f);
  return kib < 0 ? -1 : kib * 1024;
}

/* Resets the process's resident high-water mark (VmHWM) to its current size (Linux >= 4.0);
 * returns whether it could. */
static int ResetPeakRss(void) {
  FILE* f = fopen("/proc/self/clear_refs", "w");
  if (!f) return 0;
  const int ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

static char* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) Die("cannot open", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc(n > 0 ? (size_t)n : 1);
  if (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) Die("cannot read", path);
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* "name:index" -> the graph's output. */
static Output FindOutput(P(Graph) * g, const char* spec) {
  char name[512];
  if (snprintf(name, sizeof name, "%s", spec) >= (int)sizeof name) Die("name too long", spec);
  int index = 0;
  char* colon = strrchr(name, ':');
  if (colon) {
    *colon = '\0';
    index = atoi(colon + 1);
  }
  Operation* op = P(GraphOperationByName)(g, name);
  if (!op) Die("no operation", name);
  Output out = {op, index};
  return out;
}

static Operation* FindOperation(P(Graph) * g, const char* name) {
  Operation* op = P(GraphOperationByName)(g, name);
  if (!op) Die("no operation", name);
  return op;
}

typedef struct {
  char tensor[512];
  P(DataType) dtype;
  int64_t dims[8];
  int ndims;
  char file[1024];
} FeedSpec;

static P(DataType) ParseType(const char* s, size_t* size) {
  if (strcmp(s, "float") == 0) { *size = 4; return P(FLOAT); }
  if (strcmp(s, "int32") == 0) { *size = 4; return P(INT32); }
  if (strcmp(s, "int64") == 0) { *size = 8; return P(INT64); }
  if (strcmp(s, "bfloat16") == 0) { *size = 2; return P(BFLOAT16); }
  Die("unknown dtype", s);
  return P(FLOAT);
}

static const char* TypeName(P(DataType) t) {
  switch (t) {
    case P(FLOAT): return "float";
    case P(INT32): return "int32";
    case P(INT64): return "int64";
    case P(BFLOAT16): return "bfloat16";
    default: return "other";
  }
}

/* T:I=DTYPE:SHAPE:FILE -> a tensor holding FILE's bytes. */
static Tensor* LoadFeed(const char* spec, Output* where, P(Graph) * g) {
  char buf[2048];
  if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf) Die("--feed too long", spec);
  char* eq = strchr(buf, '=');
  if (!eq) Die("bad --feed", spec);
  *eq = '\0';
  *where = FindOutput(g, buf);
  char* type = eq + 1;
  char* shape = strchr(type, ':');
  if (!shape) Die("bad --feed", spec);
  *shape++ = '\0';
  char* file = strchr(shape, ':');
  if (!file) Die("bad --feed", spec);
  *file++ = '\0';
  size_t elem = 0;
  P(DataType) dtype = ParseType(type, &elem);
  int64_t dims[8];
  int ndims = 0;
  int64_t count = 1;
  if (strcmp(shape, "scalar") != 0) {
    for (char* tok = strtok(shape, ","); tok; tok = strtok(NULL, ",")) {
      if (ndims == 8) Die("too many dims", spec);
      dims[ndims] = atoll(tok);
      count *= dims[ndims++];
    }
  }
  size_t size = 0;
  char* data = ReadFile(file, &size);
  if (size != (size_t)count * elem) Die("feed file size does not match its shape", file);
  Tensor* t = P(AllocateTensor)(dtype, dims, ndims, size);
  memcpy(P(TensorData)(t), data, size);
  free(data);
  return t;
}

typedef struct {
  P(Session) * session;
  Output feeds[kMaxList];
  Tensor* feed_values[kMaxList];
  int nfeeds;
  Output fetches[kMaxList];
  int nfetches;
  Operation* targets[kMaxList];
  int ntargets;
} Run;

/* One session run; the fetched tensors land in `out` (caller deletes) or are deleted. */
static void RunOnce(Run* r, Tensor** out, Status* s) {
  Tensor* local[kMaxList];
  Tensor** values = out ? out : local;
  P(SessionRun)(r->session, NULL, r->feeds, r->feed_values, r->nfeeds, r->fetches, values,
                r->nfetches, (const Operation* const*)r->targets, r->ntargets, NULL, s);
  Check(s, "run", NULL);
  if (!out)
    for (int i = 0; i < r->nfetches; ++i) P(DeleteTensor)(values[i]);
}

#ifndef RUNNER_TF
/* --profile: per op type, its nodes' total duration in each traced run; the mean and the
 * least over the runs. */
static void Profile(Run* r, int runs, int per_node, Status* s) {
  enum { kMaxTypes = 256, kMaxNodes = 1024 };
  static char names[kMaxTypes][64];
  static double total[kMaxTypes], least[kMaxTypes], this_run[kMaxTypes];
  static int count[kMaxTypes];
  int ntypes = 0;
  /* --nodes: each node's least duration, by its index in the run metadata (the first run's
   * names; a later run that records nodes in another order is matched by name). */
  static char node_names[kMaxNodes][128], node_types[kMaxNodes][64];
  static double node_least[kMaxNodes];
  int nnodes = 0;
  for (int i = 0; i < 20; ++i) RunOnce(r, NULL, s);
  const int64_t w0 = NowNs(), c0 = CpuNs();
  for (int i = 0; i < runs; ++i) RunOnce(r, NULL, s);
  printf("step_ns %.0f\nstep_cpu_ns %.0f\n", (double)(NowNs() - w0) / runs,
         (double)(CpuNs() - c0) / runs);
  TG_RunOptions* options = TG_NewRunOptions();
  TG_SetRunOptionsTraceLevel(options, 1);
  TG_RunMetadata* metadata = TG_NewRunMetadata();
  Tensor* values[kMaxList];
  for (int i = 0; i < runs; ++i) {
    TG_SessionRun(r->session, options, r->feeds, r->feed_values, r->nfeeds, r->fetches, values,
                  r->nfetches, (const Operation* const*)r->targets, r->ntargets, metadata, s);
    Check(s, "traced run", NULL);
    for (int f = 0; f < r->nfetches; ++f) TG_DeleteTensor(values[f]);
    for (int k = 0; k < ntypes; ++k) this_run[k] = 0;
    for (int n = 0; n < TG_RunMetadataNumNodes(metadata); ++n) {
      const char* type = TG_RunMetadataNodeOpType(metadata, n);
      int k = 0;
      while (k < ntypes && strcmp(names[k], type) != 0) ++k;
      if (k == kMaxTypes) continue;
      if (k == ntypes) {
        snprintf(names[k], sizeof names[k], "%s", type);
        least[k] = -1;
        this_run[k] = 0;
        ++ntypes;
      }
      const double ns = (double)TG_RunMetadataNodeDurationNs(metadata, n);
      total[k] += ns;
      this_run[k] += ns;
      if (i == 0) ++count[k];
    }
    for (int k = 0; k < ntypes; ++k)
      if (least[k] < 0 || this_run[k] < least[k]) least[k] = this_run[k];
    for (int n = 0; per_node && n < TG_RunMetadataNumNodes(metadata); ++n) {
      const char* name = TG_RunMetadataNodeName(metadata, n);
      int k = n < nnodes && strcmp(node_names[n], name) == 0 ? n : 0;
      while (k < nnodes && strcmp(node_names[k], name) != 0) ++k;
      if (k == kMaxNodes) continue;
      const double ns = (double)TG_RunMetadataNodeDurationNs(metadata, n);
      if (k == nnodes) {
        snprintf(node_names[k], sizeof node_names[k], "%s", name);
        snprintf(node_types[k], sizeof node_types[k], "%s", TG_RunMetadataNodeOpType(metadata, n));
        node_least[k] = ns;
        ++nnodes;
      } else if (ns < node_least[k]) {
        node_least[k] = ns;
      }
    }
  }
  for (int done = 0; done < ntypes; ++done) {
    int best = -1;
    for (int k = 0; k < ntypes; ++k)
      if (count[k] >= 0 && (best < 0 || least[k] > least[best])) best = k;
    printf("op %s %d %.0f %.0f\n", names[best], count[best], total[best] / runs, least[best]);
    count[best] = -1;
  }
  for (;;) {
    int best = -1;
    for (int k = 0; k < nnodes; ++k)
      if (node_least[k] >= 5000 && (best < 0 || node_least[k] > node_least[best])) best = k;
    if (best < 0) break;
    printf("node %.0f %s %s\n", node_least[best], node_types[best], node_names[best]);
    node_least[best] = -1;
  }
  TG_DeleteRunMetadata(metadata);
  TG_DeleteRunOptions(options);
}
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s GRAPH.pb [options] (see runner.c)\n", argv[0]);
    return 2;
  }
  const char* graph_file = argv[1];
  int threads = 2, check = 0, serve = 0, profile = 0, amp = 0, per_node = 0;
  double warmup_s = 0.2, time_s = 1.0;
  const char* dump = NULL;
  const char* inits[kMaxList];
  int ninits = 0;
  const char* feed_specs[kMaxList];
  int nfeed_specs = 0;
  const char* fetch_specs[kMaxList];
  int nfetch_specs = 0;
  const char* target_specs[kMaxList];
  int ntarget_specs = 0;
  for (int i = 2; i < argc; ++i) {
    const char* a = argv[i];
    if (i + 1 >= argc) Die("missing value after", a);
    const char* v = argv[++i];
    if (strcmp(a, "--threads") == 0) threads = atoi(v);
    else if (strcmp(a, "--amp") == 0) amp = atoi(v);
    else if (strcmp(a, "--serve") == 0) serve = atoi(v);
    else if (strcmp(a, "--check") == 0) check = atoi(v);
    else if (strcmp(a, "--profile") == 0) profile = atoi(v);
    else if (strcmp(a, "--nodes") == 0) per_node = atoi(v);
    else if (strcmp(a, "--dump") == 0) dump = v;
    else if (strcmp(a, "--warmup") == 0) warmup_s = atof(v);
    else if (strcmp(a, "--time") == 0) time_s = atof(v);
    else if (ninits < kMaxList && strcmp(a, "--init") == 0) inits[ninits++] = v;
    else if (nfeed_specs < kMaxList && strcmp(a, "--feed") == 0) feed_specs[nfeed_specs++] = v;
    else if (nfetch_specs < kMaxList && strcmp(a, "--fetch") == 0) fetch_specs[nfetch_specs++] = v;
    else if (ntarget_specs < kMaxList && strcmp(a, "--target") == 0) target_specs[ntarget_specs++] = v;
    else Die("unknown option (or too many)", a);
  }
  if (check > 0 && !dump) Die("--check needs --dump", NULL);

  Status* s = P(NewStatus)();
  printf("version %s\n", P(Version)());
  int64_t t = NowNs();
#ifndef RUNNER_TF
  P(LoadPluginsFromSearchPath)(s);
  Check(s, "loading plugins", NULL);
  printf("plugins");
  for (int i = 0; i < P(NumPlugins)(); ++i) {
    const P(Plugin)* p = P(GetPlugin)(i);
    const char* variant = P(PluginCpuVariant)(p);
    printf(" %s%s%s", P(PluginName)(p), *variant ? "@" : "", variant);
  }
  printf("\n");
#endif
  printf("load_ns %lld\n", (long long)(NowNs() - t));

  /* Time to the first result: the file's bytes, import, session, init, first run. */
  const int64_t t0 = NowNs();
  size_t size = 0;
  char* bytes = ReadFile(graph_file, &size);
  P(Buffer)* buffer = P(NewBufferFromString)(bytes, size);
  free(bytes);
  P(Graph)* g = P(NewGraph)();
  P(ImportGraphDefOptions)* import_options = P(NewImportGraphDefOptions)();
  P(GraphImportGraphDef)(g, buffer, import_options, s);
  Check(s, "importing", graph_file);
  P(DeleteImportGraphDefOptions)(import_options);
  P(DeleteBuffer)(buffer);
  const int64_t t1 = NowNs();

  P(SessionOptions)* options = P(NewSessionOptions)();
#ifdef RUNNER_TF
  /* ConfigProto: intra_op_parallelism_threads (field 2), inter_op_parallelism_threads
   * (field 5), both varints below 128. */
  /* With --amp, graph_options (field 10) { rewrite_options (field 10) {
   * auto_mixed_precision_onednn_bfloat16 (field 31) = ON (1) } }. */
  const unsigned char config[] = {0x10, (unsigned char)threads, 0x28, (unsigned char)threads,
                                  0x52, 0x05, 0x52, 0x03, 0xF8, 0x01, 0x01};
  if (threads < 1 || threads > 127) Die("--threads out of range", NULL);
  P(SetConfig)(options, config, amp ? sizeof config : 4, s);
  Check(s, "session config", NULL);
#else
  P(SetSessionIntraOpThreads)(options, threads);
  P(SetSessionInterOpThreads)(options, threads);
  if (amp) {
    P(SetSessionRewrite)(options, "auto_mixed_precision", 1, s);
    Check(s, "auto_mixed_precision", NULL);
  }
#endif
  Run r;
  memset(&r, 0, sizeof r);
  r.session = P(NewSession)(g, options, s);
  Check(s, "creating the session", NULL);
  const int64_t t2 = NowNs();

  for (int i = 0; i < ninits; ++i) {
    Operation* op = FindOperation(g, inits[i]);
    P(SessionRun)(r.session, NULL, NULL, NULL, 0, NULL, NULL, 0, (const Operation* const*)&op,
                  1, NULL, s);
    Check(s, "init op", inits[i]);
  }
  const int64_t t3 = NowNs();

  for (int i = 0; i < nfeed_specs; ++i)
    r.feed_values[r.nfeeds] = LoadFeed(feed_specs[i], &r.feeds[r.nfeeds], g), ++r.nfeeds;
  for (int i = 0; i < nfetch_specs; ++i) r.fetches[r.nfetches++] = FindOutput(g, fetch_specs[i]);
  for (int i = 0; i < ntarget_specs; ++i)
    r.targets[r.ntargets++] = FindOperation(g, target_specs[i]);
  const int64_t t4 = NowNs(); /* feed files are read outside the timed span */

  if (profile > 0) {
#ifdef RUNNER_TF
    (void)per_node;
    Die("--profile is tgraph's only (run metadata through its C API)", NULL);
#else
    Profile(&r, profile, per_node, s);
#endif
  } else if (check > 0) {
    for (int run = 0; run < check; ++run) {
      Tensor* out[kMaxList];
      RunOnce(&r, out, s);
      if (run == 0) {
        const int64_t t5 = NowNs();
        printf("first_run_ns %lld\n", (long long)(t5 - t4));
      }
      for (int f = 0; f < r.nfetches; ++f) {
        char path[2048];
        if (snprintf(path, sizeof path, "%s/r%d_f%d.bin", dump, run, f) >= (int)sizeof path)
          Die("--dump path too long", dump);
        FILE* fp = fopen(path, "wb");
        if (!fp) Die("cannot write", path);
        const size_t n = P(TensorByteSize)(out[f]);
        if (n && fwrite(P(TensorData)(out[f]), 1, n, fp) != n) Die("cannot write", path);
        fclose(fp);
        printf("dump %d %d %s %d", run, f, TypeName(P(TensorType)(out[f])),
               P(NumDims)(out[f]));
        for (int d = 0; d < P(NumDims)(out[f]); ++d) printf(" %lld", (long long)P(Dim)(out[f], d));
        printf("\n");
        P(DeleteTensor)(out[f]);
      }
    }
  } else {
    /* Peak memory of the runs: the resident high-water mark over the first and the timed
     * runs, less the resident size before them (after init: graph, session, variables). */
    const int peak_rss = ResetPeakRss();
    const long long rss_before = StatusBytes("VmRSS");
    RunOnce(&r, NULL, s);
    const int64_t t5 = NowNs();
    printf("import_ns %lld\nsession_ns %lld\ninit_ns %lld\nfirst_run_ns %lld\nfirst_ns %lld\n",
           (long long)(t1 - t0), (long long)(t2 - t1), (long long)(t3 - t2),
           (long long)(t5 - t4), (long long)((t3 - t0) + (t5 - t4)));
    /* Warm-up, then batches of runs sized to about 20 ms each (at least one run). */
    int64_t start = NowNs(), runs = 0;
    do {
      RunOnce(&r, NULL, s);
      ++runs;
    } while (NowNs() - start < (int64_t)(warmup_s * 1e9));
    const double per_run = (double)(NowNs() - start) / (double)runs;
    int64_t batch = (int64_t)(20e6 / per_run);
    if (batch < 1) batch = 1;
    if (serve) {
      /* Batches on demand: the driver alternates single batches of the two runtimes'
       * processes, so that a change of the machine's load hits both sides of a pair. */
      printf("ready %lld\n", (long long)batch);
      fflush(stdout);
      char line[64];
      while (fgets(line, sizeof line, stdin) && line[0] == 'b') {
        const int64_t b0 = NowNs();
        for (int64_t i = 0; i < batch; ++i) RunOnce(&r, NULL, s);
        printf("run_ns %.1f\n", (double)(NowNs() - b0) / (double)batch);
        fflush(stdout);
      }
    } else {
      const int64_t end = NowNs() + (int64_t)(time_s * 1e9);
      int samples = 0;
      while (samples < 5 || NowNs() < end) {
        const int64_t b0 = NowNs();
        for (int64_t i = 0; i < batch; ++i) RunOnce(&r, NULL, s);
        printf("run_ns %.1f\n", (double)(NowNs() - b0) / (double)batch);
        ++samples;
      }
    }
    const long long hwm = StatusBytes("VmHWM");
    if (peak_rss && rss_before >= 0 && hwm >= 0)
      printf("runs_peak_rss_bytes %lld\n", hwm - rss_before);
  }

  for (int i = 0; i < r.nfeeds; ++i) P(DeleteTensor)(r.feed_values[i]);
  P(CloseSession)(r.session, s);
  P(DeleteSession)(r.session, s);
  P(DeleteSessionOptions)(options);
  P(DeleteGraph)(g);
  P(DeleteStatus)(s);
  return 0;
}
