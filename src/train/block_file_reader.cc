#include "train/block_file_reader.h"

#include <fmt/format.h>

#include "util/crc32.h"

namespace streamglove {

Status BlockFileReader::Open(const BlockStreamInfo& info, size_t block) {
  path_ = BlockPath(info, block);
  want_crc_ = info.block_crcs.at(block);
  crc_ = 0;
  return info.compressed ? OpenByteSource(path_, &zstd_) : plain_.Open(path_);
}

Status BlockFileReader::Read(PairRecord32* to, size_t n) {
  char* at = reinterpret_cast<char*>(to);
  size_t left = n * sizeof(PairRecord32);
  while (left > 0) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(ReadSome(at, left, &got));
    if (got == 0)
      return Status::Corruption(fmt::format("{}: block shorter than its manifest says", path_));
    crc_ = ExtendCrc32(crc_, at, got);
    at += got;
    left -= got;
  }
  return Status::OK();
}

Status BlockFileReader::Finish() {
  char extra;
  size_t got = 0;
  SG_RETURN_IF_ERROR(ReadSome(&extra, 1, &got));
  if (got != 0)
    return Status::Corruption(fmt::format("{}: block longer than its manifest says", path_));
  if (crc_ != want_crc_) {
    return Status::Corruption(
        fmt::format("{}: checksum mismatch: the block is damaged (remove its folder and train "
                    "again: it is rebuilt)",
                    path_));
  }
  return Status::OK();
}

Status BlockFileReader::ReadSome(char* to, size_t n, size_t* got) {
  return zstd_ ? zstd_->Read(to, n, got) : plain_.Read(to, n, got);
}

Status ReadBlock(const BlockStreamInfo& info, size_t block, std::vector<PairRecord32>* records) {
  BlockFileReader file;
  SG_RETURN_IF_ERROR(file.Open(info, block));
  records->resize(info.block_records.at(block));
  SG_RETURN_IF_ERROR(file.Read(records->data(), records->size()));
  return file.Finish();
}

}  // namespace streamglove
