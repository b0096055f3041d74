#include "util/record_file_reader.h"

#include <cstring>

namespace streamglove {

Status RecordFileReader::Open(const std::string& path, size_t buffer_bytes) {
  file_ = std::make_unique<SequentialFile>();
  buffer_.assign(buffer_bytes, '\0');
  pos_ = end_ = 0;
  eof_ = false;
  return file_->Open(path);
}

Status RecordFileReader::SeekTo(uint64_t offset) {
  pos_ = end_ = 0;
  eof_ = false;
  return file_->SeekTo(offset);
}

Status RecordFileReader::Fill() {
  std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
  end_ -= pos_;
  pos_ = 0;
  while (!eof_ && end_ < buffer_.size()) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(file_->Read(buffer_.data() + end_, buffer_.size() - end_, &got));
    if (got == 0) eof_ = true;
    end_ += got;
  }
  return Status::OK();
}

}  // namespace streamglove
