// Content fingerprints of inputs, so a store recognises an input it has
// already ingested even under another name or path.
#ifndef STREAMGLOVE_CORPUS_FINGERPRINT_H_
#define STREAMGLOVE_CORPUS_FINGERPRINT_H_

#include <cstdint>
#include <string>

#include "streamglove/status.h"

namespace streamglove {

// Hex of (size, hash of the first MiB, hash of the last MiB): cheap on any
// file size, and different for any two real shards. REQUIRES: a regular file
// (standard input cannot be re-read to resume, so it has none).
Status FingerprintFile(const std::string& path, std::string* fingerprint);

// The fingerprint the file's first `size` bytes would have as a file of
// their own: equal to an earlier fingerprint of the file when it has only
// grown since (bytes appended). REQUIRES: size <= the file's size.
Status FingerprintFilePrefix(const std::string& path, uint64_t size, std::string* fingerprint);

// The size a fingerprint records; false when `fingerprint` is not one.
bool FingerprintSize(const std::string& fingerprint, uint64_t* size);

// Whether two fingerprints' first MiB is the same (true for a file of at
// least 1 MiB and the same file grown since).
bool SameHead(const std::string& a, const std::string& b);

// The name an input record gives the file at `path`: absolute and lexically
// normal, so that one file has one name from any working directory.
std::string InputRecordPath(const std::string& path);

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_FINGERPRINT_H_
