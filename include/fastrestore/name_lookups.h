// How many host names this process has looked up (getaddrinfo,
// gethostbyname, gethostbyname2): a rule line whose parsing looked one up
// may mean something else the next time it is read, so the incremental
// restore never takes such a line as unchanged without parsing it.
// Counted by definitions of those functions in front of libc's, which
// libxtables and its plugins reach through the dynamic linker.
#pragma once

#include <cstdint>

namespace fastrestore {

uint64_t host_lookups();

} // namespace fastrestore
