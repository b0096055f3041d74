// Content fingerprints of inputs, so a store recognises an input it has
// already ingested even under another name or path.
#ifndef STREAMGLOVE_CORPUS_FINGERPRINT_H_
#define STREAMGLOVE_CORPUS_FINGERPRINT_H_

#include <string>

#include "streamglove/status.h"

namespace streamglove {

// Hex of (size, hash of the first MiB, hash of the last MiB): cheap on any
// file size, and different for any two real shards. REQUIRES: a regular file
// (standard input cannot be re-read to resume, so it has none).
Status FingerprintFile(const std::string& path, std::string* fingerprint);

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_FINGERPRINT_H_
