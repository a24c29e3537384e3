-- engram's code lenses ("2 memories · 1 drifted"), asked of engram alone and
-- drawn on a line of their own above the symbol, as VS Code draws them.
-- Neovim's own display puts a lens at the end of the symbol's line, which
-- engram's drift diagnostic shares: on 0.7 the diagnostic's virtual text
-- comes first and pushes the lens past the window's edge, so the one line
-- that most needs its lens showed none.
local compat = require('engram.compat')

local M = {}

local ns = vim.api.nvim_create_namespace('engram_codelens')
M.namespace = ns

-- Draws `lenses` (textDocument/codeLens's answer) in `bufnr`, replacing the
-- ones drawn before.
function M.display(bufnr, lenses)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local by_line = {}
  for _, lens in ipairs(lenses or {}) do
    local title = type(lens.command) == 'table' and lens.command.title
    if type(title) == 'string' and title ~= '' then
      local line = lens.range.start.line
      by_line[line] = by_line[line] or {}
      table.insert(by_line[line], title)
    end
  end
  local count = vim.api.nvim_buf_line_count(bufnr)
  for line, titles in pairs(by_line) do
    local title = table.concat(titles, ' | ')
    if line == 0 and line < count then
      -- A virtual line above the first one shows only once the window is
      -- scrolled past the top: the lens of a whole-file anchor stays at
      -- the end of line 1 instead.
      vim.api.nvim_buf_set_extmark(bufnr, ns, 0, 0, { virt_text = { { title, 'LspCodeLens' } }, hl_mode = 'combine' })
    elseif line < count then
      local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
      -- Indented as the symbol is; tabs as the spaces they show as.
      local indent = string.rep(' ', vim.fn.strdisplaywidth(text:match('^%s*')))
      vim.api.nvim_buf_set_extmark(bufnr, ns, line, 0, {
        virt_lines = { { { indent .. title, 'LspCodeLens' } } },
        virt_lines_above = true,
      })
    end
  end
end

-- A configuration that refreshes every server's lenses itself (an autocmd
-- calling vim.lsp.codelens.refresh(), as many do) gets engram's answer drawn
-- by Neovim's display too: at the end of the line, twice. Neovim's handler
-- draws through vim.lsp.codelens.display, so engram's clients are routed to
-- this module's drawing there; every other server's lenses are untouched.
local routed = false
function M.route_builtin_display()
  local codelens = vim.lsp.codelens
  if routed or type(codelens.display) ~= 'function' then
    return
  end
  routed = true
  local builtin = codelens.display
  codelens.display = function(lenses, bufnr, client_id, ...)
    local client = vim.lsp.get_client_by_id(client_id)
    if client and client.name == 'engram' then
      return M.display(bufnr, lenses)
    end
    return builtin(lenses, bufnr, client_id, ...)
  end
end

-- Asks engram (and no other server) for the buffer's lenses and draws them.
-- They are also stored where vim.lsp.codelens.get() and run() find them.
function M.refresh(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  for _, client in ipairs(compat.clients(bufnr)) do
    compat.request(client, 'textDocument/codeLens', params, function(err, result)
      if err then
        return
      end
      if vim.lsp.codelens.save then
        vim.lsp.codelens.save(result, bufnr, client.id)
      end
      M.display(bufnr, result)
    end, bufnr)
  end
end

return M
