// PhraseList (streamglove/phrases.h): the list's file and its lookups.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "streamglove/phrases.h"
#include "streamglove/tokenizer.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/quoted.h"

namespace streamglove {

namespace {

constexpr std::string_view kHeader = "# streamglove phrases: pass, left, right, score, count\n";

bool HoldsWhitespace(std::string_view token) {
  return token.find_first_of(" \t\r\n\v\f") != std::string_view::npos;
}

// Splits `line` at tabs.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t tab; (tab = line.find('\t')) != std::string_view::npos; line.remove_prefix(tab + 1))
    fields.push_back(line.substr(0, tab));
  fields.push_back(line);
  return fields;
}

template <class T>
bool ParseNumber(std::string_view text, T* value) {
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && p == text.data() + text.size();
}

// Reads one line's phrase; empty when good, else what is wrong.
std::string ParseLine(std::string_view line, Phrase* p) {
  const std::vector<std::string_view> f = Fields(line);
  if (f.size() != 3 && f.size() != 5)
    return "expected pass, left and right (and score and count), separated by tabs";
  if (!ParseNumber(f[0], &p->pass) || p->pass == 0)
    return fmt::format("pass {} is not a positive integer", Quoted(f[0]));
  p->left.assign(f[1]);
  p->right.assign(f[2]);
  p->score = 0;
  p->count = 0;
  if (f.size() == 5) {
    if (!ParseNumber(f[3], &p->score) || !std::isfinite(p->score))
      return fmt::format("score {} is not a number", Quoted(f[3]));
    if (!ParseNumber(f[4], &p->count))
      return fmt::format("count {} is not a whole number", Quoted(f[4]));
  }
  return PhraseList::CheckPhrase(*p);
}

std::string Key(const Phrase& p) { return fmt::format("{}\t{}\t{}", p.pass, p.left, p.right); }

}  // namespace

size_t PhraseList::Hash::operator()(std::string_view s) const { return HashBytes(s); }

std::string PhraseList::CheckPhrase(const Phrase& p) {
  if (p.pass == 0) return "pass 0: passes count from 1";
  if (p.left.empty() || p.right.empty()) return "an empty token";
  if (HoldsWhitespace(p.left) || HoldsWhitespace(p.right)) return "a token holds whitespace";
  if (p.left.size() + 1 + p.right.size() > kMaxTokenBytes)
    return fmt::format("the joined token is longer than {} bytes", kMaxTokenBytes);
  return std::string();
}

PhraseList::PhraseList(std::vector<Phrase> phrases) : phrases_(std::move(phrases)) {
  std::stable_sort(phrases_.begin(), phrases_.end(),
                   [](const Phrase& a, const Phrase& b) { return a.pass < b.pass; });
  passes_ = phrases_.empty() ? 0 : phrases_.back().pass;
  by_pass_.resize(passes_);
  std::vector<std::string> keys;
  keys.reserve(phrases_.size());
  for (const Phrase& p : phrases_) {
    by_pass_[p.pass - 1][p.left].push_back(p.right);
    keys.push_back(Key(p));
  }
  // Order-free: the sorted keys, hashed.
  std::sort(keys.begin(), keys.end());
  std::string all;
  for (const std::string& k : keys) all.append(k).push_back('\n');
  fingerprint_ = fmt::format("{:016x}", HashBytes(all));
}

bool PhraseList::Joins(uint32_t pass, std::string_view left, std::string_view right) const {
  if (pass == 0 || pass > passes_) return false;
  const Rights& rights = by_pass_[pass - 1];
  const auto it = rights.find(left);
  if (it == rights.end()) return false;
  return std::find(it->second.begin(), it->second.end(), right) != it->second.end();
}

Status PhraseList::Read(const std::string& path, std::shared_ptr<const PhraseList>* list) {
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &text));
  std::vector<Phrase> phrases;
  std::vector<std::string> keys;
  std::vector<std::pair<uint64_t, size_t>> where;  // each phrase's line and byte
  uint64_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line(text.data() + pos, nl - pos);
    const size_t at = pos;
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a file from Windows
    if (line.empty() || line.front() == '#') continue;
    Phrase p;
    if (const std::string problem = ParseLine(line, &p); !problem.empty()) {
      return Status::Corruption(
          fmt::format("{}: line {} (byte {}): {}", path, line_no, at, problem));
    }
    keys.push_back(Key(p));
    where.emplace_back(line_no, at);
    phrases.push_back(std::move(p));
  }
  // Twice: the sorted keys side by side.
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (keys[order[i]] == keys[order[i - 1]]) {
      const size_t later = std::max(order[i], order[i - 1]);
      const Phrase& p = phrases[later];
      return Status::Corruption(fmt::format("{}: line {} (byte {}): pass {} joins {} {} again",
                                            path, where[later].first, where[later].second, p.pass,
                                            Quoted(p.left), Quoted(p.right)));
    }
  }
  *list = std::make_shared<const PhraseList>(std::move(phrases));
  return Status::OK();
}

Status PhraseList::Write(const std::string& path) const {
  AtomicFileWriter file;
  SG_RETURN_IF_ERROR(file.Open(path));
  SG_RETURN_IF_ERROR(file.Append(kHeader));
  std::string line;
  for (const Phrase& p : phrases_) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}\t{}\t{}\t{:.6g}\t{}\n", p.pass, p.left, p.right,
                   p.score, p.count);
    SG_RETURN_IF_ERROR(file.Append(line));
  }
  return file.Commit();
}

}  // namespace streamglove
