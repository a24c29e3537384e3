-- The few LSP client APIs that changed between Neovim 0.7 (Debian 12) and
-- current releases, behind one name each.
local M = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

-- Every running engram client, optionally only those attached to `bufnr`.
function M.clients(bufnr)
  local all
  if vim.lsp.get_clients then
    all = vim.lsp.get_clients({ name = 'engram', bufnr = bufnr })
  elseif bufnr then
    all = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  else
    all = vim.lsp.get_active_clients()
  end
  return vim.tbl_filter(function(c)
    return c.name == 'engram'
  end, all)
end

-- client:request on 0.11+, client.request before (the dot form warns there).
function M.request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  if has_011 then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

function M.stop(client)
  if has_011 then
    return client:stop()
  end
  return client.stop()
end

function M.is_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

-- The client-side LSP position under the cursor, in the client's encoding.
function M.position_params(client)
  return vim.lsp.util.make_position_params(0, client.offset_encoding)
end

return M
