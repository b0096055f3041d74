#include "vectors/vectors_writer.h"

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

void KindVector(const ParameterRows& rows, uint32_t i, VectorsKind kind, float context_weight,
                float* out) {
  const uint32_t d = rows.dim;
  const float* w = rows.word + i * rows.stride;
  const float* c = rows.context + i * rows.stride;
  for (uint32_t b = 0; b < d; ++b) {
    switch (kind) {
      case VectorsKind::kWord:
        out[b] = w[b];
        break;
      case VectorsKind::kWordPlusContext:
        out[b] = w[b] + context_weight * c[b];
        break;
      case VectorsKind::kBoth:
        out[b] = w[b];
        out[d + b] = c[b];
        break;
    }
  }
}

Status WriteVectors(const std::string& path, const std::vector<VocabEntry>& vocab,
                    const ParameterRows& rows, VectorsKind kind, float context_weight,
                    VectorsFormat format) {
  const uint32_t d = rows.dim;
  const uint32_t out_dim = kind == VectorsKind::kBoth ? 2 * d : d;
  std::vector<float> v(out_dim);
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  if (format != VectorsFormat::kGloveText)
    SG_RETURN_IF_ERROR(out.Append(fmt::format("{} {}\n", rows.count, out_dim)));
  std::string line;
  for (uint32_t i = 0; i < rows.count; ++i) {
    KindVector(rows, i, kind, context_weight, v.data());
    line.assign(vocab[i].word);
    if (format == VectorsFormat::kWord2VecBinary) {
      line.push_back(' ');
      line.append(reinterpret_cast<const char*>(v.data()), out_dim * sizeof(float));
    } else {
      for (float x : v) fmt::format_to(std::back_inserter(line), " {:.6f}", x);
    }
    line.push_back('\n');
    SG_RETURN_IF_ERROR(out.Append(line));
  }
  return out.Commit();
}

}  // namespace streamglove
