// Contradiction by modality: "callers must check .ok" against "callers must
// not check .ok", "is thread-safe" against "is not thread-safe", "always
// retries" against "never retries".
//
// Used where two claims speak about the same thing (the same anchor or the
// same label): contribute flags a contribution that contradicts a committed
// claim, and findings publish engram.conflict for two live claims that do.
// It is a cheap lexical test, not understanding: it looks for the same modal
// verb with opposite polarity followed by overlapping content words, so it
// misses paraphrases and never claims more than "these two disagree on X".
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace engram {

struct ModalityConflict {
    std::string modal;    // the modal class both use: must, can, do, is, will, have, always
    std::string positive; // the affirming phrase as found ("must check ok")
    std::string negative; // the denying phrase ("must not check ok")
};

// The first contradiction between a and b, or nullopt.
std::optional<ModalityConflict> contradiction(std::string_view a, std::string_view b);

// Two statements that give one thing different numbers ("retries are 3"
// against "retries are 5"): the same word followed by a number in each, and
// the numbers differ. `modal` is "number"; the phrases are "are 3", "are 5".
std::optional<ModalityConflict> numberClash(std::string_view a, std::string_view b);

} // namespace engram
