#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "streamglove/corpus_reader.h"
#include "util/file.h"

namespace streamglove {

namespace {

InputFormat FormatByName(std::string_view name) {
  for (std::string_view suffix : {".zst", ".zstd", ".gz", ".xz", ".bz2"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  if (name.ends_with(".jsonl") || name.ends_with(".ndjson")) return InputFormat::kJsonl;
  if (name.ends_with(".wet")) return InputFormat::kWet;  // .warc.wet too
  return InputFormat::kText;
}

InputFile MakeInput(std::string path, InputFormat format, uint64_t size) {
  InputFile in;
  in.format = format == InputFormat::kAuto ? FormatByName(path) : format;
  in.path = std::move(path);
  in.size = size;
  return in;
}

}  // namespace

Status ExpandInputs(const std::vector<std::string>& args, InputFormat format,
                    std::vector<InputFile>* inputs) {
  inputs->clear();
  for (const std::string& arg : args) {
    if (arg == "-") {
      inputs->push_back(MakeInput(arg, format, 0));
      continue;
    }
    struct stat st;
    if (::stat(arg.c_str(), &st) != 0) return ErrnoStatus(arg, errno);
    if (!S_ISDIR(st.st_mode)) {
      inputs->push_back(MakeInput(arg, format, S_ISREG(st.st_mode) ? st.st_size : 0));
      continue;
    }
    std::vector<std::pair<std::string, uint64_t>> found;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(arg, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) found.emplace_back(it->path().string(), it->file_size(ec));
    }
    if (ec) return Status::IOError(fmt::format("{}: {}", arg, ec.message()));
    if (found.empty())
      return Status::InvalidArgument(fmt::format("{}: directory has no files", arg));
    std::sort(found.begin(), found.end());
    for (auto& [path, size] : found) inputs->push_back(MakeInput(std::move(path), format, size));
  }
  if (inputs->empty()) return Status::InvalidArgument("no inputs given");
  return Status::OK();
}

}  // namespace streamglove
