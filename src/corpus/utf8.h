// UTF-8 validation and case mapping on byte strings.
#ifndef STREAMGLOVE_CORPUS_UTF8_H_
#define STREAMGLOVE_CORPUS_UTF8_H_

#include <string>
#include <string_view>

namespace streamglove {

// True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
bool IsValidUtf8(std::string_view s);
// True for the bytes 10xxxxxx that continue a multi-byte sequence.
inline bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The offset of the first byte that starts no well-formed sequence, or npos.
size_t FirstInvalidUtf8(std::string_view s);

// Appends `s` lowercased by Unicode's simple case mapping to *out; bytes that
// are not valid UTF-8 are copied unchanged.
void AppendLowercase(std::string_view s, std::string* out);

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_UTF8_H_
