// The MANIFEST's committed length, recorded beside it (manifest_length.h).
// The record is one line: "<MANIFEST file name> <length> <crc32 of what
// precedes it, hex>".
#include "store/manifest_length.h"

#include <charconv>
#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "store/rocks_message.h"
#include "util/crc32.h"
#include "util/file.h"

namespace streamglove {

namespace {

struct ManifestLength {
  std::string manifest;  // a file name in DIR, "MANIFEST-000005"
  uint64_t bytes = 0;
};

uint32_t RecordCrc(std::string_view fields) { return ExtendCrc32(0, fields.data(), fields.size()); }

std::string EncodeRecord(const ManifestLength& record) {
  const std::string fields = fmt::format("{} {}", record.manifest, record.bytes);
  return fmt::format("{} {:08x}\n", fields, RecordCrc(fields));
}

// False when `line` is not a record EncodeRecord wrote (damaged).
bool DecodeRecord(std::string_view line, ManifestLength* record) {
  if (line.empty() || line.back() != '\n') return false;
  line.remove_suffix(1);
  const size_t crc_at = line.rfind(' ');
  if (crc_at == std::string_view::npos) return false;
  const std::string_view fields = line.substr(0, crc_at), crc_hex = line.substr(crc_at + 1);
  uint32_t crc = 0;
  const auto [crc_end, crc_error] =
      std::from_chars(crc_hex.data(), crc_hex.data() + crc_hex.size(), crc, 16);
  if (crc_error != std::errc() || crc_end != crc_hex.data() + crc_hex.size() ||
      crc_hex.size() != 8 || crc != RecordCrc(fields)) {
    return false;
  }
  const size_t bytes_at = fields.find(' ');
  if (bytes_at == std::string_view::npos) return false;
  record->manifest = std::string(fields.substr(0, bytes_at));
  const std::string_view bytes = fields.substr(bytes_at + 1);
  const auto [bytes_end, bytes_error] =
      std::from_chars(bytes.data(), bytes.data() + bytes.size(), record->bytes);
  return bytes_error == std::errc() && bytes_end == bytes.data() + bytes.size() &&
         record->manifest.rfind("MANIFEST-", 0) == 0;
}

}  // namespace

Status CheckManifestLength(const std::string& dir) {
  const std::string path = dir + "/" + kManifestLengthFile;
  if (!PathExists(path)) return Status::OK();
  std::string contents;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &contents));
  ManifestLength record;
  if (!DecodeRecord(contents, &record)) {
    return Status::Corruption(fmt::format(
        "{}: damaged: the store's MANIFEST cannot be checked against it; nothing was read or "
        "written: restore the store from a copy, or remove this file to use the store unchecked",
        path));
  }
  // CURRENT is RocksDB's and Store::Open's to check: one missing (a
  // creation killed before RocksDB wrote it) or one that does not parse
  // names no MANIFEST of the record.
  const std::string current_path = dir + "/CURRENT";
  if (!PathExists(current_path)) return Status::OK();
  std::string current;
  SG_RETURN_IF_ERROR(ReadFileToString(current_path, &current));
  if (current != record.manifest + "\n") return Status::OK();
  const std::string manifest = dir + "/" + record.manifest;
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(manifest, ec);
  // A MANIFEST gone is RocksDB's to report, as when there is no record.
  if (ec == std::errc::no_such_file_or_directory) return Status::OK();
  if (ec) return ErrnoStatus(manifest, ec.value());
  if (bytes >= record.bytes) return Status::OK();
  return Status::Corruption(fmt::format(
      "{}: {} bytes, where its last commit left {} ({}): the store's latest changes are lost "
      "from RocksDB's record of its tables; nothing was read or written: restore the store "
      "from a copy, or build it again",
      manifest, bytes, record.bytes, kManifestLengthFile));
}

Status RecordManifestLength(rocksdb::DB* db, const std::string& dir) {
  std::vector<std::string> live;
  ManifestLength record;
  const rocksdb::Status s = db->GetLiveFiles(live, &record.bytes, /*flush_memtable=*/false);
  if (!s.ok()) {
    return Status::IOError(fmt::format("{}: listing RocksDB's files: {}", dir, RocksMessage(s)));
  }
  for (const std::string& name : live) {
    // Names start with '/': "/MANIFEST-000005".
    if (name.rfind("/MANIFEST-", 0) == 0) record.manifest = name.substr(1);
  }
  if (record.manifest.empty()) {
    return Status::IOError(fmt::format("{}: RocksDB names no MANIFEST among its files", dir));
  }
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(dir + "/" + kManifestLengthFile));
  SG_RETURN_IF_ERROR(out.Append(EncodeRecord(record)));
  return out.Commit();
}

}  // namespace streamglove
