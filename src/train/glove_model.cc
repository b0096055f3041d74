#include "train/glove_model.h"

#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

namespace {

constexpr char kCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '1'};
constexpr uint32_t kMaxDim = 4096;

}  // namespace

GloveModel::GloveModel(uint32_t vocab, uint32_t dim, uint64_t seed)
    : vocab_(vocab),
      dim_(dim),
      stride_(Stride(dim)),
      word_(size_t{vocab} * stride_),
      context_(size_t{vocab} * stride_),
      word_gradsq_(size_t{vocab} * stride_),
      context_gradsq_(size_t{vocab} * stride_) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  for (LargeArray<float>* a : {&word_, &context_}) {
    for (size_t i = 0; i < vocab; ++i) {
      for (uint32_t b = 0; b <= dim; ++b) (*a)[i * stride_ + b] = uniform(rng) / static_cast<float>(dim);
    }
  }
  for (LargeArray<float>* a : {&word_gradsq_, &context_gradsq_}) {
    for (size_t i = 0; i < vocab; ++i) {
      for (uint32_t b = 0; b <= dim; ++b) (*a)[i * stride_ + b] = 1.0f;
    }
  }
}

bool GloveModel::Update(const TrainingPair& pair, const GloveHyper& h, double* cost) {
  float* __restrict w = word_.data() + size_t{pair.row} * stride_;
  float* __restrict c = context_.data() + size_t{pair.col} * stride_;
  float* __restrict gw = word_gradsq_.data() + size_t{pair.row} * stride_;
  float* __restrict gc = context_gradsq_.data() + size_t{pair.col} * stride_;
  const uint32_t d = dim_;
  float dot = 0;
  for (uint32_t b = 0; b < d; ++b) dot += w[b] * c[b];
  const float diff = dot + w[d] + c[d] - pair.log_count;
  const float fdiff = pair.weight * diff;
  if (!std::isfinite(diff) || !std::isfinite(fdiff)) return false;
  *cost += 0.5 * static_cast<double>(fdiff) * diff;

  alignas(64) float update_w[kMaxDim];
  alignas(64) float update_c[kMaxDim];
  float sum_w = 0, sum_c = 0;
  const float clip = h.grad_clip;
  // Plain comparisons, not std::fmin/fmax: those are library calls (for their
  // NaN rules) that keep this loop scalar; fdiff and the rows are finite here.
  for (uint32_t b = 0; b < d; ++b) {
    const float g1 = fdiff * c[b], g2 = fdiff * w[b];
    const float t1 = (g1 < -clip ? -clip : (g1 > clip ? clip : g1)) * h.eta;
    const float t2 = (g2 < -clip ? -clip : (g2 > clip ? clip : g2)) * h.eta;
    update_w[b] = t1 / std::sqrt(gw[b]);
    update_c[b] = t2 / std::sqrt(gc[b]);
    sum_w += update_w[b];
    sum_c += update_c[b];
    gw[b] += t1 * t1;
    gc[b] += t2 * t2;
  }
  if (std::isfinite(sum_w) && std::isfinite(sum_c)) {
    for (uint32_t b = 0; b < d; ++b) {
      w[b] -= update_w[b];
      c[b] -= update_c[b];
    }
  }
  // As glove.c: the bias steps use fdiff without eta.
  const float bw = fdiff / std::sqrt(gw[d]), bc = fdiff / std::sqrt(gc[d]);
  if (std::isfinite(bw)) w[d] -= bw;
  if (std::isfinite(bc)) c[d] -= bc;
  gw[d] += fdiff * fdiff;
  gc[d] += fdiff * fdiff;
  return true;
}

Status GloveModel::Save(const std::string& path, uint32_t epochs_done, uint64_t options_hash) const {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  std::string header(kCheckpointMagic, sizeof(kCheckpointMagic));
  for (uint64_t v : {uint64_t{vocab_}, uint64_t{dim_}, uint64_t{epochs_done}, options_hash}) {
    header.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  SG_RETURN_IF_ERROR(out.Append(header));
  for (const LargeArray<float>* a : {&word_, &context_, &word_gradsq_, &context_gradsq_}) {
    SG_RETURN_IF_ERROR(out.Append(std::string_view(reinterpret_cast<const char*>(a->data()), a->size() * sizeof(float))));
  }
  return out.Commit();
}

Status GloveModel::Load(const std::string& path, uint64_t options_hash, uint32_t* epochs_done) {
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
  if (header[0] != vocab_ || header[1] != dim_) {
    return Status::InvalidArgument(fmt::format("{}: checkpoint of {} words x {} dims; this run has {} x {}", path,
                                               header[0], header[1], vocab_, dim_));
  }
  if (header[3] != options_hash) {
    return Status::InvalidArgument(fmt::format("{}: checkpoint was trained with other hyperparameters", path));
  }
  for (LargeArray<float>* a : {&word_, &context_, &word_gradsq_, &context_gradsq_}) {
    SG_RETURN_IF_ERROR(read_exact(reinterpret_cast<char*>(a->data()), a->size() * sizeof(float)));
  }
  *epochs_done = static_cast<uint32_t>(header[2]);
  return Status::OK();
}

}  // namespace streamglove
