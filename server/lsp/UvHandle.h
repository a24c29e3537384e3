// Closing libuv handles owned through raw pointers (lsp/ only).
#pragma once
#include <uv.h>

namespace engram::lsp {

// Closes a libuv handle and frees it once libuv is done with it (libuv may
// still touch a handle until its close callback runs, so it cannot be freed
// at once).
template <class H>
void closeHandle(H*& h) {
    if (!h) return;
    uv_close(reinterpret_cast<uv_handle_t*>(h),
             [](uv_handle_t* p) { delete reinterpret_cast<H*>(p); });
    h = nullptr;
}

} // namespace engram::lsp
