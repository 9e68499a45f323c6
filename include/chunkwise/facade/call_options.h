// CallOptions: what one facade call runs with, apart from the Context.
//
// A Context holds what lives as long as the program (pools, buffers, the
// stores opened by URL); a call's own choices travel with the call, so that
// one Context serves every call of a CLI run or of a Python session, however
// each is watched or stopped. Pointers are borrowed: the caller keeps them
// alive until the call returns.
#ifndef CHUNKWISE_FACADE_CALL_OPTIONS_H_
#define CHUNKWISE_FACADE_CALL_OPTIONS_H_

#include <cstddef>
#include <optional>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"

namespace chunkwise {

struct CallOptions {
  // Worker threads for this call; 0: the context's pools.
  std::size_t threads = 0;
  // How progress is printed on stderr; absent: as the context says.
  std::optional<core::ProgressMode> progress_mode = std::nullopt;
  // Told of this call's counts, in place of the context's observer; may be null.
  core::ProgressObserver* observer = nullptr;
  // Checked as the call goes, in place of the context's flag; may be null.
  const core::Cancellation* cancellation = nullptr;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CALL_OPTIONS_H_
