// Shared libraries opened on first use (dlopen), not at start: each
// library the loader maps and relocates at start costs every process, and
// the iptables command line starts one process a command. libiptc (the
// legacy backend's) and libipset (ipset saves and loads) are opened so.
#pragma once

namespace fastrestore {

// The function `name` of the library `soname`, which is opened on the
// first call and stays open. As the dynamic loader does for a library
// missing at start, a library or function that cannot be found ends the
// process: status 127, with the loader's message.
void *library_function(const char *soname, const char *name);

} // namespace fastrestore
