// BlockFileReader: one block file's records, read in order and checked.
//
// Thread-safety: a reader is used by one thread at a time.
#ifndef STREAMGLOVE_TRAIN_BLOCK_FILE_READER_H_
#define STREAMGLOVE_TRAIN_BLOCK_FILE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "train/block_stream.h"
#include "util/byte_source.h"
#include "util/file.h"

namespace streamglove {

// One block file's records, read in order: raw blocks as they are (their
// first bytes could pass for a compression magic), compressed ones through a
// zstd ByteSource. Finish() checks that the file ended with the records and
// that they match the manifest's CRC.
class BlockFileReader {
 public:
  Status Open(const BlockStreamInfo& info, size_t block);
  // Reads exactly n records into `to`.
  Status Read(PairRecord32* to, size_t n);
  // After the last record: the file ends there and its CRC matches.
  Status Finish();

 private:
  Status ReadSome(char* to, size_t n, size_t* got);

  std::string path_;
  std::unique_ptr<ByteSource> zstd_;
  SequentialFile plain_;
  uint32_t crc_ = 0, want_crc_ = 0;
};

// Reads block `block` whole into *records (resized to its count).
Status ReadBlock(const BlockStreamInfo& info, size_t block, std::vector<PairRecord32>* records);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BLOCK_FILE_READER_H_
