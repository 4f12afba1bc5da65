// `fastrestore diff`: what loading restore input would change, as a
// unified diff of the tables' saves, sending nothing.
#pragma once

#include "program.h"

namespace fastrestore {

// argv[1] is "diff". Exit status as diff(1): 0 the same, 1 different,
// 2 trouble.
int diff_main(const Program &program, int argc, char **argv);

} // namespace fastrestore
