/* digits_mlp: trains a multilayer perceptron on scikit-learn's 8x8 digits through the tgraph
 * C API, and reports what a user of a training run wants to see: a progress line per epoch,
 * the step stats of one traced training step, the test accuracy and the run's figures.
 *
 *   input  x [?, 64] (pixels / 16)
 *   hidden relu(x W1 + b1)               [?, hidden]
 *   logits h W2 + b2                     [?, 10]
 *   loss   mean(sparse_softmax_cross_entropy_with_logits(logits, y))
 *   train  AdamOptimizer.minimize(loss)
 *
 * The data file comes from export_digits.py (format documented there). The split into train
 * and test images, the batch order and the initial weights (TensorFlow's initializers in the
 * graph, under a graph-level seed) are seeded, so a run prints the same losses and accuracies
 * every time on one machine. --graph-out writes the training graph as a binary GraphDef (for
 * `tgraph dot`). --save-dir keeps the trained model as TensorFlow would (a checkpoint, its
 * MetaGraph, an event file with the graph and per-epoch scalars for TensorBoard), then brings
 * it back from the files alone and checks that it scores the same. Exits non-zero if the
 * final test accuracy is below --min-accuracy, or the restored model scores otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpointing.h"
#include "digits_data.h"
#include "example_util.h"
#include "progress.h"
#include "step_stats.h"

#define PROGRAM "digits_mlp"

/* Rows of the step-stats table: the longest nodes, enough to see where a step goes. */
enum { kStepStatsTop = 15 };

typedef struct Options {
  const char* data_path;
  const char* graph_out; /* NULL: the graph is not written */
  const char* save_dir;  /* NULL: no checkpoint and no event file */
  long epochs;
  long hidden;
  long batch;
  double learning_rate;
  double test_fraction;
  double min_accuracy;
  long seed;
  int quiet; /* prints the final figures only */
  int amp;   /* automatic mixed precision (bfloat16 where the CPU has native kernels) */
} Options;

static void usage(void) {
  fprintf(stderr,
          "usage: " PROGRAM " [options] DIGITS_FILE\n"
          "  --epochs N          passes over the training images (default 40)\n"
          "  --hidden N          hidden units (default 128)\n"
          "  --batch N           mini-batch size (default 32)\n"
          "  --learning-rate X   Adam's learning rate (default 0.002)\n"
          "  --test-fraction X   share of the images held out for testing (default 0.2)\n"
          "  --min-accuracy X    exit 1 if the final test accuracy is lower (default 0.95)\n"
          "  --seed N            seed of the initial weights and batch order (default 1)\n"
          "  --graph-out FILE    write the training graph there as a binary GraphDef\n"
          "  --save-dir DIR      save a checkpoint, its MetaGraph and an event file there,\n"
          "                      then restore from them and evaluate again\n"
          "  --quiet             print only the final figures\n"
          "  --amp               automatic mixed precision: the products in bfloat16 where\n"
          "                      the CPU has native bf16 kernels, weights and loss in float\n");
  exit(2);
}

static Options parse_options(int argc, char** argv) {
  Options o;
  int i;
  o.data_path = NULL;
  o.graph_out = NULL;
  o.save_dir = NULL;
  o.epochs = 40;
  o.hidden = 128;
  o.batch = 32;
  o.learning_rate = 0.002;
  o.test_fraction = 0.2;
  o.min_accuracy = 0.95;
  o.seed = 1;
  o.quiet = 0;
  o.amp = 0;
  for (i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--epochs") == 0) {
      o.epochs = ex_parse_long(a, v), ++i;
    } else if (strcmp(a, "--hidden") == 0) {
      o.hidden = ex_parse_long(a, v), ++i;
    } else if (strcmp(a, "--batch") == 0) {
      o.batch = ex_parse_long(a, v), ++i;
    } else if (strcmp(a, "--learning-rate") == 0) {
      o.learning_rate = ex_parse_double(a, v), ++i;
    } else if (strcmp(a, "--test-fraction") == 0) {
      o.test_fraction = ex_parse_double(a, v), ++i;
    } else if (strcmp(a, "--min-accuracy") == 0) {
      o.min_accuracy = ex_parse_double(a, v), ++i;
    } else if (strcmp(a, "--seed") == 0) {
      o.seed = ex_parse_long(a, v), ++i;
    } else if (strcmp(a, "--graph-out") == 0) {
      if (v == NULL) ex_die("--graph-out needs a file name");
      o.graph_out = v, ++i;
    } else if (strcmp(a, "--save-dir") == 0) {
      if (v == NULL) ex_die("--save-dir needs a directory");
      o.save_dir = v, ++i;
    } else if (strcmp(a, "--quiet") == 0) {
      o.quiet = 1;
    } else if (strcmp(a, "--amp") == 0) {
      o.amp = 1;
    } else if (a[0] == '-') {
      usage();
    } else if (o.data_path == NULL) {
      o.data_path = a;
    } else {
      usage();
    }
  }
  if (o.data_path == NULL || o.hidden < 1 || o.batch < 1 || !(o.learning_rate > 0) ||
      !(o.test_fraction > 0 && o.test_fraction < 1)) {
    usage();
  }
  return o;
}

/* A variable of TensorFlow's initializer `kind` (with its default parameters). */
static TG_Variable* init_variable(TG_Graph* g, const char* name, TG_InitializerKind kind,
                                  const int64_t* dims, int num_dims) {
  TG_Initializer init;
  TG_InitInitializer(&init, kind);
  return ex_variable_with_init(g, name, &init, dims, num_dims);
}

/* One dense layer in name scope `scope`: x W + b, then ReLU when `relu`. */
static TG_Output dense(TG_Graph* g, const char* scope, TG_Output x, int64_t in, int64_t out,
                       int relu) {
  const int64_t w_dims[2] = {in, out};
  TG_Variable* w;
  TG_Variable* b;
  TG_Output y;
  TG_GraphPushNameScope(g, scope, ex_status);
  ex_check("name scope");
  /* Glorot (Xavier) uniform weights, U(-r, r) with r = sqrt(6 / (in + out)); zero biases. */
  w = init_variable(g, "W", TG_INIT_GLOROT_UNIFORM, w_dims, 2);
  b = init_variable(g, "b", TG_INIT_ZEROS, &out, 1);
  y = ex_matmul(g, "MatMul", x, TG_VariableReadValue(w), 0, 0);
  y = ex_binary(g, "BiasAdd", "BiasAdd", y, TG_VariableReadValue(b));
  if (relu) y = ex_unary(g, "Relu", "Relu", y);
  TG_GraphPopNameScope(g, ex_status);
  ex_check("pop name scope");
  return y;
}

typedef struct Model {
  TG_Output x, y;         /* placeholders */
  TG_Output loss;         /* mean cross-entropy of the batch */
  TG_Output correct;      /* number of rows whose arg-max logit is the label (float) */
  TG_Operation* train;    /* one Adam step */
  TG_Operation* init;     /* initializes every variable, the optimizer's slots included */
} Model;

static Model build_model(TG_Graph* g, const Options* o, int32_t features, int32_t classes) {
  const int64_t x_dims[2] = {-1, features};
  const int64_t y_dims[1] = {-1};
  const int32_t axis0[1] = {0};
  Model m;
  TG_Output h, logits, xent, predicted, equal;
  TG_OperationDescription* d;
  TG_OptimizerOptions opt_options;
  TG_Optimizer* opt;

  m.x = ex_placeholder(g, "x", TG_FLOAT, x_dims, 2);
  m.y = ex_placeholder(g, "y", TG_INT64, y_dims, 1);
  /* The graph-level seed makes the initial weights the same in every run. */
  TG_GraphSetRandomSeed(g, o->seed, ex_status);
  ex_check("TG_GraphSetRandomSeed");
  h = dense(g, "hidden", m.x, features, o->hidden, 1);
  logits = dense(g, "logits", h, o->hidden, classes, 0);

  d = ex_begin(g, "SparseSoftmaxCrossEntropyWithLogits", "xent");
  TG_AddInput(d, logits);
  TG_AddInput(d, m.y);
  xent = ex_finish(d);
  m.loss = ex_reduce(g, "Mean", "loss", xent, axis0, 1);

  d = ex_begin(g, "ArgMax", "predicted");
  TG_AddInput(d, logits);
  TG_AddInput(d, ex_const_int32(g, NULL, 1));
  TG_SetAttrType(d, "output_type", TG_INT64);
  predicted = ex_finish(d);
  equal = ex_binary(g, "Equal", "is_correct", predicted, m.y);
  d = ex_begin(g, "Cast", NULL);
  TG_AddInput(d, equal);
  TG_SetAttrType(d, "DstT", TG_FLOAT);
  m.correct = ex_reduce(g, "Sum", "correct", ex_finish(d), axis0, 1);

  TG_InitOptimizerOptions(&opt_options, TG_OPTIMIZER_ADAM);
  opt_options.learning_rate = o->learning_rate;
  opt = TG_NewOptimizer(&opt_options, ex_status);
  ex_check("TG_NewOptimizer");
  m.train = TG_OptimizerMinimize(opt, g, m.loss, NULL, 0, NULL, ex_status);
  ex_check("TG_OptimizerMinimize");
  TG_DeleteOptimizer(opt);
  /* After minimize, so Adam's slot variables (m, v, beta powers) are initialized too. */
  m.init = TG_GraphGlobalVariablesInitializer(g, ex_status);
  ex_check("global_variables_initializer");
  return m;
}

/* What an epoch's training steps added up to. */
typedef struct EpochStats {
  double loss_sum; /* batch mean losses weighted by batch size */
  double correct;  /* training rows predicted right (before the step's update) */
  int64_t seen;    /* training rows */
  double seconds;  /* time in training steps */
} EpochStats;

static float scalar_of(TG_Tensor* t) {
  const float v = *(const float*)TG_TensorData(t);
  TG_DeleteTensor(t);
  return v;
}

/* One Adam step on the batch (x, y), added to *stats. Traced into `metadata` when `options`
 * asks for it (both may be NULL). */
static void train_step(TG_Session* session, const Model* m, TG_Tensor* x, TG_Tensor* y,
                       const TG_RunOptions* options, TG_RunMetadata* metadata,
                       EpochStats* stats) {
  const TG_Output feeds[2] = {m->x, m->y};
  TG_Tensor* const values[2] = {x, y};
  const TG_Output fetches[2] = {m->loss, m->correct};
  TG_Tensor* results[2] = {NULL, NULL};
  const TG_Operation* train = m->train;
  const int64_t rows = TG_Dim(x, 0);
  const double t0 = ex_seconds();
  TG_SessionRun(session, options, feeds, values, 2, fetches, results, 2, &train, 1, metadata,
                ex_status);
  ex_check("a training step");
  stats->seconds += ex_seconds() - t0;
  stats->loss_sum += (double)scalar_of(results[0]) * (double)rows;
  stats->correct += scalar_of(results[1]);
  stats->seen += rows;
}

/* The share of the test images the model classifies right. */
static double test_accuracy(TG_Session* session, const Model* m, TG_Tensor* test_x,
                            TG_Tensor* test_y) {
  const TG_Output feeds[2] = {m->x, m->y};
  TG_Tensor* const values[2] = {test_x, test_y};
  TG_Tensor* correct = NULL;
  ex_run(session, feeds, values, 2, &m->correct, &correct, 1, NULL, 0, "the evaluation");
  return scalar_of(correct) / (double)TG_Dim(test_x, 0);
}

/* "loss 0.1234  acc 96.1%  12,345 samples/s" for the epoch so far, in buf[0, size). */
static const char* epoch_figures(const EpochStats* s, char* buf, size_t size) {
  char rate[32];
  const double seen = s->seen > 0 ? (double)s->seen : 1.0;
  snprintf(buf, size, "loss %.4f  acc %5.1f%%  %7s samples/s", s->loss_sum / seen,
           100.0 * s->correct / seen,
           ex_thousands(s->seconds > 0 ? (double)s->seen / s->seconds : 0.0, rate, sizeof rate));
  return buf;
}

static void print_devices(TG_Session* session) {
  int i;
  printf("devices:");
  for (i = 0; i < TG_SessionNumDevices(session); ++i) {
    printf("%s %s (%s)", i ? "," : "", TG_SessionDeviceName(session, i),
           TG_SessionDeviceDescription(session, i));
  }
  printf("\n");
}

/* What the epochs share: the session and model, the data and its split, the progress line. */
typedef struct Trainer {
  const Options* o;
  const Dataset* data;
  const Model* m;
  TG_Session* session;
  int32_t* train_rows; /* reshuffled every epoch */
  int64_t n_train, steps_per_epoch;
  TG_Tensor *test_x, *test_y;
  TG_RunOptions* trace_options; /* trace level 1 */
  ex_rng rng;                   /* the batch order */
  ex_progress progress;
} Trainer;

/* One pass over the training images in a new random order, its progress line ended with the
 * test accuracy. The first step is traced into `trace` when not NULL. */
static EpochStats train_epoch(Trainer* t, long epoch, TG_RunMetadata* trace) {
  EpochStats stats = {0.0, 0.0, 0, 0.0};
  const long steps = (long)t->steps_per_epoch;
  const long batch = t->o->batch;
  char label[48], figures[160];
  int64_t start;
  long step = 0;
  size_t len;
  snprintf(label, sizeof label, "epoch %*ld/%ld", snprintf(NULL, 0, "%ld", t->o->epochs), epoch,
           t->o->epochs);
  ex_shuffle_int32(&t->rng, t->train_rows, t->n_train);
  for (start = 0; start < t->n_train; start += batch) {
    const int64_t n = t->n_train - start < batch ? t->n_train - start : batch;
    const int traced = trace != NULL && step == 0;
    TG_Tensor *x, *y;
    make_batch(t->data, t->train_rows + start, n, &x, &y);
    train_step(t->session, t->m, x, y, traced ? t->trace_options : NULL, traced ? trace : NULL,
               &stats);
    TG_DeleteTensor(x);
    TG_DeleteTensor(y);
    ++step;
    if (!t->o->quiet) {
      ex_progress_update(&t->progress, label, step, steps,
                         epoch_figures(&stats, figures, sizeof figures));
    }
  }
  if (!t->o->quiet) {
    len = strlen(epoch_figures(&stats, figures, sizeof figures));
    snprintf(figures + len, sizeof figures - len, "  test %5.1f%%",
             100.0 * test_accuracy(t->session, t->m, t->test_x, t->test_y));
    ex_progress_finish(&t->progress, label, step, steps, figures);
  }
  return stats;
}

/* The whole run's figures. */
typedef struct RunTotals {
  int64_t steps, samples;
  double seconds;      /* in training steps */
  double wall_seconds; /* the whole loop: batches, steps, per-epoch evaluations */
  EpochStats last;     /* the last epoch's */
} RunTotals;

static const char* plural(long n) { return n == 1 ? "" : "s"; }

static void print_summary(const Options* o, const RunTotals* totals, double accuracy,
                          int64_t n_test) {
  char number[32];
  printf("\nsummary\n");
  printf("  training time     %.2f s (%ld epoch%s, %s steps; %.2f s of it in the steps)\n",
         totals->wall_seconds, o->epochs, plural(o->epochs),
         ex_thousands((double)totals->steps, number, sizeof number), totals->seconds);
  printf("  throughput        %s samples/s in the steps\n",
         ex_thousands(totals->seconds > 0 ? (double)totals->samples / totals->seconds : 0.0,
                      number, sizeof number));
  if (totals->last.seen > 0) {
    const double seen = (double)totals->last.seen;
    printf("  final train loss  %.4f (train accuracy %.1f%% in the last epoch)\n",
           totals->last.loss_sum / seen, 100.0 * totals->last.correct / seen);
  }
  printf("  test accuracy     %.2f%% of %lld held-out images (%s %.2f%%)\n", 100.0 * accuracy,
         (long long)n_test, accuracy >= o->min_accuracy ? "OK, required >=" : "FAILED, below",
         100.0 * o->min_accuracy);
}

/* The epoch's figures as TensorBoard scalars at the run's step count. */
static void log_epoch(TG_FileWriter* events, Trainer* t, const RunTotals* totals) {
  const double seen = totals->last.seen > 0 ? (double)totals->last.seen : 1.0;
  TG_FileWriterAddScalar(events, "loss", (float)(totals->last.loss_sum / seen), totals->steps,
                         ex_status);
  ex_check("TG_FileWriterAddScalar");
  TG_FileWriterAddScalar(events, "accuracy/train", (float)(totals->last.correct / seen),
                         totals->steps, ex_status);
  ex_check("TG_FileWriterAddScalar");
  TG_FileWriterAddScalar(events, "accuracy/test",
                         (float)test_accuracy(t->session, t->m, t->test_x, t->test_y),
                         totals->steps, ex_status);
  ex_check("TG_FileWriterAddScalar");
}

/* Saves the checkpoint and MetaGraph, then evaluates the model restored from those files
 * alone in a new graph and session; 0 when it scores otherwise than the trained one. */
static int keep_and_restore(const Options* o, TG_Graph* g, Trainer* t, const RunTotals* totals,
                            double accuracy) {
  char* prefix = save_checkpoint(g, t->session, o->save_dir, totals->steps);
  double restored;
  int same;
  printf("  checkpoint        %s (.index, .data-00000-of-00001, .meta; state file %s/checkpoint)\n",
         prefix, o->save_dir);
  restored = evaluate_restored(prefix, t->test_x, t->test_y);
  same = restored == accuracy;
  printf("  restored          from %s.meta alone, in a new session: test accuracy %.2f%% (%s)\n",
         prefix, 100.0 * restored, same ? "the same" : "DIFFERENT");
  free(prefix);
  return same;
}

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  Dataset data;
  ex_rng split_rng;
  int32_t* order;
  int64_t n_test, i;
  long epoch;
  TG_Graph* g;
  Model m;
  Trainer t;
  TG_RunMetadata* trace = NULL;
  RunTotals totals = {0, 0, 0.0, 0.0, {0.0, 0.0, 0, 0.0}};
  double accuracy, t0;
  TG_FileWriter* events = NULL;
  char number[32];

  ex_init(PROGRAM);
  data = load_digits_file(o.data_path);
  t.o = &o;
  t.data = &data;
  t.m = &m;

  /* A fixed split, independent of --seed: the test images are always the same ones. */
  order = malloc((size_t)data.n * sizeof(int32_t));
  if (order == NULL) ex_die("out of memory");
  for (i = 0; i < data.n; ++i) order[i] = (int32_t)i;
  split_rng.state = 20240601u;
  ex_shuffle_int32(&split_rng, order, data.n);
  n_test = (int64_t)(o.test_fraction * data.n + 0.5);
  t.n_train = data.n - n_test;
  t.train_rows = order;
  t.steps_per_epoch = (t.n_train + o.batch - 1) / o.batch;
  printf("digits: %d images of %d pixels, %d classes; %lld for training, %lld for testing\n",
         data.n, data.features, data.classes, (long long)t.n_train, (long long)n_test);
  printf("model: %d-%ld-%d MLP (ReLU), Adam lr %g, batch %ld, %ld epoch%s of %lld steps\n",
         data.features, o.hidden, data.classes, o.learning_rate, o.batch, o.epochs,
         plural(o.epochs), (long long)t.steps_per_epoch);

  g = TG_NewGraph();
  if (g == NULL) ex_die("out of memory");
  m = build_model(g, &o, data.features, data.classes);
  if (o.graph_out != NULL) {
    const size_t bytes = ex_write_graph_def(g, o.graph_out);
    printf("graph: %d operations, written to %s (%s bytes)\n", TG_GraphNumOperations(g),
           o.graph_out, ex_thousands((double)bytes, number, sizeof number));
  }
  {
    TG_SessionOptions* session_options = TG_NewSessionOptions();
    if (session_options == NULL) ex_die("out of memory");
    if (o.amp) {
      TG_SetSessionRewrite(session_options, "auto_mixed_precision", 1, ex_status);
      ex_check("TG_SetSessionRewrite");
    }
    t.session = TG_NewSession(g, session_options, ex_status);
    TG_DeleteSessionOptions(session_options);
  }
  ex_check("TG_NewSession");
  print_devices(t.session);
  {
    const TG_Operation* init = m.init;
    ex_run(t.session, NULL, NULL, 0, NULL, NULL, 0, &init, 1, "initializing the variables");
  }
  make_batch(&data, order + t.n_train, n_test, &t.test_x, &t.test_y);
  if (o.save_dir != NULL) {
    /* TensorBoard's view of the run: the graph, then loss and accuracies per epoch. */
    events = TG_NewFileWriter(o.save_dir, NULL, ex_status);
    ex_check(o.save_dir);
    TG_FileWriterAddGraph(events, g, ex_status);
    ex_check("TG_FileWriterAddGraph");
  }
  t.trace_options = TG_NewRunOptions();
  if (t.trace_options == NULL) ex_die("out of memory");
  TG_SetRunOptionsTraceLevel(t.trace_options, 1);
  t.rng.state = (uint64_t)o.seed;
  ex_progress_init(&t.progress, stdout);

  t0 = ex_seconds();
  for (epoch = 1; epoch <= o.epochs; ++epoch) {
    /* The first step of the last epoch is traced: a warm step, like most. */
    if (epoch == o.epochs) {
      trace = TG_NewRunMetadata();
      if (trace == NULL) ex_die("out of memory");
    }
    totals.last = train_epoch(&t, epoch, trace);
    totals.steps += t.steps_per_epoch;
    totals.samples += totals.last.seen;
    totals.seconds += totals.last.seconds;
    if (events != NULL) log_epoch(events, &t, &totals);
  }
  totals.wall_seconds = ex_seconds() - t0;
  if (trace != NULL) {
    /* The Casts of a training step: the graph's own, and with --amp also those the rewrite
       put around what runs in bfloat16 (none where bf16 is not faster than float here), so
       amp_test.sh compares the two runs' counts. */
    int casts = 0, n;
    for (n = 0; n < TG_RunMetadataNumNodes(trace); ++n) {
      casts += strcmp(TG_RunMetadataNodeOpType(trace, n), "Cast") == 0;
    }
    printf("%s: %d Casts in a training step\n", o.amp ? "mixed precision" : "float", casts);
  }
  if (!o.quiet && trace != NULL) {
    printf("\nstep stats of one training step (epoch %ld, step 1, trace level 1), the %d "
           "longest nodes:\n", o.epochs, kStepStatsTop);
    ex_print_step_stats(stdout, trace, kStepStatsTop);
  }
  accuracy = test_accuracy(t.session, &m, t.test_x, t.test_y);
  print_summary(&o, &totals, accuracy, n_test);
  if (o.save_dir != NULL) {
    TG_FileWriterClose(events, ex_status);
    ex_check("closing the event file");
    printf("  event file        %s\n", TG_FileWriterPath(events));
    TG_DeleteFileWriter(events);
    if (!keep_and_restore(&o, g, &t, &totals, accuracy)) accuracy = -1.0;
  }

  TG_DeleteRunMetadata(trace);
  TG_DeleteRunOptions(t.trace_options);
  TG_DeleteTensor(t.test_x);
  TG_DeleteTensor(t.test_y);
  TG_DeleteSession(t.session, ex_status);
  ex_check("TG_DeleteSession");
  TG_DeleteGraph(g);
  free(order);
  free_dataset(&data);
  ex_shutdown();

  if (accuracy < 0) {
    fprintf(stderr, PROGRAM ": the model restored from the checkpoint scores otherwise\n");
    return 1;
  }
  if (!(accuracy >= o.min_accuracy)) {
    fprintf(stderr, PROGRAM ": test accuracy %.2f%% is below the required %.2f%%\n",
            100.0 * accuracy, 100.0 * o.min_accuracy);
    return 1;
  }
  return 0;
}
