// streamglove-membw: the memory floor a training run is measured against.
// Threads read and write back random rows of one shared array, as the
// trainer's updates do (a row prefetched 8 updates ahead, each float of it
// read, changed and written), and the tool prints rows per second and the
// bytes moved (each row's lines read and written back). A GloVe pair touches
// four rows (word, context and their squared gradients), an SGNS update
// 2 + negatives; so rows/s divided by that is an upper bound on pairs/s
// that no update arithmetic can beat.
//
//   streamglove-membw --array-bytes 70M --row-bytes 256 --threads 2 --seconds 3
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "streamglove/units.h"
#include "util/split_mix.h"

int main(int argc, char** argv) {
  CLI::App app{"Random row read-modify-write throughput: the trainer's memory floor"};
  std::string array_text = "70M";
  size_t row_bytes = 256;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double seconds = 3;
  app.add_option("--array-bytes", array_text, "size of the shared array (the parameters)")
      ->capture_default_str();
  app.add_option("--row-bytes", row_bytes, "bytes per row (a multiple of 64)")
      ->capture_default_str();
  app.add_option("--threads", threads, "threads")->capture_default_str();
  app.add_option("--seconds", seconds, "how long to run")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  size_t array_bytes = 0;
  if (!streamglove::ParseByteSize(array_text, &array_bytes).ok() || row_bytes == 0 ||
      row_bytes % 64 != 0 || array_bytes < row_bytes || threads < 1) {
    fmt::print(
        stderr,
        "streamglove-membw: --array-bytes must hold a row, --row-bytes be a multiple of 64\n");
    return 2;
  }
  const size_t rows = array_bytes / row_bytes;
  const size_t floats = rows * row_bytes / sizeof(float);
  // Huge pages asked for before the first touch, as LargeArray does for the
  // parameters.
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t allocated = (floats * sizeof(float) + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<float, decltype(&std::free)> memory(
      static_cast<float*>(std::aligned_alloc(kHugePage, allocated)), &std::free);
  if (!memory) {
    fmt::print(stderr, "streamglove-membw: cannot allocate {}\n",
               streamglove::FormatBytes(static_cast<double>(allocated)));
    return 1;
  }
  madvise(memory.get(), allocated, MADV_HUGEPAGE);
  float* const array = memory.get();
  std::fill(array, array + floats, 1.0f);
  std::atomic<bool> stop{false};
  std::vector<uint64_t> done(threads, 0);
  std::vector<std::thread> workers;
  const size_t row_floats = row_bytes / sizeof(float);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      streamglove::SplitMix64 random(0x5eed + t);
      constexpr size_t kAhead = 8;
      size_t ring[kAhead];
      for (size_t& r : ring) r = random.Below(rows);
      uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 4096; ++i, ++n) {
          const size_t next = random.Below(rows);
          for (size_t b = 0; b < row_floats; b += 16)
            __builtin_prefetch(&array[next * row_floats + b], 1);
          float* row = &array[ring[n % kAhead] * row_floats];
          for (size_t b = 0; b < row_floats; ++b) row[b] = row[b] * 0.999f + 0.001f;
          ring[n % kAhead] = next;
        }
      }
      done[t] = n;
    });
  }
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& w : workers) w.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t n : done) total += n;
  const double rows_per_second = static_cast<double>(total) / elapsed;
  fmt::print("threads {} array {} row {} B: {:.2f} M rows/s, {:.2f} GB/s (read + written back)\n",
             threads, streamglove::FormatBytes(static_cast<double>(array_bytes)), row_bytes,
             rows_per_second / 1e6, rows_per_second * 2 * static_cast<double>(row_bytes) / 1e9);
  float checksum = 0;
  for (size_t i = 0; i < floats; i += 4096) checksum += array[i];
  return checksum < 0 ? 1 : 0;  // the rows' values are used, so the updates are not optimised away
}
