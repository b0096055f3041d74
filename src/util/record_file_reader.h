// RecordFileReader: a file of variable-length records read through one
// buffer, for the spill runs of the vocabulary pass and of ingest. A reader
// asks for the longest record's bytes (Ensure), decodes from data() (one
// record, or as many as surely lie whole in what is available), and
// consumes what it decoded.
//
// Thread-safety: used by one thread at a time.
#ifndef STREAMGLOVE_UTIL_RECORD_FILE_READER_H_
#define STREAMGLOVE_UTIL_RECORD_FILE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "streamglove/status.h"
#include "util/file.h"

namespace streamglove {

class RecordFileReader {
 public:
  // Opens `path` with a buffer of `buffer_bytes` (at least the longest record).
  Status Open(const std::string& path, size_t buffer_bytes);
  // Moves to byte `offset` of the file, dropping what is buffered.
  Status SeekTo(uint64_t offset);

  // Buffers at least `n` bytes, or all that is left of the file.
  Status Ensure(size_t n) { return available() >= n || eof_ ? Status::OK() : Fill(); }
  const char* data() const { return buffer_.data() + pos_; }
  size_t available() const { return end_ - pos_; }
  void Consume(size_t n) { pos_ += n; }
  const std::string& path() const { return file_->path(); }

 private:
  Status Fill();

  std::unique_ptr<SequentialFile> file_;  // a pointer: readers are moved
  std::string buffer_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_RECORD_FILE_READER_H_
