// The training device plugin's contract: a C interface, so that a plugin
// built by another compiler (nvcc and its host compiler, against the CUDA
// runtime alone) needs nothing of streamglove's C++ types, and streamglove
// needs nothing of CUDA to build.
//
// A plugin is a shared library exporting
//
//     const sg_device_api* streamglove_device_api(void);
//
// that returns a table of functions with abi_version == SG_DEVICE_ABI_VERSION
// (train/device/device_plugin.h loads it). The host (train/device/
// device_trainer.h) then:
//   1. probe()s the device: its name and free memory;
//   2. open()s a session for one model: the parameters are allocated on the
//      device, and `slots` staging buffers of `slot_pairs` pairs each in
//      host memory the device reads fast (pinned, for CUDA);
//   3. write_array()s every parameter array (the host's model is the
//      initialised or resumed one: the device never initialises);
//   4. for each slot in turn: waits for it, fills slot() with pairs and
//      submit()s them with their ranges; submit returns at once, and the
//      device trains the slots in the order submitted, while the host fills
//      the next;
//   5. read_array()s the parameters back for a checkpoint and the vectors
//      file (after wait()ing every slot submitted).
// A resident store (model.resident_pairs > 0): in the first epoch the host
// also keep()s each submitted slot's pairs on the device, until it holds
// all resident_pairs of them; every later epoch is then submit_resident()
// calls alone, the pairs trained in an order the device computes
// (train/pair_permutation.h), and nothing more is copied.
//
// Semantics are the CPU trainer's, and its code is their definition: a
// range of pairs is trained as GloveModel::TrainRange or SgnsModel::TrainRange
// (src/train/) train it with a RangeContext of {progress_begin,
// progress_end, seed} — GloVe's step scale recomputed every 1024 pairs;
// SGNS's learning-rate decay, its noise words drawn by SplitMix64 seeded
// with the range's seed, `negatives` draws per pair in pair order, each
// picking entry (high 32 bits x vocab) >> 32 of the alias table. With
// `sequential` the updates are made one at a time in the slot's order, so a
// run equals a single-threaded CPU run to float rounding; otherwise the
// device may update in parallel without locks (Hogwild, as the CPU's
// threads do).
//
// Arrays are vocab x stride floats, row-major, in the order of the
// checkpoint (GloVe: word, context, word squared gradients, context squared
// gradients; SGNS: word, context), each row `dim` components then GloVe's
// bias, padded to `stride` (the padding is kept as written). An array may
// hold more than 2^32 floats: index with 64 bits.
//
// Errors: a function returns 0 on success; otherwise error() (or, before a
// session exists, the caller's buffer) holds one line saying what failed,
// valid until the next call. After an error the session may only be
// closed. No function may throw or abort.
//
// Lifetimes: the table stays valid while the library is loaded (the host
// never unloads it). close() may be called with slots submitted and not
// waited for (an interrupt, an error on the host): it must finish or cancel
// that work before freeing anything.
//
// Thread-safety: the host calls a session from one thread at a time, but
// writes a slot's buffer from several threads at once.
#ifndef STREAMGLOVE_TRAIN_DEVICE_DEVICE_API_H_
#define STREAMGLOVE_TRAIN_DEVICE_DEVICE_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Raised whenever a table's layout or a function's meaning changes.
#define SG_DEVICE_ABI_VERSION 2u

// The exported entry point's name.
#define SG_DEVICE_ENTRY_POINT "streamglove_device_api"

enum sg_device_objective { SG_DEVICE_GLOVE = 0, SG_DEVICE_SGNS = 1 };

// A training pair, laid out as streamglove's TrainingPair.
typedef struct sg_device_pair {
  uint32_t row;
  uint32_t col;
  float log_count;  // GloVe: log x
  float weight;     // GloVe: f(x); SGNS: 1 (one positive update)
} sg_device_pair;

// Fields ordered so that the struct has no padding: its layout is the
// same for every compiler of the platform.
typedef struct sg_device_model {
  uint32_t objective;  // sg_device_objective
  uint32_t vocab, dim, stride;
  uint32_t arrays;      // parameter arrays: 4 for GloVe, 2 for SGNS
  uint32_t negatives;   // SGNS: noise words per positive update
  uint32_t slots;       // staging: `slots` buffers of `slot_pairs` pairs each
  uint32_t sequential;  // 1: one update at a time, in order
  float eta;
  float grad_clip;  // GloVe: gradient clip, and the step schedule (GloveHyper)
  double step_scale, decay_fraction;
  uint64_t slot_pairs;
  // SGNS: the noise distribution as an alias table of `vocab` entries
  // (util/alias_table.h): entry i is kept when the low 32 bits of a draw
  // are below noise_threshold[i], else noise_alias[i] is drawn. Valid only
  // during open().
  const uint32_t* noise_threshold;
  const uint32_t* noise_alias;
  // Device memory for this many pairs, kept (keep()) and trained again
  // (submit_resident()); 0: none, every pair is streamed through the slots.
  uint64_t resident_pairs;
} sg_device_model;

// Pairs [begin, end) of a slot, trained as one RangeContext.
typedef struct sg_device_range {
  uint64_t begin, end;
  double progress_begin, progress_end;  // of the whole run, 0 to 1
  uint64_t seed;                        // of the range's random numbers
} sg_device_range;

typedef struct sg_device_totals {
  double loss;       // summed over the updates
  uint64_t updates;  // what the loss is averaged over
  uint64_t skipped;  // updates refused as non-finite
} sg_device_totals;

typedef struct sg_device_session sg_device_session;

typedef struct sg_device_api {
  uint32_t abi_version;  // SG_DEVICE_ABI_VERSION
  // The device's name and its free memory in bytes.
  int (*probe)(char* name, size_t name_size, uint64_t* free_bytes, char* error, size_t error_size);
  // NULL on failure, with the reason in `error`.
  sg_device_session* (*open)(const sg_device_model* model, char* error, size_t error_size);
  void (*close)(sg_device_session* session);
  // The last failure's line.
  const char* (*error)(sg_device_session* session);
  // Slot i's buffer of slot_pairs pairs; the host writes it only between
  // wait(i) (or open) and submit(i).
  sg_device_pair* (*slot)(sg_device_session* session, uint32_t i);
  // Copies a whole parameter array to the device, or back. Not while a
  // slot is submitted and not waited for.
  int (*write_array)(sg_device_session* session, uint32_t array, const float* host);
  int (*read_array)(sg_device_session* session, uint32_t array, float* host);
  // Queues slot i's ranges (copied; ordered, disjoint, within its first
  // slot_pairs pairs) to train after the slots submitted before it.
  int (*submit)(sg_device_session* session, uint32_t i, const sg_device_range* ranges,
                uint32_t range_count);
  // Until slot i's submitted work is done; its totals (zero when nothing
  // was submitted).
  int (*wait)(sg_device_session* session, uint32_t i, sg_device_totals* totals);
  // After submit(i), before wait(i): the pairs of slot i's submission (from
  // its first range's begin to its last range's end) are also copied to
  // resident pairs [at, at + n), at + n <= model.resident_pairs.
  int (*keep)(sg_device_session* session, uint32_t i, uint64_t at);
  // Like submit(i), with ranges over positions of the resident pairs'
  // order drawn from `order_seed`: position t trains resident pair
  // PairPermutation(resident_pairs, order_seed).Of(t) (train/
  // pair_permutation.h). Slot i's buffer is not read; its wait() gives the
  // totals. Every resident pair must have been kept first.
  int (*submit_resident)(sg_device_session* session, uint32_t i, const sg_device_range* ranges,
                         uint32_t range_count, uint64_t order_seed);
} sg_device_api;

typedef const sg_device_api* (*sg_device_entry_point)(void);

// What a plugin defines, exported with default visibility.
const sg_device_api* streamglove_device_api(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // STREAMGLOVE_TRAIN_DEVICE_DEVICE_API_H_
