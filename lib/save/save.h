// The text save's backends (private to lib/save).
#pragma once

#include <string>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "fastrestore/text_save.h"

namespace fastrestore::save {

int save_nft(const TextSaveOptions &opts);
int save_legacy(const TextSaveOptions &opts);
// table_save_text's nf_tables save: the text into `out`; the errors of a
// rule that could not be read (the text stops there).
std::vector<std::string> save_nft_given(const TextSaveOptions &opts,
                                        KernelTable &table, std::string &out,
                                        ChainTexts *texts);

} // namespace fastrestore::save
