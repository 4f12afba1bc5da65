// The legacy x_tables backend: each COMMIT block becomes one table
// replacement (IPT_SO_SET_REPLACE / IP6T_SO_SET_REPLACE) through libiptc,
// with the semantics of iptables-legacy-restore: without --noflush every
// chain of the table is flushed and the user chains deleted before the
// block applies; built-in chains keep their policy unless the block sets
// it. The same IR as the nf_tables backend is turned into ipt_entry /
// ip6t_entry records.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "fastrestore/ir.h"
#include "fastrestore/restore_parser.h"

namespace fastrestore {

struct RestoreConfig;

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

// Finds the input line that makes the kernel refuse a table, or 0, and
// puts the line's text in `source`.
using Locator = std::function<int(std::string &source)>;

// A BlockSink that applies each block through libiptc and commits it. When
// the kernel refuses a replaced table, `locate` (if set) names the line.
std::unique_ptr<BlockSink> make_block_writer(const RestoreConfig &cfg,
                                             Locator locate = {});

// The line of a block whose table the kernel refuses, or 0 when it cannot
// be told (no namespace, a block too large to search): in a child in a
// private network namespace, growing prefixes of the block are loaded
// (bisecting) until the first one the kernel refuses. The block's lines
// are first..first+count-1 (its table line first, its COMMIT last);
// load_prefix(sink, k) feeds the table line, the k lines after it and the
// COMMIT into sink.
using PrefixLoader = std::function<void(BlockSink &sink, int k)>;
int locate_refused_line(const RestoreConfig &cfg, int first, int count,
                        const PrefixLoader &load_prefix);

} // namespace legacy
} // namespace fastrestore
