#include "streamglove/vocab_file.h"

#include <charconv>
#include <unordered_set>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

Status ReadVocabFile(const std::string& path, std::vector<VocabEntry>* entries) {
  entries->clear();
  std::string data;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &data));
  std::unordered_set<std::string_view> seen;
  uint64_t line_no = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    ++line_no;
    size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    std::string_view line(data.data() + pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a file from Windows
    // The count is after the last space: a word (one token of any tokenizer)
    // holds no space, but rfind keeps a malformed line's error on its count.
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos || space == 0) {
      return Status::Corruption(fmt::format("{}: line {}: expected \"word count\"", path, line_no));
    }
    const std::string_view word = line.substr(0, space), number = line.substr(space + 1);
    uint64_t count = 0;
    const auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
    if (ec != std::errc() || p != number.data() + number.size() || count == 0) {
      return Status::Corruption(
          fmt::format("{}: line {}: count '{}' is not a positive integer", path, line_no, number));
    }
    entries->push_back(VocabEntry{std::string(word), count});
  }
  // Duplicates checked once the vector stops growing: the set views its strings.
  for (size_t i = 0; i < entries->size(); ++i) {
    if (!seen.insert((*entries)[i].word).second) {
      return Status::Corruption(
          fmt::format("{}: line {}: duplicate word '{}'", path, i + 1, (*entries)[i].word));
    }
  }
  return Status::OK();
}

Status WriteVocabFile(const std::string& path, const std::vector<VocabEntry>& entries) {
  AtomicFileWriter file;
  SG_RETURN_IF_ERROR(file.Open(path));
  std::string line;
  for (const VocabEntry& e : entries) {
    line.assign(e.word);
    fmt::format_to(std::back_inserter(line), " {}\n", e.count);
    SG_RETURN_IF_ERROR(file.Append(line));
  }
  return file.Commit();
}

}  // namespace streamglove
