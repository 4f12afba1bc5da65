// Private to lib/snapshot: the backend parts behind save() and commit()
// (fastrestore/snapshot.h).
#pragma once

#include <linux/netlink.h>

#include <iosfwd>
#include <string>

#include "fastrestore/ir.h"
#include "fastrestore/snapshot.h"
#include "format.h"

namespace fastrestore::snapshot {

// Backend parts, behind save() and commit().
void save_nft(class FileWriter &file, Header &h, const Options &opts,
              std::vector<TableEntry> &dir);
void commit_nft(const View &view, const Options &opts);
// The messages of an nf_tables snapshot, each checked to be a whole NEW*
// message of the snapshot's family for one of its tables; throws
// SnapshotError naming the first that is not.
std::vector<const nlmsghdr *> nft_messages(const View &view);
void save_legacy(class FileWriter &file, Header &h, const Options &opts,
                 std::vector<TableEntry> &dir);
void commit_legacy(const View &view, const Options &opts);

} // namespace fastrestore::snapshot
