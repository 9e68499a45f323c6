// FileDescriptorOf: the open file behind a FileStore's ValueReader, for a
// server that hands a value's bytes to a socket without copying them
// (sendfile(2); store/http_server.cc). Private to the store layer.
#ifndef CHUNKWISE_SRC_STORE_FILE_DESCRIPTOR_OF_H_
#define CHUNKWISE_SRC_STORE_FILE_DESCRIPTOR_OF_H_

#include "chunkwise/store/value_reader.h"

namespace chunkwise::store {

// The descriptor `reader` reads through when a FileStore opened it (the
// file it was opened on, links followed and, for a confined store, checked
// inside the root); -1 for any other reader. Owned by the reader: valid
// while it lives, never to be closed, and read at explicit offsets only
// (pread, sendfile with an offset), as the reader's own reads share it.
int FileDescriptorOf(const ValueReader& reader);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_FILE_DESCRIPTOR_OF_H_
