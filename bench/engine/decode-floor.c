// The floor under bench:engine: llama_decode in a C loop over the batch shapes the engine
// decodes (a prompt prefilled into `width` sequences, then one token per sequence per step,
// each with its logits), with nothing between two decodes. Built against the same prebuilt
// libllama lmforge loads (bench/build-peer-llama-server.sh), with the context lmforge builds
// (runtime/backend/context.ts), so the engine's distance from it is all overhead.
//
//   lmforge-decode-floor MODEL N_CTX N_BATCH N_SEQ THREADS 'PROMPT TEXT' [GPU_LAYERS]
// (GPU_LAYERS: layers offloaded, default 0, the CPU), then one command per stdin line, "WIDTH STEPS
// [MOST]" (MOST: the most tokens a decode takes, each step split into about equal batches; 0 or
// absent: one batch), answered on stdout by one JSON line
// {"width":W,"steps":S,"tokens":W*S,"seconds":...,"cpu_seconds":...} (cpu_seconds: the process's
// CPU time over the same loop, every thread's); the prefill is not timed.
#define _POSIX_C_SOURCE 199309L  // clock_gettime
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *user) {
  (void)user;
  if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static double clock_s(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

static void add(struct llama_batch *b, llama_token token, llama_pos pos, llama_seq_id seq, int logits) {
  int i = b->n_tokens++;
  b->token[i] = token;
  b->pos[i] = pos;
  b->n_seq_id[i] = 1;
  b->seq_id[i][0] = seq;
  b->logits[i] = (int8_t)logits;
}

int main(int argc, char **argv) {
  if (argc != 7 && argc != 8) {
    fprintf(stderr, "usage: %s MODEL N_CTX N_BATCH N_SEQ THREADS PROMPT [GPU_LAYERS]\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  int n_ctx = atoi(argv[2]), n_batch = atoi(argv[3]), n_seq = atoi(argv[4]), threads = atoi(argv[5]);
  llama_log_set(quiet, NULL);
  // As lmforge does (runtime/backend/library.ts): the CPU variants beside libllama.
  ggml_backend_load_all();
  llama_backend_init();

  struct llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = argc == 8 ? atoi(argv[7]) : 0;
  struct llama_model *model = llama_model_load_from_file(path, mp);
  if (!model) { fprintf(stderr, "cannot load %s\n", path); return 1; }

  // The same context as runtime/backend/context.ts makes for the engine.
  struct llama_context_params cp = llama_context_default_params();
  cp.n_ctx = (uint32_t)n_ctx;
  cp.n_batch = (uint32_t)n_batch;
  cp.n_ubatch = (uint32_t)(n_batch < 512 ? n_batch : 512);
  cp.n_seq_max = (uint32_t)n_seq;
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  cp.kv_unified = true;
  cp.swa_full = true;
  cp.n_outputs_max_per_seq = 1;
  cp.n_outputs_max = (uint32_t)n_seq;
  struct llama_context *ctx = llama_init_from_model(model, cp);
  if (!ctx) { fprintf(stderr, "cannot create the context\n"); return 1; }

  const struct llama_vocab *vocab = llama_model_get_vocab(model);
  const char *text = argv[6];
  llama_token prompt[4096];
  int n_prompt = llama_tokenize(vocab, text, (int32_t)strlen(text), prompt, 4096, false, true);
  if (n_prompt <= 0) { fprintf(stderr, "cannot tokenize the prompt\n"); return 1; }

  struct llama_batch batch = llama_batch_init(n_batch, 0, 1);
  llama_memory_t memory = llama_get_memory(ctx);
  char line[128];
  while (fgets(line, sizeof line, stdin)) {
    int width, steps, most = 0;
    if (sscanf(line, "%d %d %d", &width, &steps, &most) < 2) break;
    // Each step in about equal batches of at most `most` tokens (0: one batch), as the engine
    // splits a CPU step out of tiled attention (runtime/engine/worker/model-runner.ts).
    int batches = most > 0 ? (width + most - 1) / most : 1;
    int per = (width + batches - 1) / batches;
    if (width < 1 || width > n_seq || n_prompt > n_batch) { fprintf(stderr, "bad width %d\n", width); return 1; }
    llama_memory_clear(memory, true);
    // The prompts go in as many batches as they need (256 sequences' prompts overflow one).
    batch.n_tokens = 0;
    for (int s = 0; s < width; s++) {
      if (batch.n_tokens + n_prompt > n_batch) {
        if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "prefill failed\n"); return 1; }
        batch.n_tokens = 0;
      }
      for (int i = 0; i < n_prompt; i++) add(&batch, prompt[i], i, s, i == n_prompt - 1);
    }
    if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "prefill failed\n"); return 1; }
    // Any fixed token will do: nothing is sampled, and a step's cost does not depend on it.
    llama_token token = prompt[n_prompt - 1];
    double start = now_s(), cpu_start = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int step = 0; step < steps; step++) {
      for (int first = 0; first < width; first += per) {
        int last = first + per < width ? first + per : width;
        batch.n_tokens = 0;
        for (int s = first; s < last; s++) add(&batch, token, n_prompt + step, s, 1);
        if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
        // Read the logits as the engine does, so lazy output copies are paid here too.
        (void)llama_get_logits_ith(ctx, last - first - 1);
      }
    }
    double seconds = now_s() - start, cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    printf("{\"width\":%d,\"steps\":%d,\"tokens\":%d,\"seconds\":%.6f,\"cpu_seconds\":%.6f}\n", width, steps, width * steps, seconds, cpu_seconds);
    fflush(stdout);
  }
  llama_batch_free(batch);
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
