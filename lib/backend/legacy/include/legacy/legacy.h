// The legacy x_tables backend: each COMMIT block becomes one table
// replacement (IPT_SO_SET_REPLACE / IP6T_SO_SET_REPLACE) through libiptc,
// with the semantics of iptables-legacy-restore: without --noflush every
// chain of the table is flushed and the user chains deleted before the
// block applies; built-in chains keep their policy unless the block sets
// it. The same IR as the nf_tables backend is turned into ipt_entry /
// ip6t_entry records.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

struct RestoreConfig;
class BlockSource;
class RestoreWriter;

namespace legacy {

// The ipt_entry (IPv4) or ip6t_entry (IPv6) for a rule, with its matches
// and target; `mask` (when given) receives the comparison mask iptables
// uses for -D and -C (the bytes userspace owns).
std::vector<unsigned char>
build_entry(const Rule &rule, Family family,
            std::vector<unsigned char> *mask = nullptr);

// The same bytes build_entry gives for to_command(a)'s rule, written at
// `out`, which holds basic_entry_size(a, family) bytes; returns the size.
size_t basic_entry_size(const BasicAppend &a, Family family);
size_t build_basic_entry(const BasicAppend &a, Family family,
                         unsigned char *out);

// The line of a block whose table the kernel refuses, or 0 when it cannot
// be told (no namespace, a block too large to search): in a child in a
// private network namespace, growing prefixes of the block (read again
// from `block`) are loaded, bisecting, until the first one the kernel
// refuses.
int locate_refused_line(const RestoreConfig &cfg, const BlockSource &block);

// The legacy writer (parse/restore_writer.h). When the kernel refuses a
// replaced table, `block` (when given) is read again to name the refused
// line.
std::unique_ptr<RestoreWriter>
make_restore_writer(const RestoreConfig &cfg,
                    const BlockSource *block = nullptr);

} // namespace legacy
} // namespace fastrestore
