// `fastrestore apply`: load a file, and put the tables it replaced back
// unless the change is confirmed in time (what iptables-apply does, with
// the rollback in a process the login's end does not stop).
#pragma once

#include "program.h"

namespace fastrestore {

// argv[1] is "apply". Exit status: 0 the change stays (confirmed, or
// left waiting for `apply --confirm` when there is no terminal to ask);
// 3 rolled back; 4 not confirmed but left, the tables having changed
// since the load; 1 the rollback failed, or nothing waits for a
// confirmation; the restore's own status when the load fails (nothing
// changed then); 2 a bad command line.
int apply_main(const Program &program, int argc, char **argv);

} // namespace fastrestore
