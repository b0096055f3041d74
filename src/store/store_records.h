// Encodings of the store's metadata records (keys and values; see store.h
// for the key layout and docs/formats.md for the specification). All are on
// disk: never change them without a new kStoreFormatVersion.
//
// Decoders return false on a malformed value, never a partly filled result
// that looks valid; the caller adds the store directory and key as context.
#ifndef STREAMGLOVE_STORE_STORE_RECORDS_H_
#define STREAMGLOVE_STORE_STORE_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "store/store.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

inline constexpr char kConfigKey[] = "M/config";
inline constexpr char kInputKeyPrefix[] = "M/input/";
inline constexpr char kProgressKey[] = "M/progress";
// The last ingest that added words: varint(its first id) varint(words added).
inline constexpr char kAdditionKey[] = "M/addition";
// Inputs whose every word the (growing) vocabulary holds: varint(n) then n
// length-prefixed keys naming them (Store::SetWordsHeld). Optional: absent,
// none is known.
inline constexpr char kWordsHeldKey[] = "M/words-held";
inline constexpr char kVocabKeyPrefix = 'V';
// The store's PairTotals: varint(pairs) varint(flags: 1 = pairs exact)
// varint(units' low 64 bits) varint(units' high 64 bits). After every other
// key, so that a commit writes it in a file of its own. Absent in a store
// of an earlier build (StoreConfig::keeps_totals), whose pairs are counted.
inline constexpr char kTotalsKey[] = "W/totals";

// The first bytes of every config value.
inline constexpr char kConfigMagic[] = "SGST";

std::string InputKey(std::string_view fingerprint);
std::string VocabKey(uint32_t id);
// False when `key` is not a vocabulary key.
bool DecodeVocabKey(std::string_view key, uint32_t* id);

// "SGST" | varint(format_version) | rest. Only the magic and the version are
// read by DecodeConfigVersion(), so a newer store is recognised as such
// whatever the rest of its record holds.
void EncodeConfig(const StoreConfig& config, std::string* out);
bool DecodeConfigVersion(std::string_view value, uint32_t* format_version);
// REQUIRES: DecodeConfigVersion() gave 1 to kStoreFormatVersion. A version 1
// record is read as a fixed vocabulary with no further cut. EncodeConfig
// writes config.format_version's layout.
bool DecodeConfig(std::string_view value, StoreConfig* config);

// The key carries the fingerprint; the value the rest.
void EncodeInputRecord(const InputRecord& record, std::string* out);
bool DecodeInputRecord(std::string_view fingerprint, std::string_view value, InputRecord* record);

void EncodeProgress(const IngestProgress& progress, std::string* out);
bool DecodeProgress(std::string_view value, IngestProgress* progress);

// kWordsHeldKey's value.
std::string EncodeWordsHeld(const std::vector<std::string>& keys);
bool DecodeWordsHeld(std::string_view value, std::vector<std::string>* keys);

// kAdditionKey's value.
std::string EncodeAddition(uint64_t first_id, uint64_t words);
bool DecodeAddition(std::string_view value, uint64_t* first_id, uint64_t* words);

// kTotalsKey's value.
std::string EncodeTotals(const PairTotals& totals);
bool DecodeTotals(std::string_view value, PairTotals* totals);

// "word\tcount", the count in decimal.
void EncodeVocabValue(const VocabEntry& entry, std::string* out);
bool DecodeVocabValue(std::string_view value, VocabEntry* entry);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_STORE_RECORDS_H_
