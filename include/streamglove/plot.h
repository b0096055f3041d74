// Pictures of training and of vectors, written as SVG files a browser shows.
//
// PlotLoss draws the mean training loss per epoch of one or more runs, read
// from the logs `train` writes beside its vectors (OUT.log.tsv), one line a
// run named after its log. PlotMap puts words on the plane of their first two
// principal components (PCA over the words shown), each axis labelled with
// its share of their variance.
//
// Errors name the file and, for a malformed log, the line.
//
// Thread-safety: the functions share no state; they may run concurrently.
#ifndef STREAMGLOVE_PLOT_H_
#define STREAMGLOVE_PLOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"

namespace streamglove {

// Writes the loss curves of `logs` (OUT.log.tsv files) to `output`.
Status PlotLoss(const std::vector<std::string>& logs, const std::string& title,
                const std::string& output);

struct MapPlotOptions {
  // The words to show; when empty, the first `top` words of the vectors file
  // (vectors files list them by frequency).
  std::vector<std::string> words;
  uint32_t top = 80;
  std::string title;  // empty: the vectors file's name
};

// Writes the map of `vectors`' words (any format Embeddings reads) to
// `output`. Fails when a word has no vector or fewer than two words are shown.
Status PlotMap(const std::string& vectors, const MapPlotOptions& options,
               const std::string& output);

}  // namespace streamglove

#endif  // STREAMGLOVE_PLOT_H_
