// Maps a RecordBatch message's field nodes and buffers onto its body.
#ifndef CHUNKWISE_SRC_FORMATS_ARROW_RECORD_BATCH_BODY_H_
#define CHUNKWISE_SRC_FORMATS_ARROW_RECORD_BATCH_BODY_H_

#include <memory>
#include <string_view>

#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/record_batch.h"

namespace chunkwise::formats::arrow::internal {

// The record batch whose nodes and buffers `header` lists, viewing `body`
// (kept alive by `owner`). Corruption naming `context` if a buffer lies
// outside the body, the node or buffer counts do not match the schema, or an
// array fails ValidateArray.
Result<RecordBatch> DecodeRecordBatchBody(const Schema& schema, const RecordBatchHeader& header,
                                          ByteView body, std::shared_ptr<const void> owner,
                                          std::string_view context);

}  // namespace chunkwise::formats::arrow::internal

#endif  // CHUNKWISE_SRC_FORMATS_ARROW_RECORD_BATCH_BODY_H_
