// RocksMessage: a RocksDB status as the text of one of our errors.
//
// Some of RocksDB's messages end in a newline (a missing .sst file's), and
// an error is one line: every place the store quotes RocksDB goes through
// this.
#ifndef STREAMGLOVE_STORE_ROCKS_MESSAGE_H_
#define STREAMGLOVE_STORE_ROCKS_MESSAGE_H_

#include <string>

#include <rocksdb/status.h>

namespace streamglove {

inline std::string RocksMessage(const rocksdb::Status& s) {
  const std::string msg = s.ToString();
  return msg.substr(0, msg.find_last_not_of("\n ") + 1);  // npos + 1 == 0
}

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_ROCKS_MESSAGE_H_
