// The text save's backends (private to lib/save).
#pragma once

#include "fastrestore/text_save.h"

namespace fastrestore::save {

int save_nft(const TextSaveOptions &opts);
int save_legacy(const TextSaveOptions &opts);

} // namespace fastrestore::save
