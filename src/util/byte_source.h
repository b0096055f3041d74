// ByteSource: the decompressed bytes of one input, read front to back.
//
// The compression (zstd, gzip, xz, bzip2 or none) is detected from the first
// bytes, so a misnamed file or compressed standard input is read correctly; a
// name ending in .zst, .gz, .xz or .bz2 whose content does not match is an
// error. Input may hold many zstd frames, gzip members, xz streams or bzip2
// streams, as produced by parallel compressors and by appending
// (cat a.zst b.zst).
//
// Thread-safety: a ByteSource is used by one thread at a time.
#ifndef STREAMGLOVE_UTIL_BYTE_SOURCE_H_
#define STREAMGLOVE_UTIL_BYTE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "streamglove/status.h"

namespace streamglove {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to `n` decompressed bytes; *got = 0 only at the end of the input.
  // A corrupt or truncated stream is a Corruption naming the file and the
  // byte offset in the file (compressed bytes) where decoding failed.
  virtual Status Read(char* buf, size_t n, size_t* got) = 0;

  // Bytes consumed from the file so far (compressed bytes): for progress.
  virtual uint64_t file_position() const = 0;
};

// Opens `path` ("-" for standard input) and detects its compression.
// On success *source owns the open file.
Status OpenByteSource(const std::string& path, std::unique_ptr<ByteSource>* source);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_BYTE_SOURCE_H_
