// Rules whose meaning the kernel settles when the rule is made, from
// something other than the rule's text: `-m cgroup --path` (the kernel
// looks the path up and holds that cgroup) and `-m bpf --object-pinned`
// (the plugin opens the pinned program; the kernel holds the program the
// descriptor named). The same line loaded again may mean another cgroup or
// program, so the incremental restore parses such a line every time and
// never keeps the kernel's rule for it: it is made again, as a full
// restore would.
#pragma once

#include "fastrestore/ir.h"

namespace fastrestore {

bool kernel_resolved(const Rule &rule);

} // namespace fastrestore
