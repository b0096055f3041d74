#include "corpus/warc_record.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace streamglove {

namespace {

constexpr std::string_view kVersionPrefix = "WARC/1.";
constexpr std::string_view kRecordEnd = "\r\n\r\n";

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);  // ASCII header names only
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

WarcScan ScanWarcRecord(std::string_view bytes, size_t pos, bool at_end, size_t max_body,
                        WarcRecord* record) {
  *record = WarcRecord();
  record->begin = pos;
  // A bad record runs to the next line that opens a record. Without one in
  // sight, only the input's end settles where it stops.
  const auto bad = [&](std::string problem) {
    const size_t next = bytes.find(std::string("\n").append(kVersionPrefix), pos);
    if (next == std::string_view::npos && !at_end) return WarcScan::kNeedMore;
    record->end = next == std::string_view::npos ? bytes.size() : next + 1;
    record->problem = std::move(problem);
    return WarcScan::kRecord;
  };
  const std::string_view rest = bytes.substr(pos);
  if (rest.size() < kVersionPrefix.size() && !at_end) return WarcScan::kNeedMore;
  if (!rest.starts_with(kVersionPrefix))
    return bad("not a WARC record (expected a \"WARC/1.x\" line)");

  const size_t header_end =
      rest.substr(0, kMaxWarcHeaderBytes + kRecordEnd.size()).find(kRecordEnd);
  if (header_end == std::string_view::npos) {
    if (!at_end && rest.size() < kMaxWarcHeaderBytes + kRecordEnd.size())
      return WarcScan::kNeedMore;
    return bad(fmt::format("WARC header without an end (no blank line within {} bytes)",
                           kMaxWarcHeaderBytes));
  }
  bool has_length = false;
  uint64_t length = 0;
  std::string_view type;
  for (size_t line = rest.find("\r\n") + 2; line < header_end + 2;) {  // past the version line
    const size_t eol = rest.find("\r\n", line);
    const std::string_view field = rest.substr(line, eol - line);
    line = eol + 2;
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos) continue;  // a folded or odd line: not one we read
    const std::string_view name = Trim(field.substr(0, colon)),
                           value = Trim(field.substr(colon + 1));
    if (EqualsIgnoringCase(name, "Content-Length")) {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (ec != std::errc() || end != value.data() + value.size()) {
        return bad(fmt::format("WARC Content-Length \"{}\" is not a number", value));
      }
      has_length = true;
    } else if (EqualsIgnoringCase(name, "WARC-Type")) {
      type = value;
    }
  }
  if (!has_length) return bad("WARC record without a Content-Length");
  if (length > max_body) {
    return bad(fmt::format(
        "WARC Content-Length {} is over the {}-byte record limit; --max-line-bytes raises it",
        length, max_body));
  }
  const size_t body_begin = header_end + kRecordEnd.size();
  const size_t body_end = body_begin + length;
  if (body_end + kRecordEnd.size() > rest.size()) {
    if (!at_end) return WarcScan::kNeedMore;
    return bad(fmt::format("WARC Content-Length {} runs past the end of the input", length));
  }
  // The body must end in the blank line and the next record (or the input):
  // a Content-Length that lies lands elsewhere.
  const size_t next = body_end + kRecordEnd.size();
  const auto lies = [&] {
    return bad(fmt::format("WARC Content-Length {} does not end at a record boundary", length));
  };
  if (rest.substr(body_end, kRecordEnd.size()) != kRecordEnd) return lies();
  if (next < rest.size()) {
    const std::string_view after = rest.substr(next, kVersionPrefix.size());
    if (after.size() < kVersionPrefix.size()) {
      if (!at_end)
        return WarcScan::kNeedMore;  // (at the end, those bytes are a bad record of their own)
    } else if (after != kVersionPrefix) {
      return lies();
    }
  }
  record->end = pos + next;
  record->body_begin = pos + body_begin;
  record->body_size = length;
  record->text = type == "conversion";
  return WarcScan::kRecord;
}

}  // namespace streamglove
