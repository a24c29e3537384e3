-- What `:Engram <subcommand>` does: each sends engram requests to the
-- server of the current buffer and shows the answer (a message, the quickfix
-- list, a selection).
local client = require('engram.client')
local compat = require('engram.compat')
local locate = require('engram.locate')
local render = require('engram.render')

local M = {}

local levels = vim.log.levels

local function notify(msg, level)
  vim.notify(msg, level or levels.INFO, { title = 'engram' })
end

-- The engram client for the current buffer, or nil after saying why.
local function current()
  local c = client.for_buffer(0)
  if not c then
    notify(
      'engram: no engram server for this buffer. Open a file in a directory holding .engram/ or .git/, '
        .. 'or run :Engram restart.',
      levels.WARN
    )
  end
  return c
end

-- An engram request whose error becomes a message; `on_result` sees only success.
local function request(c, method, params, on_result)
  compat.request(c, method, params, function(err, result)
    if err then
      notify(render.error(err, method), levels.ERROR)
      return
    end
    on_result(result)
  end, vim.api.nvim_get_current_buf())
end

local function agent(c)
  return (c.config.init_options or {}).agent or require('engram.config').agent()
end

local function refresh_lenses()
  require('engram.lens').refresh(0)
end

-- The current buffer's URI when the file is inside the client's root.
local function buffer_uri(c)
  local name = vim.api.nvim_buf_get_name(0)
  local root = c.config.root_dir
  if name == '' or not root or name:sub(1, #root + 1) ~= root .. '/' then
    return nil
  end
  return vim.uri_from_bufnr(0)
end

local function relative(c, path)
  local root = c.config.root_dir
  if path:sub(1, #root + 1) == root .. '/' then
    return path:sub(#root + 2)
  end
  return path
end

-- remember ---------------------------------------------------------------

-- `text` is what to remember (asked for when empty). With a range
-- (`:'<,'>Engram remember`) the claim is anchored to those lines; without,
-- to the innermost definition around the cursor.
function M.remember(text, range)
  local c = current()
  if not c then
    return
  end
  local uri = buffer_uri(c)
  if not uri then
    notify('engram: this buffer is not a file inside ' .. c.config.root_dir .. '.', levels.WARN)
    return
  end
  local anchor
  if range and range.count and range.count > 0 then
    anchor = {
      uri = uri,
      range = {
        start = { line = range.line1 - 1, character = 0 },
        ['end'] = { line = range.line2 - 1, character = 0 },
      },
    }
  else
    anchor = { uri = uri, position = compat.position_params(c).position }
  end
  local function send(input)
    if not input or vim.trim(input) == '' then
      return
    end
    local params = { text = vim.trim(input), agent = agent(c), anchors = { anchor } }
    request(c, 'engram/remember', params, function(result)
      local claim = result.claim
      local where = render.anchor(claim.anchors[1])
      local version = result.superseded ~= vim.NIL and result.superseded and (' (version ' .. claim.version .. ')')
        or ''
      notify(('engram: remembered %s%s%s'):format(claim.id, where and (' on ' .. where) or '', version))
      refresh_lenses()
    end)
  end
  if text and vim.trim(text) ~= '' then
    send(text)
  else
    vim.ui.input({ prompt = 'engram: remember: ' }, send)
  end
end

-- recall -----------------------------------------------------------------

local function claim_file(result, row)
  for _, store in ipairs(result.envelope.store) do
    if store.tier == row.tier then
      return store.path .. '/claims/' .. row.id .. '.md'
    end
  end
  return nil
end

-- Quickfix items for recall rows, each at its anchor as the code is now:
-- engram says where (`current`, an LSP range, in the file the code is in
-- now). A server older than that (no `current`) is asked for each file's
-- anchors instead; a claim without code to point at is listed at its claim
-- file.
local function quickfix_items(c, result, done)
  local root = c.config.root_dir
  local items, pending = {}, {}
  for i, row in ipairs(result.rows) do
    local a = row.anchors[1]
    local item = { text = render.row(row), filename = claim_file(result, row), lnum = 1, col = 1 }
    if a and type(a.current) == 'table' then
      item.filename = root .. '/' .. a.current.path
      item.lnum = a.current.range.start.line + 1
      item.col = a.current.range.start.character + 1
    elseif a and a.state == 'orphaned' then
      -- Its code is gone: the item stays at the claim file, which says what was meant.
    elseif a and a.range and a.range ~= vim.NIL then
      item.filename, item.lnum = root .. '/' .. a.path, a.range.start_line
    elseif a and a.symbol and a.symbol ~= vim.NIL then
      pending[a.path] = pending[a.path] or {}
      table.insert(pending[a.path], i)
    elseif a then
      item.filename = root .. '/' .. a.path
    end
    items[i] = item
  end
  local waiting = vim.tbl_count(pending)
  if waiting == 0 then
    return done(items)
  end
  for path, indexes in pairs(pending) do
    local uri = vim.uri_from_fname(root .. '/' .. path)
    compat.request(c, 'engram/anchors', { uri = uri }, function(err, found)
      for _, i in ipairs(indexes) do
        local at = not err and found and locate.current(found.anchors, result.rows[i].id, path)
        if at and at.range then
          items[i].filename = root .. '/' .. at.path
          items[i].lnum = at.range.start.line + 1
          items[i].col = at.range.start.character + 1
        end
      end
      waiting = waiting - 1
      if waiting == 0 then
        done(items)
      end
    end, vim.api.nvim_get_current_buf())
  end
end

function M.recall(query)
  local c = current()
  if not c then
    return
  end
  query = vim.trim(query or '')
  local params = { limit = 50, query = query ~= '' and query or nil, uri = buffer_uri(c) }
  request(c, 'engram/recall', params, function(result)
    if #result.rows == 0 then
      notify(render.empty_recall(query, result))
      return
    end
    quickfix_items(c, result, function(items)
      local title = 'engram recall' .. (query ~= '' and (': ' .. query) or '')
      vim.fn.setqflist({}, ' ', { title = title, items = items })
      vim.cmd('botright copen')
      local unverified = 0
      for _, r in ipairs(result.rows) do
        if r.anchor_state == 'drifted' or r.anchor_state == 'orphaned' then
          unverified = unverified + 1
        end
      end
      notify(
        ('engram: %d memor%s%s'):format(
          #items,
          #items == 1 and 'y' or 'ies',
          unverified > 0 and (' (' .. unverified .. ' unverified)') or ''
        )
      )
    end)
  end)
end

-- status -----------------------------------------------------------------

function M.status()
  local c = current()
  if not c then
    return
  end
  -- An empty Lua table would be sent as [] (an array); engram wants an object.
  request(c, 'engram/status', vim.empty_dict(), function(result)
    notify(table.concat(render.status_lines(result), '\n'))
  end)
end

-- the memories on the symbol under the cursor ---------------------------

local function memories_here(c, ids, on_entries)
  local uri = buffer_uri(c)
  if not uri then
    notify('engram: this buffer is not a file inside ' .. c.config.root_dir .. '.', levels.WARN)
    return
  end
  request(c, 'engram/anchors', { uri = uri }, function(result)
    local entries
    if ids then
      entries = vim.tbl_filter(function(e)
        return vim.tbl_contains(ids, e.claim_id)
      end, result.anchors)
    else
      entries = locate.at(result.anchors, compat.position_params(c).position)
    end
    if #entries == 0 then
      notify('engram: no memory is anchored on the symbol under the cursor.')
      return
    end
    on_entries(locate.unverified_first(entries))
  end)
end

local function choose(entries, prompt, on_choice)
  if #entries == 1 then
    return on_choice(entries[1])
  end
  vim.ui.select(entries, { prompt = prompt, format_item = render.anchor_entry }, function(e)
    if e then
      on_choice(e)
    end
  end)
end

local function open_claim(c, id)
  request(c, 'engram/get', { id = id }, function(result)
    vim.cmd('edit ' .. vim.fn.fnameescape(result.claim.file))
  end)
end

-- Lists the memories on the symbol under the cursor (or those `ids` name,
-- from a code lens); choosing one opens its claim file.
function M.memories(ids)
  local c = current()
  if not c then
    return
  end
  memories_here(c, ids, function(entries)
    vim.ui.select(entries, { prompt = 'engram: memories', format_item = render.anchor_entry }, function(e)
      if e then
        open_claim(c, e.claim_id)
      end
    end)
  end)
end

function M.show_ids(_, ids)
  M.memories(ids)
end

-- reverify / retract -----------------------------------------------------

-- The claim `arg` names ("c-..."), else one chosen among those at the cursor.
local function target(c, arg, prompt, on_id)
  local id, rest = (arg or ''):match('^%s*(c%-%w+)%s*(.-)%s*$')
  if id then
    return on_id(id, rest)
  end
  memories_here(c, nil, function(entries)
    choose(entries, prompt, function(e)
      on_id(e.claim_id, vim.trim(arg or ''))
    end)
  end)
end

function M.reverify(arg)
  local c = current()
  if not c then
    return
  end
  target(c, arg, 'engram: which memory did you check against the code?', function(id, note)
    local params = { id = id, agent = agent(c), note = note ~= '' and note or 're-verified from Neovim' }
    request(c, 'engram/reverify', params, function(result)
      notify(('engram: re-verified %s; its anchor now matches the current code.'):format(result.claim.id))
      refresh_lenses()
    end)
  end)
end

function M.retract(arg)
  local c = current()
  if not c then
    return
  end
  target(c, arg, 'engram: which memory to retract?', function(id, reason)
    local function send(why)
      if not why or vim.trim(why) == '' then
        notify('engram: a retraction records its reason; nothing was retracted.', levels.WARN)
        return
      end
      request(c, 'engram/retract', { id = id, agent = agent(c), reason = vim.trim(why) }, function(result)
        notify(('engram: retracted %s (its history is kept).'):format(result.claim.id))
        refresh_lenses()
      end)
    end
    if reason ~= '' then
      send(reason)
    else
      vim.ui.input({ prompt = 'engram: why is it no longer true? ' }, send)
    end
  end)
end

-- delegate ---------------------------------------------------------------

-- Composes a memory packet for a sub-agent's task and puts it in the
-- unnamed register (and the clipboard when there is one).
function M.delegate(task)
  local c = current()
  if not c then
    return
  end
  local function send(t)
    if not t or vim.trim(t) == '' then
      return
    end
    local params = { task = vim.trim(t), agent = agent(c) }
    local name = vim.api.nvim_buf_get_name(0)
    if buffer_uri(c) then
      params.paths = { relative(c, name) }
    end
    request(c, 'engram/delegate', params, function(result)
      -- {packet, envelope}: the packet alone is what a sub-agent is handed.
      local packet = result.packet or {}
      local text = vim.fn.json_encode(packet)
      vim.fn.setreg('"', text)
      local where = 'the unnamed register'
      if vim.fn.has('clipboard') == 1 and pcall(vim.fn.setreg, '+', text) then
        where = 'the clipboard'
      end
      local n = type(packet.items) == 'table' and #packet.items or 0
      notify(
        ('engram: memory packet %s (%d memor%s) copied to %s.'):format(
          tostring(packet.packet_id or ''):sub(1, 12),
          n,
          n == 1 and 'y' or 'ies',
          where
        )
      )
    end)
  end
  if task and vim.trim(task) ~= '' then
    send(task)
  else
    vim.ui.input({ prompt = 'engram: task for the sub-agent: ' }, send)
  end
end

-- hover ------------------------------------------------------------------

-- The memories on the symbol under the cursor in a float, from engram alone
-- (vim.lsp.buf.hover asks every server of the buffer). The float is drawn
-- here: the hover handler's name and signature differ across versions.
function M.hover()
  local c = current()
  if not c then
    return
  end
  request(c, 'textDocument/hover', compat.position_params(c), function(result)
    if not result or result == vim.NIL or not result.contents then
      notify('engram: no memory on the symbol under the cursor.')
      return
    end
    local lines = vim.lsp.util.convert_input_to_markdown_lines(result.contents)
    vim.lsp.util.open_floating_preview(lines, 'markdown', { border = 'rounded', focus_id = 'engram-hover' })
  end)
end

function M.restart()
  local n = client.restart()
  if not require('engram.config').binary() then
    return -- client.attach has said what is missing
  end
  if n == 0 then
    notify('engram: no buffer inside a workspace to start engram for.', levels.WARN)
  else
    notify(('engram: started for %d buffer%s.'):format(n, n == 1 and '' or 's'))
  end
end

return M
