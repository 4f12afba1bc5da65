// Work in a new, empty network namespace: a forked child unshares one and
// runs the given function there, so that nothing it does reaches the
// caller's namespace (the legacy failure locator loads trial tables there;
// the ebtables command line lists and edits atomic files there). Standard
// output is flushed before the fork (the child would print it again) and
// by the child when the function returns.
#pragma once

#include <functional>
#include <optional>

namespace fastrestore {

struct NetnsFailure {
  enum Stage { none, fork, unshare } stage = none;
  int error = 0; // errno
};

// fn's value, or nullopt when no child or no namespace could be made (the
// reason in *failure, when given) or the child died before returning.
std::optional<int> in_private_netns(const std::function<int()> &fn,
                                    NetnsFailure *failure = nullptr);

} // namespace fastrestore
