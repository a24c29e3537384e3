// Which folder a call is about: the rules both servers share
// (ops/Routing.h) over this session's folders.
#include "lsp/LspServer.h"

namespace engram {

LspServer::Route LspServer::route(const ops::RouteHints& hints) {
    auto r = ops::route(folders_->routing(), hints);
    return {folders_->all()[r.index], r.unboundRoot};
}

lsp::Folder& LspServer::bound(const ops::RouteHints& hints) {
    return *folders_->all()[ops::routeBound(folders_->routing(), hints).index];
}

void LspServer::explainUnbound(json& envelope, const std::string& requested) {
    ops::explainUnbound(envelope, folders_->routing(), requested);
}

} // namespace engram
