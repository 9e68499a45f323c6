#include "chunkwise/core/communicator.h"

#include <algorithm>
#include <charconv>

namespace chunkwise::core {

Result<std::vector<std::string>> SingleProcess::Gather(std::string_view value) {
  return std::vector<std::string>{std::string(value)};
}

Result<std::string> SingleProcess::Broadcast(std::string_view value) { return std::string(value); }

// "" for OK, else "<code number> <message>", or "<code number>:<field> <message>"
// when the status names a field (a field is a name, without spaces).
std::string EncodeStatus(const Status& status) {
  if (status.ok()) return "";
  std::string text = std::to_string(static_cast<int>(status.code()));
  if (!status.field().empty()) text += ":" + std::string(status.field());
  return text + " " + std::string(status.message());
}

Status DecodeStatus(std::string_view text) {
  if (text.empty()) return Status::Ok();
  int code = 0;
  const char* const stop = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), stop, code);
  const char* const space = std::find(end, stop, ' ');
  if (error != std::errc() || space == stop || (end != space && *end != ':') ||
      code < static_cast<int>(StatusCode::kInvalidArgument) ||
      code > static_cast<int>(StatusCode::kCancelled)) {
    return Status::Internal("a rank sent a status that does not decode: " + std::string(text));
  }
  const Status status(static_cast<StatusCode>(code), std::string(space + 1, stop));
  return end == space ? status : status.WithField(std::string_view(end + 1, space));
}

Status ShareRootStatus(Communicator& ranks, const Status& status) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string shared,
                             ranks.Broadcast(ranks.rank() == 0 ? EncodeStatus(status) : ""));
  return DecodeStatus(shared);
}

namespace {

// Rank 0: the first failure among the gathered outcomes ("!" + status) named by its rank.
Status FirstFailure(const std::vector<std::string>& outcomes, int size) {
  Status first;
  int failed = 0;
  for (std::size_t r = 0; r < outcomes.size(); ++r) {
    if (outcomes[r].empty() || outcomes[r][0] != '!') continue;
    if (failed++ != 0) continue;
    first = DecodeStatus(std::string_view(outcomes[r]).substr(1));
    // A one-process job's errors read as they always have.
    if (size > 1)
      first = first.WithContext("rank " + std::to_string(r) + " of " + std::to_string(size));
  }
  if (failed > 1) {
    first = Status(first.code(),
                   std::string(first.message()) + " (" + std::to_string(failed) + " ranks failed)")
                .WithField(first.field());
  }
  return first;
}

}  // namespace

Result<std::vector<std::string>> GatherOutcomes(Communicator& ranks,
                                                const Result<std::string>& outcome) {
  // "!" + status for a failure, "=" + value for a success.
  const std::string mine = outcome.ok() ? "=" + *outcome : "!" + EncodeStatus(outcome.status());
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> outcomes, ranks.Gather(mine));
  const Status failure = ranks.rank() == 0 ? FirstFailure(outcomes, ranks.size()) : Status::Ok();
  CHUNKWISE_RETURN_IF_ERROR(ShareRootStatus(ranks, failure));
  for (std::string& value : outcomes) value.erase(0, 1);
  return outcomes;
}

}  // namespace chunkwise::core
