// flatbuffers::Verifier walks over Arrow's Message and Footer tables, written
// by hand in place of generated code. Each returns false on the first field
// that does not lie inside the buffer or is misaligned; only fields verified
// here are read by the decoder.
#ifndef CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_VERIFY_H_
#define CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_VERIFY_H_

#include <flatbuffers/flatbuffers.h>

#include "chunkwise/core/bytes.h"

namespace chunkwise::formats::arrow::internal {

bool VerifyMessageTable(flatbuffers::Verifier& verifier, const flatbuffers::Table* message);
bool VerifyFooterTable(flatbuffers::Verifier& verifier, const flatbuffers::Table* footer);

// The root table of `buffer` after checking its root offset, or nullptr.
// REQUIRES: buffer.size() < 2 GiB (the verifier's limit).
const flatbuffers::Table* RootTable(flatbuffers::Verifier& verifier, ByteView buffer);

}  // namespace chunkwise::formats::arrow::internal

#endif  // CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_VERIFY_H_
