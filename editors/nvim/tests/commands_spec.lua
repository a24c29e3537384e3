-- Every :Engram subcommand against the real engram: completion, status,
-- remember on a line range, code lenses, hover, reverify and retract at the
-- cursor, the memories list, an honest empty recall, and delegate.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

local function count(pattern)
  local n = 0
  for _, m in ipairs(h.messages) do
    if m.msg:find(pattern) then
      n = n + 1
    end
  end
  return n
end

local function drifted(buf)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == 'engram.drifted' or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == 'engram.drifted') then
      return d
    end
  end
end

h.run('nvim commands', function()
  local root = h.workspace()
  require('engram').setup({ path = h.binary(), agent = 'human:tester' })
  vim.cmd('edit ' .. root .. '/src/auth.py')
  local buf = vim.api.nvim_get_current_buf()
  local client = h.engram_client(buf)

  h.eq({ 'recall', 'remember', 'restart', 'retract', 'reverify' }, vim.fn.getcompletion('Engram re', 'cmdline'), 'completion')
  h.eq({}, vim.fn.getcompletion('Engram recall ', 'cmdline'), 'no completion after the subcommand')

  vim.cmd('Engram nonsense')
  h.ok(h.message("^engram: unknown subcommand 'nonsense'; use one of: delegate, hover, memories"), 'unknown subcommand')

  -- A report filed by an agent (the CLI, the same ENGRAM_HOME) shows in the status.
  vim.fn.system({
    h.binary(),
    '--root',
    root,
    'report',
    '--class',
    'memory_misdelivery',
    '--kind',
    'false_absence',
    '--what',
    'recall said nothing about the clock',
    '--expected',
    'the clock claim',
  })
  h.eq(0, vim.v.shell_error, 'engram report')
  vim.cmd('Engram status')
  local status = h.wait('the status report', function()
    return h.message('^engram: bound to ')
  end)
  h.ok(status.msg:find(root, 1, true), 'status names the root: ' .. status.msg)
  h.ok(status.msg:find('project  0 live', 1, true), 'status counts the project claims: ' .. status.msg)
  h.ok(status.msg:find('inbox    1 open, 0 in progress', 1, true), 'status counts the inbox: ' .. status.msg)

  -- A line range anchors those lines.
  vim.cmd('3,3Engram remember the module reads the clock through time.time')
  local ranged = h.wait('the range remember', function()
    return h.message('^engram: remembered c%-%w+ on src/auth.py:3%-3$')
  end)
  h.ok(ranged, 'range anchor')

  h.cursor_at('if token.expires_at')
  vim.cmd('Engram remember validate returns ok=False for expired tokens')
  local id = h.wait('the symbol remember', function()
    local m = h.message('on src/auth.py#TokenValidator.validate$')
    return m and m.msg:match('(c%-%w+)')
  end)

  -- The code lens over the method counts its memory.
  vim.lsp.codelens.refresh()
  h.wait('the code lens', function()
    for _, lens in ipairs(vim.lsp.codelens.get(buf) or {}) do
      if lens.command and lens.command.title == '1 memory' then
        return lens
      end
    end
  end)

  -- Hover from engram alone shows the memory with its state.
  vim.cmd('Engram hover')
  local float = h.wait('the hover window', function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then
        local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
        if text:find('validate returns ok=False', 1, true) then
          return text
        end
      end
    end
  end)
  h.ok(float:find('intact', 1, true), 'hover shows the state: ' .. float)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      vim.api.nvim_win_close(win, true)
    end
  end

  -- Drift, then re-verify at the cursor: the diagnostic goes away.
  local row, col = h.cursor_at('"expired"')
  vim.api.nvim_buf_set_text(buf, row - 1, col, row - 1, col + #'"expired"', { '"stale"' })
  h.wait('the drift diagnostic', function()
    return drifted(buf)
  end)
  h.cursor_at('if token.expires_at')
  vim.cmd('Engram reverify checked against the new reason')
  h.wait('the re-verification', function()
    return h.message('^engram: re%-verified ' .. vim.pesc(id))
  end)
  h.wait('the drift diagnostic to clear', function()
    return not drifted(buf)
  end)
  local claim_file = root .. '/.engram/claims/' .. id .. '.md'
  h.ok(table.concat(vim.fn.readfile(claim_file), '\n'):find('verified'), 'the claim file records the re-verification')

  -- The memories list opens the chosen claim's file.
  local offered
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(items[1])
  end
  vim.cmd('Engram memories')
  h.wait('the claim file to open', function()
    return vim.api.nvim_buf_get_name(0) == claim_file
  end)
  vim.ui.select = select
  h.eq(1, #offered, 'memories offered')
  h.ok(offered[1]:find('^%[intact%] memory: validate returns ok=False'), 'the offered row: ' .. offered[1])
  vim.cmd('buffer ' .. buf)

  -- Retract at the cursor, with the reason on the command line.
  h.cursor_at('if token.expires_at')
  vim.cmd('Engram retract validate raises on expiry now')
  h.wait('the retraction', function()
    return h.message('^engram: retracted ' .. vim.pesc(id))
  end)

  -- Nothing matches any more, and the answer says memory exists.
  vim.cmd('Engram recall expired tokens')
  local empty = h.wait('the empty recall', function()
    return h.message('none matched')
  end)
  h.ok(empty.msg:find('^engram: 1 live claim'), 'the empty answer counts the live claims: ' .. empty.msg)

  -- Delegate: a packet in the unnamed register, or a clear "not supported".
  vim.fn.setreg('"', 'before')
  vim.cmd('Engram delegate add refresh tokens')
  local methods = client.server_capabilities.experimental.engram.methods
  if vim.tbl_contains(methods, 'engram/delegate') then
    h.wait('the packet', function()
      return h.message('^engram: memory packet ')
    end)
    h.ok(vim.fn.json_decode(vim.fn.getreg('"')).packet_id, 'the packet is in the register')
  else
    local msg = h.wait('the unsupported message', function()
      return h.message('does not support delegation')
    end)
    h.eq(
      'engram: this engram server does not support delegation (engram/delegate). Update engram to delegate from Neovim.',
      msg.msg,
      'message'
    )
    h.eq('before', vim.fn.getreg('"'), 'the register is untouched')
  end
  h.eq(0, count('stopped unexpectedly'), 'crash messages')
end)
