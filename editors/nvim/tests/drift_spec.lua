-- The plugin end to end against the real engram: it attaches to a file of
-- the workspace, `:Engram remember` anchors a claim on the function under the
-- cursor, an unsaved edit of that function's body drifts it (a diagnostic,
-- with the code lens still on screen beside it), and `:Engram recall` lists
-- the claim with its state at its code, placed from the server's range.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

h.run('nvim drift', function()
  local root = h.workspace()
  require('engram').setup({ path = h.binary(), agent = 'human:tester' })

  vim.cmd('edit ' .. root .. '/src/auth.py')
  local buf = vim.api.nvim_get_current_buf()
  local client = h.engram_client(buf)
  h.eq(root, client.config.root_dir, 'root_dir')
  local original = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n')

  -- Remember, with the cursor inside TokenValidator.validate.
  h.cursor_at('if token.expires_at')
  vim.cmd('Engram remember validate returns ok=False for expired tokens instead of raising')
  local done = h.wait('the remember confirmation', function()
    return h.message('^engram: remembered ')
  end)
  local id = done.msg:match('remembered (c%-%w+)')
  h.ok(id, 'the confirmation names the claim: ' .. done.msg)
  h.ok(done.msg:find('on src/auth.py#TokenValidator.validate', 1, true), 'anchored on the method: ' .. done.msg)
  h.ok(vim.loop.fs_stat(root .. '/.engram/claims/' .. id .. '.md'), 'the claim file exists')
  h.eq({}, vim.diagnostic.get(buf), 'diagnostics of a fresh claim')

  -- An unsaved edit inside the method's body.
  local row, col = h.cursor_at('"expired"')
  vim.api.nvim_buf_set_text(buf, row - 1, col, row - 1, col + #'"expired"', { '"stale"' })
  h.ok(vim.bo[buf].modified, 'the edit is unsaved')
  local drifted = h.wait('an engram.drifted diagnostic', function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == 'engram.drifted' or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == 'engram.drifted') then
        return d
      end
    end
  end)
  h.eq('engram', drifted.source, 'source')
  h.eq(vim.diagnostic.severity.WARN, drifted.severity, 'severity')
  h.ok(drifted.message:find('validate returns ok=False', 1, true), 'the message carries the claim: ' .. drifted.message)
  local def_line = h.cursor_at('def validate')
  h.eq(def_line - 1, drifted.lnum, 'the diagnostic sits on the method')
  -- The drift comes from the buffer: the file on disk is untouched.
  h.eq(original, table.concat(vim.fn.readfile(root .. '/src/auth.py'), '\n'), 'the file on disk')

  -- The code lens and the diagnostic's virtual text share the method's line;
  -- both are on screen (the lens on a line of its own above it).
  require('engram.lens').refresh(buf)
  vim.cmd('normal! gg')
  local function screen()
    vim.cmd('redraw!')
    local rows = {}
    for r = 1, vim.o.lines do
      local s = {}
      for col = 1, vim.o.columns do
        table.insert(s, vim.fn.screenstring(r, col))
      end
      rows[r] = table.concat(s)
    end
    return rows
  end
  local last = {}
  local ok, rows = pcall(h.wait, 'the lens and the diagnostic on screen', function()
    local rows = screen()
    last = rows
    local lens, diag
    for r, text in ipairs(rows) do
      lens = lens or (text:find('1 memory · 1 drifted', 1, true) and r)
      diag = diag or (text:find('def validate', 1, true) and text:find('drifted: TokenValidator.validate', 1, true) and r)
    end
    return lens and diag and { lens = lens, diag = diag, text = rows }
  end)
  h.ok(ok, 'the lens and the diagnostic on screen:\n' .. table.concat(last, '\n'))
  h.eq(rows.diag - 1, rows.lens, 'the lens sits on the line above the method: ' .. table.concat(rows.text, '\n'))

  -- A configuration refreshing every server's lenses through Neovim's own
  -- call draws engram's once, still above the method.
  vim.lsp.codelens.refresh()
  h.wait('the builtin refresh to come back', function()
    return vim.lsp.codelens.get(buf) and #vim.lsp.codelens.get(buf) > 0
  end)
  vim.wait(200)
  local drawn = {}
  for name, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
      local d = m[4]
      local text = vim.inspect({ d.virt_text, d.virt_lines })
      if text:find('1 memory · 1 drifted', 1, true) then
        table.insert(drawn, name)
      end
    end
  end
  h.eq({ 'engram_codelens' }, drawn, 'the lens is drawn once, by the plugin')

  -- Code above the method moves it down (unsaved).
  vim.api.nvim_buf_set_lines(buf, 0, 0, true, { '# moved down', '' })
  def_line = h.cursor_at('def validate')

  -- Recall lists the claim, drifted, at the method as it is now: the row
  -- carries its place, so no per-file engram/anchors request is sent.
  local compat = require('engram.compat')
  local sent, request = {}, compat.request
  compat.request = function(c, method, ...)
    table.insert(sent, method)
    return request(c, method, ...)
  end
  vim.fn.setqflist({}, 'r')
  vim.cmd('Engram recall expired tokens')
  local item = h.wait('the recalled claim in the quickfix list', function()
    for _, it in ipairs(vim.fn.getqflist()) do
      if it.text:find(id, 1, true) then
        return it
      end
    end
  end)
  h.ok(item.text:find('^%[drifted%] fact: validate returns ok=False'), 'the row leads with its state: ' .. item.text)
  h.ok(item.text:find('(project · ', 1, true), 'the row names its tier: ' .. item.text)
  h.ok(item.text:find('human:tester', 1, true), 'the row names its author: ' .. item.text)
  h.eq(root .. '/src/auth.py', vim.api.nvim_buf_get_name(item.bufnr), 'the row points at the file')
  h.eq(def_line, item.lnum, 'the row points at the method')
  h.eq(5, item.col, 'at its column (the method is indented by 4)')
  compat.request = request
  h.eq({ 'engram/recall' }, vim.tbl_filter(function(m)
    return m:find('^engram/')
  end, sent), 'the requests recall sent')
  h.eq('engram recall: expired tokens', vim.fn.getqflist({ title = 1 }).title, 'quickfix title')
  h.ok(h.message('^engram: 1 memory %(1 unverified%)'), 'the summary counts the unverified memory')
end)
