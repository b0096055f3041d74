// What a vectors file holds and how it is laid out: written by `train`
// (TrainOptions), read back by Embeddings (any of the three formats).
#ifndef STREAMGLOVE_VECTORS_FORMAT_H_
#define STREAMGLOVE_VECTORS_FORMAT_H_

namespace streamglove {

// Which rows make a word's vector.
enum class VectorsKind {
  kWord,             // w
  kWordPlusContext,  // w + a w̃ (a = 1: the GloVe paper's)
  kBoth,             // w and w̃ concatenated
};

// The file formats people exchange (docs/formats.md).
enum class VectorsFormat {
  kGloveText,       // "word v1 ... vd" lines
  kWord2VecText,    // "V d" header, then GloVe text lines
  kWord2VecBinary,  // "V d\n" header, then "word " + d little-endian float32 + "\n"
  kSubwordModel,    // a subword model file, OUT.model (read only: train writes it)
};

// "glove", "word2vec-text", "word2vec": the --format values.
inline const char* VectorsFormatName(VectorsFormat f) {
  switch (f) {
    case VectorsFormat::kGloveText:
      return "glove";
    case VectorsFormat::kWord2VecText:
      return "word2vec-text";
    case VectorsFormat::kWord2VecBinary:
      return "word2vec";
    case VectorsFormat::kSubwordModel:
      return "model";
  }
  return "?";
}

}  // namespace streamglove

#endif  // STREAMGLOVE_VECTORS_FORMAT_H_
