// ForEachChunk: the corpus's chunks, each handed to one of a fixed pool of
// workers, through a bounded oneTBB pipeline (serial in-order reader ->
// parallel workers) in an arena of workers.size() threads.
//
// Memory: exactly `chunks_in_flight` chunk buffers exist; a worker object is
// used by one task at a time and there are never more tasks than workers.
// The first error (from the reader or a worker) stops reading and is
// returned once the pipeline has drained.
#ifndef STREAMGLOVE_CORPUS_CHUNK_PIPELINE_H_
#define STREAMGLOVE_CORPUS_CHUNK_PIPELINE_H_

#include <functional>
#include <memory>
#include <vector>

#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "streamglove/corpus_reader.h"
#include "streamglove/interrupt.h"
#include "util/first_error.h"

namespace streamglove {

// `after_read` runs on the reader's thread after each chunk is read (for
// progress); `process(worker, chunk)` runs in parallel.
template <class Worker>
Status ForEachChunk(ChunkReader* reader, const std::vector<Worker*>& workers,
                    size_t chunks_in_flight, const std::function<void()>& after_read,
                    const std::function<Status(Worker*, const Chunk&)>& process) {
  std::vector<std::unique_ptr<Chunk>> chunks;
  tbb::concurrent_queue<Chunk*> idle_chunks;
  for (size_t i = 0; i < chunks_in_flight; ++i) {
    chunks.push_back(std::make_unique<Chunk>());
    idle_chunks.push(chunks.back().get());
  }
  tbb::concurrent_queue<Worker*> idle_workers;
  for (Worker* w : workers) idle_workers.push(w);

  FirstError error;
  tbb::task_arena arena(static_cast<int>(workers.size()));
  arena.execute([&] {
    tbb::parallel_pipeline(
        chunks_in_flight,
        tbb::make_filter<void, Chunk*>(
            tbb::filter_mode::serial_in_order,
            [&](tbb::flow_control& fc) -> Chunk* {
              Chunk* chunk = nullptr;
              bool done = false;
              if (Interrupted())
                error.Set(InterruptedStatus("nothing was written; run the same command again"));
              if (error.failed() || !idle_chunks.try_pop(chunk)) {
                fc.stop();
                return nullptr;
              }
              if (Status s = reader->Next(chunk, &done); !s.ok() || done) {
                error.Set(std::move(s));
                idle_chunks.push(chunk);
                fc.stop();
                return nullptr;
              }
              if (after_read) after_read();
              return chunk;
            }) &
            tbb::make_filter<Chunk*, void>(tbb::filter_mode::parallel, [&](Chunk* chunk) {
              Worker* worker = nullptr;
              idle_workers.try_pop(worker);  // never empty: at most workers.size() tasks run
              if (!error.failed()) error.Set(process(worker, *chunk));
              idle_workers.push(worker);
              idle_chunks.push(chunk);
            }));
  });
  return error.status();
}

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_CHUNK_PIPELINE_H_
