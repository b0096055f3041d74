// DIR/COMMITTED.streamglove: the length of RocksDB's MANIFEST as the store's
// last commit left it, kept outside RocksDB.
//
// RocksDB reads a MANIFEST whose end is cut off (a file truncated, a copy or
// a disk that lost its last blocks) as the store that its last complete
// record describes, without an error: the commits after it are gone, their
// tables orphans that the next open for writing deletes. A MANIFEST holds
// nothing that tells its lost end from its real one; a length recorded
// elsewhere does.
//
// Invariant: the record is written only after RocksDB has synced what it
// names (a commit returned, an open for writing made a new MANIFEST), so a
// crash leaves it naming at most the MANIFEST's real length; the edits
// RocksDB appends later (compactions) only lengthen it. The record is
// written whole or not at all (AtomicFileWriter).
//
// Thread-safety: callers hold the store's lock (LOCK.streamglove), so no
// other process writes the record or the MANIFEST meanwhile.
#ifndef STREAMGLOVE_STORE_MANIFEST_LENGTH_H_
#define STREAMGLOVE_STORE_MANIFEST_LENGTH_H_

#include <string>

#include <rocksdb/db.h>

#include "streamglove/status.h"

namespace streamglove {

inline constexpr char kManifestLengthFile[] = "COMMITTED.streamglove";

// Corruption, in one line naming the MANIFEST, when the MANIFEST that
// DIR/CURRENT names is shorter than the record says, or when the record is
// damaged. OK when there is no record (a store of an older build) or it
// names another MANIFEST (an open for writing made a new one and was killed
// before recording it: the old one is gone, the new one unchecked until the
// next open for writing or commit).
Status CheckManifestLength(const std::string& dir);

// Records the MANIFEST that `db`, open for writing on DIR, uses now and the
// length of it that RocksDB has synced.
Status RecordManifestLength(rocksdb::DB* db, const std::string& dir);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_MANIFEST_LENGTH_H_
