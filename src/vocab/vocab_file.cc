#include "streamglove/vocab_file.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "util/file.h"
#include "util/quoted.h"
#include "vocab/vocab_index.h"

namespace streamglove {

namespace {

// Calls fn(line) for each line of `file` from where it stands (without its
// '\n'; a last line without one too), reading through a fixed buffer: a
// vocabulary of millions of words is not held twice, once as text and once as
// entries.
template <class Fn>
Status ForEachLine(SequentialFile* file, Fn&& fn) {
  std::string buffer(size_t{1} << 20, '\0');
  std::string partial;  // a line that crosses the buffer's end
  for (;;) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(file->Read(buffer.data(), buffer.size(), &got));
    if (got == 0) break;
    std::string_view rest(buffer.data(), got);
    for (size_t nl; (nl = rest.find('\n')) != std::string_view::npos; rest.remove_prefix(nl + 1)) {
      if (partial.empty()) {
        SG_RETURN_IF_ERROR(fn(rest.substr(0, nl)));
      } else {
        partial.append(rest.substr(0, nl));
        SG_RETURN_IF_ERROR(fn(std::string_view(partial)));
        partial.clear();
      }
    }
    partial.append(rest);
  }
  return partial.empty() ? Status::OK() : fn(std::string_view(partial));
}

// Calls fn(word, count) for each "word count" line of `file` from where it
// stands; errors name `path` and the line.
template <class Fn>
Status ForEachWord(SequentialFile* file, const std::string& path, Fn&& fn) {
  uint64_t line_no = 0;
  return ForEachLine(file, [&](std::string_view line) {
    ++line_no;
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
      return Status::Corruption(fmt::format("{}: line {}: count {} is not a positive integer", path,
                                            line_no, Quoted(number)));
    }
    return fn(word, count);
  });
}

}  // namespace

Status ForEachVocabFileWord(
    const std::string& path,
    const std::function<Status(std::string_view word, uint64_t count)>& fn) {
  SequentialFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  return ForEachWord(&file, path, fn);
}

Status ReadVocabFile(const std::string& path, std::vector<VocabEntry>* entries) {
  entries->clear();
  SequentialFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  // A regular file's lines are counted first, so the entries are allocated
  // once, at their number (a growing vector's last doubling holds up to
  // twice them); a pipe is read once.
  const bool counted = file.size() > 0;
  size_t lines = 0;
  if (counted) {
    SG_RETURN_IF_ERROR(ForEachLine(&file, [&](std::string_view) {
      ++lines;
      return Status::OK();
    }));
    SG_RETURN_IF_ERROR(file.SeekTo(0));
    entries->reserve(std::min<size_t>(lines, kMaxVocabFileWords));
  }
  const auto changed = [&] {
    return Status::Corruption(fmt::format("{}: changed while it was read", path));
  };
  SG_RETURN_IF_ERROR(ForEachWord(&file, path, [&](std::string_view word, uint64_t count) {
    if (counted && entries->size() == lines) return changed();
    if (entries->size() == kMaxVocabFileWords) {
      return Status::InvalidArgument(
          fmt::format("{}: more than {} words", path, kMaxVocabFileWords));
    }
    entries->push_back(VocabEntry{std::string(word), count});
    return Status::OK();
  }));
  if (counted && entries->size() != lines) return changed();
  // Duplicates: an index over all the entries finds a word at its first
  // entry, so a later one's lookup names another id. Its 8-byte slots are
  // what a vocabulary of millions of words affords beside itself.
  const VocabIndex index(*entries);
  for (uint32_t id = 0; id < entries->size(); ++id) {
    if (index.Lookup((*entries)[id].word) != id) {
      return Status::Corruption(
          fmt::format("{}: line {}: duplicate word {}", path, id + 1, Quoted((*entries)[id].word)));
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
