// WARC records (ISO 28500), as Common Crawl's WET files hold them: each
// record is a "WARC/1.x" line, header lines up to a blank line, a body of
// exactly Content-Length bytes, and a blank line:
//
//   WARC/1.0\r\n
//   WARC-Type: conversion\r\n
//   WARC-Target-URI: https://example.com/\r\n
//   Content-Length: 1234\r\n
//   \r\n
//   <1234 bytes: the page's plain text>\r\n
//   \r\n
//
// A WET file's `conversion` records hold one page's text each; its first
// record (`warcinfo`) and any other type hold metadata, not text.
//
// ScanWarcRecord is a pure function of the bytes: the chunk reader scans
// records to cut chunks at record boundaries and hands the records it found to
// the tokenizer with the chunk, so both agree on every record by construction.
//
// A record is bad when its header does not start with "WARC/1.", has no end
// within kMaxWarcHeaderBytes, lacks a numeric Content-Length, or when the
// body's end is not followed by the blank line and the next record (or the
// end of the input): a Content-Length that lies. A bad record spans up to the
// next line that starts "WARC/1." (or the end of the input), so reading
// resynchronises there.
//
// Thread-safety: stateless.
#ifndef STREAMGLOVE_CORPUS_WARC_RECORD_H_
#define STREAMGLOVE_CORPUS_WARC_RECORD_H_

#include <cstddef>
#include <string_view>

#include "streamglove/corpus_reader.h"  // WarcRecord

namespace streamglove {

inline constexpr size_t kMaxWarcHeaderBytes = size_t{64} << 10;

enum class WarcScan {
  kRecord,    // *record is filled (good or bad)
  kNeedMore,  // the record may continue past `bytes`: read more and scan again
};

// Scans the record that begins at `pos` of `bytes`. `at_end`: `bytes` ends
// where the input ends. `max_body`: a larger Content-Length is a bad record.
// REQUIRES: pos < bytes.size().
WarcScan ScanWarcRecord(std::string_view bytes, size_t pos, bool at_end, size_t max_body,
                        WarcRecord* record);

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_WARC_RECORD_H_
