// Quoted: a piece of an input file, made fit for a one-line error message.
//
// Messages quote what they refused (a word, a field, a line), and files
// that are not what they claim hold anything: megabytes without a newline,
// binary, terminal escapes. A quote is therefore bounded and printable:
// at most `max_bytes` of the text (cut at a character's start, "..." and
// the whole length after), with control bytes, bytes that are not UTF-8
// and the backslash written as escapes (\x1b, \xff, \\).
#ifndef STREAMGLOVE_UTIL_QUOTED_H_
#define STREAMGLOVE_UTIL_QUOTED_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace streamglove {

// 'text' as described above, with the quotes.
std::string Quoted(std::string_view text, size_t max_bytes = 48);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_QUOTED_H_
