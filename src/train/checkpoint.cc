#include "train/checkpoint.h"

#include <cstring>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

namespace {
constexpr char kCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '1'};
}  // namespace

Status SaveCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint32_t epochs_done,
                      uint64_t options_hash, const std::vector<const LargeArray<float>*>& arrays) {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  std::string header(kCheckpointMagic, sizeof(kCheckpointMagic));
  for (uint64_t v : {uint64_t{vocab}, uint64_t{dim}, uint64_t{epochs_done}, options_hash}) {
    header.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  SG_RETURN_IF_ERROR(out.Append(header));
  for (const LargeArray<float>* a : arrays) {
    SG_RETURN_IF_ERROR(out.Append(std::string_view(reinterpret_cast<const char*>(a->data()), a->size() * sizeof(float))));
  }
  return out.Commit();
}

Status LoadCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint64_t options_hash,
                      const std::vector<LargeArray<float>*>& arrays, uint32_t* epochs_done) {
  SequentialFile in;
  SG_RETURN_IF_ERROR(in.Open(path));
  auto read_exact = [&](char* p, size_t n) -> Status {
    while (n > 0) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(in.Read(p, n, &got));
      if (got == 0) return Status::Corruption(fmt::format("{}: byte {}: truncated checkpoint", path, in.position()));
      p += got;
      n -= got;
    }
    return Status::OK();
  };
  char magic[sizeof(kCheckpointMagic)];
  uint64_t header[4];
  SG_RETURN_IF_ERROR(read_exact(magic, sizeof(magic)));
  if (std::memcmp(magic, kCheckpointMagic, sizeof(magic)) != 0) {
    return Status::Corruption(fmt::format("{}: byte 0: not a streamglove checkpoint", path));
  }
  SG_RETURN_IF_ERROR(read_exact(reinterpret_cast<char*>(header), sizeof(header)));
  if (header[0] != vocab || header[1] != dim) {
    return Status::InvalidArgument(fmt::format("{}: checkpoint of {} words x {} dims; this run has {} x {}", path,
                                               header[0], header[1], vocab, dim));
  }
  if (header[3] != options_hash) {
    return Status::InvalidArgument(fmt::format("{}: checkpoint was trained with other hyperparameters", path));
  }
  for (LargeArray<float>* a : arrays) {
    SG_RETURN_IF_ERROR(read_exact(reinterpret_cast<char*>(a->data()), a->size() * sizeof(float)));
  }
  *epochs_done = static_cast<uint32_t>(header[2]);
  return Status::OK();
}

}  // namespace streamglove
