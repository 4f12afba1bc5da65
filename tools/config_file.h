// /etc/fastrestore.conf: settings for callers that run fastrestore under
// an original tool's name and cannot add its options (kube-proxy, Calico,
// Neutron, ufw and netfilter-persistent call iptables-restore). Read with
// Boost.Program_options' config-file parser ("name = value" lines, '#'
// comments). It may hold only settings that change how a restore runs,
// never what it means:
//   incremental = true|false   as --incremental
//   coalesce = MS              as --coalesce MS
//   stats = true|false         as --stats
// Any other name (noflush, table, test, counters, ...) is refused, naming
// its line, and so is a setting with no value. Options on the command
// line win. FASTRESTORE_CONFIG names another file (for tests); a missing
// file is no error. The file is read by every restore, boot included, so
// it is obeyed only when it is a regular file of at most 64 KiB, owned by
// root and writable by root alone, reached through no symlink another
// user owns; anything else (a FIFO, a device, a mode-666 file) is refused
// with the reason.
#pragma once

#include <boost/program_options.hpp>

#include <string>

#include "fastrestore/restore_options.h"

namespace fastrestore {

// The file's path: $FASTRESTORE_CONFIG, else /etc/fastrestore.conf.
std::string config_file_path();

// Applies the file's settings to `cfg` where the command line (`given`)
// did not set them. Returns false, with `error` set ("PATH, line N: ..."),
// when the file cannot be read or holds what it may not.
bool apply_config_file(const std::string &path,
                       const boost::program_options::variables_map &given,
                       RestoreConfig &cfg, std::string &error);

} // namespace fastrestore
