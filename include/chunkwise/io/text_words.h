// The words of one line of a text geometry file (SWC, OBJ): runs of anything
// but blanks, where a blank is a space, a tab or a carriage return (files
// written on Windows end their lines with "\r\n").
#ifndef CHUNKWISE_IO_TEXT_WORDS_H_
#define CHUNKWISE_IO_TEXT_WORDS_H_

#include <string_view>
#include <vector>

namespace chunkwise::io {

// Views into `line`, in order; none is empty.
std::vector<std::string_view> SplitWords(std::string_view line);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_TEXT_WORDS_H_
